"""What a site demands beyond the contract: settings that turn a warning into an error.

The contract (SCHEMA.md) decides whether a record is well-formed and still
covered by its review; a policy only tightens what a publish accepts. It never
changes how a record renders, so a block looks the same on every site, and it
is part of every cache key that depends on findings.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass, replace

from .._core.diagnostics import Diagnostic
from .signature import Reviews

# The warnings each setting turns into errors.
_ESCALATES = {"require_quotes": frozenset({"CE905"})}


@dataclass(frozen=True)
class Policy:
    """A site's demands, read from ``claim-evidence.toml`` (or given on the command line).

    ``require_quotes``: a claim whose status asserts support (matched, partial)
    and whose statement has numbers must carry a quoted passage to check them
    against (CE905 becomes an error). Off by default, so sites that recorded
    their reviews before quotes existed keep passing until they opt in.

    ``reviews``: the site's ``[reviews]`` table: its signatures are verified
    (CE411-CE415, a site check run after validation, in :mod:`_check.signing`).
    """

    require_quotes: bool = False
    # [reviews]: whose signatures the site trusts and where it requires one (None: no such table; a
    # signature then gets a note that it was not verified, and no review needs one).
    reviews: Reviews | None = None

    @property
    def show_signer(self) -> bool:
        """The blocks name the signer of a signed review (``[reviews] show_signer``)."""
        return self.reviews is not None and self.reviews.show_signer

    def escalated(self) -> frozenset[str]:
        """Codes that are errors under this policy and warnings under the contract."""
        return frozenset(code for name, codes in _ESCALATES.items() if getattr(self, name) for code in codes)

    def apply(self, found: Iterable[Diagnostic]) -> Iterator[Diagnostic]:
        """``found`` (the contract's findings) as this site sees them.

        Applied after validation, never inside it: findings are memoized per
        record, and whether a block renders as unverified depends on the
        contract's errors alone.
        """
        codes = self.escalated()
        for d in found:
            yield replace(d, severity="error") if d.code in codes and not d.is_error else d

    def applied(self, d: Diagnostic) -> Diagnostic:
        """One finding as this site sees it."""
        return next(self.apply((d,)))


DEFAULT_POLICY = Policy()
