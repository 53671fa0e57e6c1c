"""claim-evidence: checkable evidence records for the claims of a static site.

The public API is what ``__all__`` lists; everything in ``_``-modules may change.
Reporting: collect :class:`FileResult` values, print them with :func:`report`
in one of :data:`REPORT_FORMATS`, and exit with :func:`exit_code`, as the
command lines do.
Validation checks structure and that each recorded review still covers the
current wording, conditions and sources. It does not judge truth, fetch
sources, or authenticate the reviewer.

The names are imported on first use (PEP 562): ``import claim_evidence`` costs
almost nothing, so a tool that needs one part (the page check, a build hook,
``--version``) does not pay for jinja2, jsonschema or the answer guard.
"""

from __future__ import annotations

from ._core.lazy import lazy_exports

# Not ``typing.TYPE_CHECKING``: importing typing is itself a cost this module avoids (mypy knows the name).
TYPE_CHECKING = False
if TYPE_CHECKING:
    from ._answer.conversation import copy_text, trim_history
    from ._answer.guard import GuardedAnswer, guard_answer
    from ._answer.kb import KnowledgeBase, load_kb
    from ._answer.retrieve import retrieve
    from ._core.diagnostics import Diagnostic
    from ._core.errors import ClaimEvidenceError, EvidenceValidationError, InputError
    from ._core.jsonio import dumps_for_script
    from ._core.normalize import normalized_text
    from ._core.report import REPORT_FORMATS, FileResult, exit_code, report
    from ._core.urls import safe_http_url
    from ._html.text import visible_text
    from ._record.fingerprint import article_fingerprint, claim_fingerprint
    from ._record.policy import Policy
    from ._record.validation import evidence_review_pending, iter_diagnostics, require_valid_evidence, validate_bundle
    from ._render.citedforms import format_cited_sources
    from ._render.evidence import render_evidence

__version__ = "0.1.0"

__all__ = [
    "ClaimEvidenceError",
    "Diagnostic",
    "FileResult",
    "GuardedAnswer",
    "REPORT_FORMATS",
    "EvidenceValidationError",
    "InputError",
    "KnowledgeBase",
    "Policy",
    "__version__",
    "article_fingerprint",
    "claim_fingerprint",
    "copy_text",
    "dumps_for_script",
    "evidence_review_pending",
    "exit_code",
    "format_cited_sources",
    "guard_answer",
    "iter_diagnostics",
    "load_kb",
    "normalized_text",
    "render_evidence",
    "report",
    "require_valid_evidence",
    "retrieve",
    "safe_http_url",
    "trim_history",
    "validate_bundle",
    "visible_text",
]

# Where each public name lives.
_HOMES = {
    "copy_text": "claim_evidence._answer.conversation",
    "trim_history": "claim_evidence._answer.conversation",
    "ClaimEvidenceError": "claim_evidence._core.errors",
    "Diagnostic": "claim_evidence._core.diagnostics",
    "EvidenceValidationError": "claim_evidence._core.errors",
    "InputError": "claim_evidence._core.errors",
    "article_fingerprint": "claim_evidence._record.fingerprint",
    "claim_fingerprint": "claim_evidence._record.fingerprint",
    "GuardedAnswer": "claim_evidence._answer.guard",
    "guard_answer": "claim_evidence._answer.guard",
    "dumps_for_script": "claim_evidence._core.jsonio",
    "normalized_text": "claim_evidence._core.normalize",
    "KnowledgeBase": "claim_evidence._answer.kb",
    "load_kb": "claim_evidence._answer.kb",
    "Policy": "claim_evidence._record.policy",
    "render_evidence": "claim_evidence._render.evidence",
    "format_cited_sources": "claim_evidence._render.citedforms",
    "REPORT_FORMATS": "claim_evidence._core.report",
    "FileResult": "claim_evidence._core.report",
    "exit_code": "claim_evidence._core.report",
    "report": "claim_evidence._core.report",
    "retrieve": "claim_evidence._answer.retrieve",
    "visible_text": "claim_evidence._html.text",
    "safe_http_url": "claim_evidence._core.urls",
    "evidence_review_pending": "claim_evidence._record.validation",
    "iter_diagnostics": "claim_evidence._record.validation",
    "require_valid_evidence": "claim_evidence._record.validation",
    "validate_bundle": "claim_evidence._record.validation",
}


__getattr__, __dir__ = lazy_exports(__name__, _HOMES, globals(), __all__)
