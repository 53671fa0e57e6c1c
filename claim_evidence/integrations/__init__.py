"""Plugins for static site generators, each behind its optional extra.

``claim_evidence.integrations.mkdocs``, ``.sphinx`` and ``.pelican`` import their
generator at module level: only the generator imports them, and importing
``claim_evidence`` never loads any of them.
"""
