"""The toolkit's error hierarchy: every exception it raises on purpose, under :class:`ClaimEvidenceError`.

One module so that what can go wrong, and the exit code each kind means, is read in one place;
the modules that raise them import them from here (and re-export them, so their old homes keep
working). How a command line tells each one to its user: :func:`claim_evidence._core.report.error_report`.

Exceptions that are a private signal inside one module (``_LangFound``, ``_Repeated``, ``_NonPublic``,
``OverCap``, ``NotDecodable``) stay there: they never leave it, and no user sees them.

stdlib only, and no import of :mod:`.diagnostics` at load time: that module re-exports the root
classes for its many importers, so it imports this one.
"""

from __future__ import annotations

# Not ``typing.TYPE_CHECKING``: importing typing is itself a cost this module avoids (mypy knows the name).
TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Sequence

    from .diagnostics import Diagnostic


class ClaimEvidenceError(Exception):
    """Root of every error the toolkit raises on purpose."""

    exit_code = 2


class InputError(ClaimEvidenceError):
    """A file could not be read or decoded: usage-level, exit code 2."""

    def __init__(self, diagnostic: Diagnostic) -> None:
        from .diagnostics import format_location  # (at call time: diagnostics imports this module)

        super().__init__(format_location(diagnostic) + f": {diagnostic.code} {diagnostic.message}")
        self.diagnostic = diagnostic


class MalformedInput(InputError):
    """The file was read, but what it holds is not a bundle the checks can read: invalid or
    empty JSON, JSON nested too deep, a page without exactly one bundle script.

    That is the editor's content to fix, like any finding, so it exits 1 wherever it is found
    (a bundle file, an article, a page's script), while a file that cannot be read at all
    (missing, unreadable, not UTF-8, over the size limit) is an :class:`InputError`, exit 2.
    """

    exit_code = 1


class EvidenceValidationError(ClaimEvidenceError, ValueError):
    """A bundle failed validation; carries the diagnostics (exit code 1)."""

    exit_code = 1

    def __init__(self, diagnostics: Sequence[Diagnostic]) -> None:
        self.diagnostics = tuple(diagnostics)
        super().__init__("; ".join(d.text for d in self.diagnostics))


class InternalError(ClaimEvidenceError):
    """A rewrite failed its own proof; nothing was written. Always a bug in the helper."""

    exit_code = 2


class AuthoringError(ClaimEvidenceError):
    """The request names something that is not there (or already is): exit 2, nothing written."""


class EditRefused(EvidenceValidationError):
    """The edit would leave errors in the record: the validator's findings, nothing written.

    Exit 2, not a validation failure's 1: the record as it is has no new error, the request does
    (what the command lines have always answered to a refused edit).
    """

    exit_code = 2


class ReviewError(ClaimEvidenceError):
    """The review request itself is wrong (unknown id, bad date or method): exit 2."""


class InitError(ClaimEvidenceError):
    """``init`` cannot or must not write here (no such folder, a config already there): exit 2."""

    exit_code = 2


class DayfileError(ClaimEvidenceError):
    """An item cannot be written as a day-file (a line break in a one-line field, NaN in a bundle)."""

    def __init__(self, diagnostic: Diagnostic) -> None:
        super().__init__(f"{diagnostic.subject}: {diagnostic.code} {diagnostic.message}")
        self.diagnostic = diagnostic


class CorrectionRegistryError(EvidenceValidationError):
    """The registry has errors; ``diagnostics`` name each URL and JSON path."""


class ChatConfigError(ClaimEvidenceError):
    """The endpoint cannot start as configured (a setting out of range, the API key not set): exit 2."""


class ExtractionRunError(ClaimEvidenceError):
    """``extract run`` cannot ask the model (the SDK not installed, the API key not set): exit 2."""
