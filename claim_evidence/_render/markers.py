"""A freshness marker's words: the policy tag, the review date and the state, per language.

What a reader sees depends only on the review's state (fresh, due soon, expired), its dates and the
policy that dated it — never on a count of days to the build date — so a page changes on the two days
its review turns (due soon, then expired) and on no other. The evidence block, the sources summary and
a Cited Sources line all take their words from :func:`marker_words`, so they cannot drift apart.
"""

from __future__ import annotations

from typing import NamedTuple

from .._record.freshness import Marker
from .._record.vocabulary import TEXT

MARKER_SYMBOLS = {"fresh": "🟢", "due soon": "🟡", "expired": "⚠"}


class MarkerWords(NamedTuple):
    """``tag``: the policy, bracketed (``[365日]``, ``[常設]``, ``[期日指定]``); ``checked``: the review
    date (``照合 2026-09-05``); ``state``: what the state asks of a reader (``次回確認 2027-03-04まで``,
    ``まもなく再確認（…まで）``, the ``⚠ 古い: …`` suffix after expiry; empty for a permanent review)."""

    tag: str
    checked: str
    state: str


def policy_tag(marker: Marker, lang: str) -> str:
    """``[常設]``/``[permanent]`` without a due date, ``[N日]``/``[N days]`` for a basis's period,
    ``[期日指定]``/``[fixed date]`` for a ``review_by`` date."""
    text = TEXT[lang]
    if marker.due is None:
        return f"[{text['marker_permanent']}]"
    if marker.period_days is None:
        return f"[{text['marker_review_by']}]"
    key = "marker_period_one" if marker.period_days == 1 else "marker_period"
    return "[" + text[key].format(days=marker.period_days) + "]"


def marker_words(marker: Marker, lang: str) -> MarkerWords:
    """The parts of ``marker``'s text in ``lang`` (see :class:`MarkerWords`)."""
    text = TEXT[lang]
    checked = text["marker_checked"].format(date=marker.checked_at)
    state = "" if marker.due is None else text["marker_" + marker.state.replace(" ", "_")].format(due=marker.due)
    return MarkerWords(policy_tag(marker, lang), checked, state)


def marker_text(marker: Marker, lang: str) -> str:
    """The marker's words on one line: ``[365日] 照合 2026-09-05 · 次回確認 2027-03-04まで``; after
    expiry the ⚠ suffix follows the review date (``[90日] 照合 2026-03-22 ⚠ 古い: 再確認が必要（期限
    2026-06-20）``); a permanent review shows its tag and date alone."""
    words = marker_words(marker, lang)
    line = f"{words.tag} {words.checked}"
    if not words.state:
        return line
    return f"{line} {words.state}" if marker.state == "expired" else f"{line} · {words.state}"
