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

from claim_evidence._core.lazy import lazy_exports

# Not ``typing.TYPE_CHECKING``: importing typing is itself a cost this module avoids (mypy knows the name).
TYPE_CHECKING = False
if TYPE_CHECKING:
    from claim_evidence._check.page import (
        DEFAULT_STYLESHEET,
        Page,
        PageOptions,
        check_static_page,
        check_text,
        load_page,
        render_static_page,
        replace_bundle,
    )
    from claim_evidence._core.splice import InternalError
    from claim_evidence._html.locate import Element, Located, locate
    from claim_evidence._site.config import Config, at_build_date, find_config, load_config

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
    "Element": "claim_evidence._html.locate",
    "Located": "claim_evidence._html.locate",
    "locate": "claim_evidence._html.locate",
    "DEFAULT_STYLESHEET": "claim_evidence._check.page",
    "Page": "claim_evidence._check.page",
    "PageOptions": "claim_evidence._check.page",
    "check_static_page": "claim_evidence._check.page",
    "check_text": "claim_evidence._check.page",
    "load_page": "claim_evidence._check.page",
    "render_static_page": "claim_evidence._check.page",
    "replace_bundle": "claim_evidence._check.page",
    "Config": "claim_evidence._site.config",
    "find_config": "claim_evidence._site.config",
    "at_build_date": "claim_evidence._site.config",
    "load_config": "claim_evidence._site.config",
    "InternalError": "claim_evidence._core.splice",
    "write_page": "static_helper._write",
}


__getattr__, __dir__ = lazy_exports(__name__, _HOMES, globals(), __all__)
