"""The news path: corrections by URL, the day-file round trip, list pages, derived JSON, preflight.

An article's evidence record is attached once, from the correction registry,
and must then survive every step unchanged: the day-file, the list pages and
their ``data.json``, and the homepage projection. The comparisons here prove it
before anything ships. Nothing in this package reads the clock, prints, or
changes its inputs; every write is atomic.
"""

from .._check.options import DEFAULT_STYLESHEET  # one definition: the href a page check expects
from ._corrections import (
    Correction,
    CorrectionRegistry,
    CorrectionRegistryError,
    apply_article_correction,
    iter_registry_diagnostics,
    load_corrections,
    registry_from_value,
)
from ._dayfile import (
    META_PREFIX,
    DayfileError,
    ParsedDayfile,
    extract_dayfile_text,
    format_dayfile,
    metadata_line,
    parse_dayfile,
    parse_dayfile_text,
    write_dayfile,
)
from ._homepage import DEFAULT_EVIDENCE_URL, EvidenceLink, evidence_url, homepage_projection, parse_evidence_url
from ._output import json_text, write_json, write_text
from ._pages import (
    daily_page_data,
    rank_items,
    render_daily_page,
    render_top_page,
    top_page_data,
)
from ._preflight import (
    compare_article_evidence,
    compare_homepage_evidence,
    iter_article_diagnostics,
    iter_homepage_diagnostics,
)
from ._targets import TargetResult, check_derived_outputs

__all__ = [
    "DEFAULT_EVIDENCE_URL",
    "DEFAULT_STYLESHEET",
    "META_PREFIX",
    "Correction",
    "CorrectionRegistry",
    "CorrectionRegistryError",
    "DayfileError",
    "EvidenceLink",
    "ParsedDayfile",
    "TargetResult",
    "apply_article_correction",
    "check_derived_outputs",
    "compare_article_evidence",
    "compare_homepage_evidence",
    "daily_page_data",
    "evidence_url",
    "extract_dayfile_text",
    "format_dayfile",
    "homepage_projection",
    "iter_article_diagnostics",
    "iter_homepage_diagnostics",
    "iter_registry_diagnostics",
    "json_text",
    "load_corrections",
    "metadata_line",
    "parse_dayfile",
    "parse_dayfile_text",
    "parse_evidence_url",
    "rank_items",
    "registry_from_value",
    "render_daily_page",
    "render_top_page",
    "top_page_data",
    "write_dayfile",
    "write_json",
    "write_text",
]
