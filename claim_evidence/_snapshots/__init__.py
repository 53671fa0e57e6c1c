"""What a review read, offline: the content-addressed snapshot store, its checks and the anchoring of
quotes. May import :mod:`claim_evidence._core` and :mod:`claim_evidence._record` (and, lazily, the text
extraction of :mod:`claim_evidence._sources` to re-derive a stored snapshot's text).
"""
