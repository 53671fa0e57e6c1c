"""The AI answer guard: the knowledge base, retrieval, the model reply's parsing and text rules, the
conversation limits and the ``[chat]`` config. May import :mod:`claim_evidence._core` and
:mod:`claim_evidence._record`; never the network, never the chat endpoint.
"""
