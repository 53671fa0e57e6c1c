"""The evidence record itself: vocabulary, canonical JSON and fingerprints, the JSON Schema, the
validation engine and its rules, the site policy, freshness rules, the number reader and the authoring of
records. May import :mod:`claim_evidence._core` only.
"""
