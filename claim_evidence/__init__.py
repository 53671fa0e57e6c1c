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

from ._lazy import lazy_exports

# Not ``typing.TYPE_CHECKING``: importing typing is itself a cost this module avoids (mypy knows the name).
TYPE_CHECKING = False
if TYPE_CHECKING:
    from ._conversation import copy_text, trim_history
    from ._diagnostics import ClaimEvidenceError, Diagnostic, EvidenceValidationError, InputError
    from ._fingerprint import article_fingerprint, claim_fingerprint, normalized_text
    from ._guard import GuardedAnswer, guard_answer
    from ._jsonio import dumps_for_script
    from ._kb import KnowledgeBase, load_kb
    from ._policy import Policy
    from ._render import render_evidence
    from ._report import REPORT_FORMATS, FileResult, exit_code, report
    from ._retrieve import retrieve
    from ._text import visible_text
    from ._urls import safe_http_url
    from ._validation import evidence_review_pending, iter_diagnostics, require_valid_evidence, validate_bundle

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
    "copy_text": "claim_evidence._conversation",
    "trim_history": "claim_evidence._conversation",
    "ClaimEvidenceError": "claim_evidence._diagnostics",
    "Diagnostic": "claim_evidence._diagnostics",
    "EvidenceValidationError": "claim_evidence._diagnostics",
    "InputError": "claim_evidence._diagnostics",
    "article_fingerprint": "claim_evidence._fingerprint",
    "claim_fingerprint": "claim_evidence._fingerprint",
    "normalized_text": "claim_evidence._fingerprint",
    "GuardedAnswer": "claim_evidence._guard",
    "guard_answer": "claim_evidence._guard",
    "dumps_for_script": "claim_evidence._jsonio",
    "KnowledgeBase": "claim_evidence._kb",
    "load_kb": "claim_evidence._kb",
    "Policy": "claim_evidence._policy",
    "render_evidence": "claim_evidence._render",
    "REPORT_FORMATS": "claim_evidence._report",
    "FileResult": "claim_evidence._report",
    "exit_code": "claim_evidence._report",
    "report": "claim_evidence._report",
    "retrieve": "claim_evidence._retrieve",
    "visible_text": "claim_evidence._text",
    "safe_http_url": "claim_evidence._urls",
    "evidence_review_pending": "claim_evidence._validation",
    "iter_diagnostics": "claim_evidence._validation",
    "require_valid_evidence": "claim_evidence._validation",
    "validate_bundle": "claim_evidence._validation",
}


__getattr__, __dir__ = lazy_exports(__name__, _HOMES, globals(), __all__)
