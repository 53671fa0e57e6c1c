"""static-helper: bind hand-maintained pages to their evidence records.

It locates claim elements (``data-claim-id``), evidence slots
(``data-evidence-for``) and the bundle (``script#claim-evidence-data``) with
exact positions, checks that they agree, and re-renders only the inside of the
slots. The page reader and the checks are the library's (``claim_evidence``);
this package adds the rewriting (``--write``), its cache and its command line.
The public API is what ``__all__`` lists.

The names are imported on first use (PEP 562): ``import static_helper`` costs
almost nothing, so a command line or a build tool that only needs one part,
or none (``static-helper --version``), does not pay for the rest.
"""
from __future__ import annotations

from claim_evidence._lazy import lazy_exports

# Not ``typing.TYPE_CHECKING``: importing typing is itself a cost this module avoids (mypy knows the name).
TYPE_CHECKING = False
if TYPE_CHECKING:
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
    from claim_evidence._site import Config, at_build_date, find_config, load_config
    from claim_evidence._splice import InternalError

    from ._write import write_page

__all__ = [
    "Config",
    "DEFAULT_STYLESHEET",
    "Element",
    "InternalError",
    "Located",
    "Page",
    "PageOptions",
    "at_build_date",
    "check_static_page",
    "check_text",
    "find_config",
    "load_config",
    "load_page",
    "locate",
    "render_static_page",
    "replace_bundle",
    "write_page",
]

# Where each public name lives.
_HOMES = {
    "Element": "claim_evidence._locate",
    "Located": "claim_evidence._locate",
    "locate": "claim_evidence._locate",
    "DEFAULT_STYLESHEET": "claim_evidence._page",
    "Page": "claim_evidence._page",
    "PageOptions": "claim_evidence._page",
    "check_static_page": "claim_evidence._page",
    "check_text": "claim_evidence._page",
    "load_page": "claim_evidence._page",
    "render_static_page": "claim_evidence._page",
    "replace_bundle": "claim_evidence._page",
    "Config": "claim_evidence._site",
    "find_config": "claim_evidence._site",
    "at_build_date": "claim_evidence._site",
    "load_config": "claim_evidence._site",
    "InternalError": "claim_evidence._splice",
    "write_page": "static_helper._write",
}


__getattr__, __dir__ = lazy_exports(__name__, _HOMES, globals(), __all__)
