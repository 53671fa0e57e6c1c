"""Reading HTML with positions: the tokenizer and tree builder, the locator of claim elements, slots,
the bundle script and stylesheet links, the C-parser fast path and its bulk scan, when a later text must
locate as a page did (``relocate``), the visible text of an element, the page's headings, HTML
equivalence of a slot and the page's language. May import :mod:`claim_evidence._core` only: a page is
read without knowing what a record is.
"""
