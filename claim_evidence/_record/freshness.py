"""Review age: a review is a statement about a moment, and a site may say how long it holds.

``[freshness]`` in ``claim-evidence.toml`` sets, per basis, how many days a
review of a claim holds (``max_age_days``), and whether an expired review is a
warning or an error. A claim's ``verification.review_by`` overrides that for
the claim. Ages are counted to the *build date*: ``--today``, else
``SOURCE_DATE_EPOCH``, else the clock — the one place the toolkit reads it.

Like the snapshot checks, these findings belong to the site, not to the
record: they are added after validation and never change how a block renders.
That includes CE406, a review dated after the build date: the build date is
what makes it impossible, so it is checked wherever a build date is resolved,
always as an error.
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, replace
from datetime import UTC, date, datetime, timedelta
from typing import Any, Literal

from .._core.dates import is_valid_date
from .._core.diagnostics import Diagnostic, InputError, json_path
from .vocabulary import VERIFIED_STATUSES, is_valid_id, str_or_none

# Days a review holds per basis; None: no limit (an editorial view does not age).
DEFAULT_MAX_AGE_DAYS: dict[str, int | None] = {
    "official_spec": 365,
    "vendor_claim": 180,
    "independent_measurement": 365,
    "reporting": 90,
    "operator_measurement": 365,
    "editorial": None,
}
EXPIRED_SEVERITIES = ("warning", "error")
# A review is due soon in the last 15 % of its period (an informational note).
DUE_SOON_PERCENT = 15
EXPIRED = "CE601"
DUE_SOON = "CE602"
BAD_DATE = "CE600"
REVIEW_AFTER_BUILD = "CE406"
_ADVICE = "read the sources again and record the review"


@dataclass(frozen=True)
class Freshness:
    """A site's review age policy, and (once resolved by :func:`dated`) the build date ages are counted to.

    Strings, ints and tuples only: page options are part of the page cache's keys (``dataclasses.astuple``,
    then JSON), so the policy and the build date both change those (a page's findings count days); rendered
    blocks are keyed by :func:`marker_key` instead, which names the states, not the date.
    """

    max_age_days: tuple[tuple[str, int | None], ...] = tuple(DEFAULT_MAX_AGE_DAYS.items())
    expired: Literal["warning", "error"] = "warning"
    today: str | None = None  # YYYY-MM-DD; None: not resolved yet, no findings
    source: str | None = None  # where ``today`` came from: --today, SOURCE_DATE_EPOCH or clock
    markers: bool = False  # evidence blocks and the sources summary show each review's freshness
    # False: the site has no [freshness] table; only the build date is known, for CE406 (no ages, no markers).
    aging: bool = True

    def max_age(self, basis: object) -> int | None:
        return dict(self.max_age_days).get(basis) if isinstance(basis, str) else None

    def describe(self) -> str:
        """The line a report prints: the build date and where it came from."""
        return f"freshness: review ages counted to {self.today} (build date from {self.source})"


def clock_date() -> date:
    """Today's date (UTC), from the clock: the last resort for the build date, and the date of a
    real fetch (``sources snapshot``). The toolkit's one reading of the clock for a date."""
    return datetime.now(UTC).date()


def build_date(today: str | None, environ: Mapping[str, str] | None = None) -> tuple[str, str]:
    """``(YYYY-MM-DD, source)``: ``today`` (``--today``), else ``SOURCE_DATE_EPOCH`` (its UTC date), else the clock.

    An invalid ``--today`` or ``SOURCE_DATE_EPOCH`` is an :class:`InputError` (CE600): a build date
    must never be guessed.
    """
    if today is not None:
        if not is_valid_date(today):
            raise _bad_date(f"--today must be an existing date as YYYY-MM-DD (found {today!r})")
        return today, "--today"
    epoch = (os.environ if environ is None else environ).get("SOURCE_DATE_EPOCH")
    if epoch is not None:
        try:
            return datetime.fromtimestamp(int(epoch.strip()), UTC).date().isoformat(), "SOURCE_DATE_EPOCH"
        except (ValueError, OverflowError, OSError):
            raise _bad_date(f"SOURCE_DATE_EPOCH must be whole seconds since 1970-01-01 UTC (found {epoch!r})") from None
    return clock_date().isoformat(), "clock"


def check_today(today: str | None) -> None:
    """Refuse a malformed ``--today`` even where no policy applies (a typo must not pass silently)."""
    if today is not None and not is_valid_date(today):
        build_date(today)


def dated(freshness: Freshness | None, today: str | None, environ: Mapping[str, str] | None = None) -> Freshness | None:
    """``freshness`` with its build date resolved; None stays None and reads neither the environment nor the clock."""
    check_today(today)
    if freshness is None:
        return None
    day, source = build_date(today, environ)
    return replace(freshness, today=day, source=source)


def build_date_only(day: str, source: str | None) -> Freshness:
    """No review age policy, only the build date: a review dated after it is still impossible (CE406)."""
    return Freshness(max_age_days=(), today=day, source=source, aging=False)


def at_build(freshness: Freshness | None, today: str | None, environ: Mapping[str, str] | None = None) -> Freshness:
    """``freshness`` dated (:func:`dated`), or, for a site without ``[freshness]``, the build date alone
    (:func:`build_date_only`): every check learns the build date, from ``--today``, else
    ``SOURCE_DATE_EPOCH``, else the clock."""
    found = dated(freshness, today, environ)
    return found if found is not None else build_date_only(*build_date(today, environ))


def _bad_date(message: str) -> InputError:
    return InputError(Diagnostic(BAD_DATE, message, subject="build date"))


def freshness_diagnostics(bundle: Any, freshness: Freshness | None) -> list[Diagnostic]:
    """Reviews dated after the build date (CE406, an error), then expired (CE601) and due-soon (CE602, a
    note) reviews of ``bundle``'s claims, each in claim order; none without a policy or a resolved build date."""
    if freshness is None or freshness.today is None or not isinstance(bundle, dict):
        return []
    late = reviews_after_build(bundle, freshness.today, freshness.source)
    if not freshness.aging:
        return late
    unaged = {d.path for d in late}  # a review dated after the build has no age to tell
    claims = bundle.get("claims")
    today = date.fromisoformat(freshness.today)
    return late + [
        d
        for i, claim in enumerate(claims if isinstance(claims, list) else [])
        if json_path(("claims", i, "verification", "checked_at")) not in unaged
        for d in _claim(i, claim, freshness, today)
    ]


def reviews_after_build(bundle: Any, today: str, source: str | None) -> list[Diagnostic]:
    """CE406, an error, for each claim whose review record (whatever the status: a date the review cannot
    have had is wrong wherever it stands) is dated after the build date ``today`` from ``source``
    (see :func:`latest_review_date`), in claim order. It needs a build date, not a policy."""
    claims = bundle.get("claims") if isinstance(bundle, dict) else None
    found = []
    for i, claim in enumerate(claims if isinstance(claims, list) else []):
        verification = claim.get("verification") if isinstance(claim, dict) else None
        checked_at = verification.get("checked_at") if isinstance(verification, dict) else None
        late = (
            review_after_build(checked_at, today, source)
            if isinstance(checked_at, str) and is_valid_date(checked_at)
            else None
        )
        if late is not None:
            found.append(
                Diagnostic(
                    REVIEW_AFTER_BUILD,
                    late,
                    json_path(("claims", i, "verification", "checked_at")),
                    "error",
                    _subject(i, claim),
                )
            )
    return found


def latest_review_date(today: str, source: str | None) -> date:
    """The latest ``checked_at`` a build on ``today`` can see. ``--today`` is the editor's own calendar
    and bounds it exactly; ``SOURCE_DATE_EPOCH`` and the clock give the date in UTC, and a date written
    east of Greenwich is up to a day ahead of it (in Japan, until 09:00): a review recorded there that
    morning must not be refused."""
    day = date.fromisoformat(today)
    return day if source in (None, "--today") else day + timedelta(days=1)


def review_after_build(
    checked_at: str, today: str, source: str | None, *, field: str = "checked_at", fix: str = ""
) -> str | None:
    """CE406's message when ``checked_at`` (a valid date) is later than a review by the build date can be
    dated (see :func:`latest_review_date`), else None. ``field`` and ``fix`` are how the caller names the
    date and the remedy (``review record`` says ``--checked-at``)."""
    latest = latest_review_date(today, source)
    if date.fromisoformat(checked_at) <= latest:
        return None
    origin = f"from {source}" if source else "given"
    if latest.isoformat() != today:
        origin += f", a UTC date: reviews up to {latest.isoformat()} are accepted"
    fix = (
        fix
        or "record it with the day the sources were read (claim-evidence review record … --checked-at YYYY-MM-DD), or correct the build date"
    )
    return f"{field} {checked_at} is after the build date {today} ({origin}): a review cannot be dated after the build; {fix}"


def _claim(i: int, claim: Any, freshness: Freshness, today: date) -> Iterator[Diagnostic]:
    if not isinstance(claim, dict) or str_or_none(claim.get("status")) not in VERIFIED_STATUSES:
        return
    verification = claim.get("verification")
    checked_at = verification.get("checked_at") if isinstance(verification, dict) else None
    if not is_valid_date(checked_at):
        return  # CE401 reports it
    assert isinstance(verification, dict) and isinstance(checked_at, str)
    found = review_due(verification, claim.get("basis"), freshness)
    if found is None:
        return
    due, key = found
    subject = _subject(i, claim)
    where = json_path(("claims", i, "verification", key))
    state = due_state(due, date.fromisoformat(checked_at), today)
    if state == "expired":
        if key == "review_by":
            late = f"review_by {due.isoformat()} has passed ({_days((today - due).days)} ago): {_ADVICE}"
        else:
            basis, age = claim.get("basis"), (today - date.fromisoformat(checked_at)).days
            late = f"review is {_days(age)} old (checked {checked_at}); the policy for {basis} is {_days((due - date.fromisoformat(checked_at)).days)}: {_ADVICE}"
        yield Diagnostic(EXPIRED, late, where, freshness.expired, subject)
    elif state == "due soon":
        left = (due - today).days
        when = "review due today" if left == 0 else f"review due in {_days(left)}"
        yield Diagnostic(DUE_SOON, f"{when} (by {due.isoformat()})", where, "note", subject)


def _subject(i: int, claim: dict[str, Any]) -> str:
    return f"claim {claim['id']}" if is_valid_id(claim.get("id")) else f"claim #{i}"


def review_due(verification: Mapping[str, Any], basis: Any, freshness: Freshness) -> tuple[date, str] | None:
    """When a review (with a valid ``checked_at``) is due, and which field decided (``review_by``, else
    ``checked_at`` plus the basis's period); None when the basis has no limit. One rule for the
    findings and the site report."""
    review_by = verification.get("review_by")
    if is_valid_date(review_by):  # an invalid one is CE405; the policy applies meanwhile
        assert isinstance(review_by, str)
        return date.fromisoformat(review_by), "review_by"
    limit = freshness.max_age(basis)
    if limit is None:
        return None
    return date.fromisoformat(str(verification["checked_at"])) + timedelta(days=limit), "checked_at"


def due_state(due: date, checked: date, today: date) -> str:
    """``expired`` past the due date, ``due soon`` in the last :data:`DUE_SOON_PERCENT` of the period, else ``fresh``."""
    left = (due - today).days
    if left < 0:
        return "expired"
    return "due soon" if left * 100 <= (due - checked).days * DUE_SOON_PERCENT else "fresh"


@dataclass(frozen=True)
class Marker:
    """A review's freshness as a block shows it: ``state`` (fresh, due soon or expired), the
    review's age in days on the build date, the review date, the date the review is due
    (``None``: the basis has no period and no ``review_by`` is set, a permanent review) and the
    period in days that decided it (``None`` for a ``review_by`` date or a permanent review).

    What a reader sees should change only with ``state`` (and the dates), never with
    ``age_days`` alone: a count of days makes a page differ every day.
    """

    state: str
    age_days: int
    checked_at: str = ""
    due: str | None = None
    period_days: int | None = None


def review_marker(claim: Any, freshness: Freshness | None) -> Marker | None:
    """The freshness marker of ``claim``'s review, when the site shows markers (``markers = true``
    with a resolved build date) and the claim asserts a review with a valid ``checked_at``; else None.

    A review recorded after the build date counts as 0 days old: a marker never shows a negative age.
    """
    if freshness is None or not freshness.markers or freshness.today is None or not isinstance(claim, dict):
        return None
    verification = claim.get("verification")
    if str_or_none(claim.get("status")) not in VERIFIED_STATUSES or not isinstance(verification, dict):
        return None
    checked_at = verification.get("checked_at")
    if not is_valid_date(checked_at):
        return None
    checked, today = date.fromisoformat(str(checked_at)), date.fromisoformat(freshness.today)
    found = review_due(verification, claim.get("basis"), freshness)
    state = "fresh" if found is None else due_state(found[0], checked, today)
    period = freshness.max_age(claim.get("basis")) if found is not None and found[1] == "checked_at" else None
    return Marker(
        state,
        max(0, (today - checked).days),
        str(checked_at),
        None if found is None else found[0].isoformat(),
        period,
    )


def marker_key(freshness: Freshness | None, bundle: Any) -> tuple[Any, ...] | None:
    """What ``bundle``'s markers depend on besides the bundle itself, for memo and cache keys: the policy
    and each claim's marker state (its dates are in the bundle). Not the build date: a rebuild on
    another day with every review in the same state renders the same bytes and must hit the caches.
    None when no marker shows."""
    if freshness is None or not freshness.markers or freshness.today is None:
        return None
    claims = bundle.get("claims") if isinstance(bundle, dict) else None
    states = tuple(
        None if (m := review_marker(c, freshness)) is None else m.state
        for c in (claims if isinstance(claims, list) else [])
    )
    return freshness.max_age_days, states


def state_changes(marker: Marker) -> tuple[date | None, date | None]:
    """The days a review's marker turns: ``(due soon from, expired from)``; both None for a permanent review.
    Due soon starts on the first day :func:`due_state` says so (the last :data:`DUE_SOON_PERCENT` of the
    period); expired the day after the due date."""
    if marker.due is None:
        return None, None
    due, checked = date.fromisoformat(marker.due), date.fromisoformat(marker.checked_at)
    period = (due - checked).days
    # The widest ``left`` due_state allows; a review_by before the review itself has no due-soon days.
    soon = due - timedelta(days=period * DUE_SOON_PERCENT // 100) if period >= 0 else None
    return soon, due + timedelta(days=1)


def _days(n: int) -> str:
    return f"{n} day{'' if n == 1 else 's'}"
