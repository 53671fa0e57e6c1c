"""static-helper: bind hand-maintained pages to their evidence records.

It locates claim elements (``data-claim-id``), evidence slots
(``data-evidence-for``) and the bundle (``script#claim-evidence-data``) with
exact positions, checks that they agree, and re-renders only the inside of the
slots. The page reader and the checks are the library's (``claim_evidence``);
this package adds the rewriting (``--write``), its cache and its command line.
The public API is what ``__all__`` lists.
"""
from claim_evidence._locate import Element, Located, locate
from claim_evidence._page import (
    DEFAULT_STYLESHEET,
    Page,
    PageOptions,
    check_static_page,
    check_text,
    load_page,
    render_static_page,
    replace_bundle,
)
from claim_evidence._splice import InternalError

from ._write import write_page

__all__ = [
    "DEFAULT_STYLESHEET",
    "Element",
    "InternalError",
    "Located",
    "Page",
    "PageOptions",
    "check_static_page",
    "check_text",
    "load_page",
    "locate",
    "render_static_page",
    "replace_bundle",
    "write_page",
]
