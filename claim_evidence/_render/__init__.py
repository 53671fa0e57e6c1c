"""Rendering records: the evidence block and the sources summary, a view model per block laid out by
the jinja2 templates. May import :mod:`claim_evidence._core` and :mod:`claim_evidence._record`.
"""
