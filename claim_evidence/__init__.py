"""claim-evidence: checkable evidence records for the claims of a static site.

The public API is what ``__all__`` lists; everything in ``_``-modules may change.
Reporting: collect :class:`FileResult` values, print them with :func:`report`
in one of :data:`REPORT_FORMATS`, and exit with :func:`exit_code`, as the
command lines do.
Validation checks structure and that each recorded review still covers the
current wording, conditions and sources. It does not judge truth, fetch
sources, or authenticate the reviewer.
"""
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
]
