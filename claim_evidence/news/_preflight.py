"""Preflight: every derived copy of a registered article compared with the canonical record.

The typed generators (``iter_…``) are the substance; ``compare_…`` return the
legacy list of strings. :func:`check_derived_outputs` runs them over files
(day-files, list-page ``data.json``, homepage JSON) and returns one result per
article URL, for ``claim-evidence prepublish`` to report.
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Mapping
from dataclasses import replace
from typing import Any

from .._core.diagnostics import Diagnostic, PathParts, json_path
from .._core.normalize import normalized_text
from .._record.fingerprint import canonical
from .._record.validation import iter_diagnostics
from ._corrections import EVIDENCE_KEY, TEXT_FIELDS
from ._homepage import DEFAULT_EVIDENCE_URL, accepted_form, article_url, parse_evidence_url, source_url_conflict

MAX_DIFFERENCES = 10


def _differences(actual: Any, expected: Any, parts: PathParts = ()) -> Iterator[tuple[PathParts, str]]:
    """Where two JSON values differ, as (path, description); JSON equality, so ``1 != 1.0 != true``."""
    if canonical(actual) == canonical(expected):
        return
    if isinstance(actual, dict) and isinstance(expected, dict):
        for key in [*expected, *(k for k in actual if k not in expected)]:
            if key not in actual:
                yield (*parts, key), "is missing"
            elif key not in expected:
                yield (*parts, key), "is not in the registry's record"
            else:
                yield from _differences(actual[key], expected[key], (*parts, key))
    elif isinstance(actual, list) and isinstance(expected, list) and len(actual) == len(expected):
        for index, (a, e) in enumerate(zip(actual, expected, strict=True)):
            yield from _differences(a, e, (*parts, index))
    else:
        yield parts, _versus(actual, expected, "the registry")


def _short(value: Any) -> str:
    text = canonical(value).decode("utf-8")
    return text if len(text) <= 80 else text[:77] + "..."


def _versus(actual: Any, expected: Any, owner: str) -> str:
    """``is X, <owner> has Y``; long texts are cut around their first difference."""
    if not (isinstance(actual, str) and isinstance(expected, str)) or max(len(actual), len(expected)) <= 60:
        return f"is {_short(actual)}, {owner} has {_short(expected)}"
    at = next(
        (i for i, (a, e) in enumerate(zip(actual, expected, strict=False)) if a != e), min(len(actual), len(expected))
    )
    start = max(0, at - 20)

    def window(text: str) -> str:
        piece = canonical(text[start : at + 20]).decode("utf-8")[1:-1]
        return ("…" if start else "") + piece + ("…" if at + 20 < len(text) else "")

    return f'differs at character {at + 1}: "{window(actual)}", {owner} has "{window(expected)}"'


def _bundle_differences(code: str, subject: str, actual: Any, expected: Any) -> Iterator[Diagnostic]:
    for count, (parts, description) in enumerate(_differences(actual, expected)):
        if count == MAX_DIFFERENCES:
            yield Diagnostic(code, "further differences not listed", json_path((EVIDENCE_KEY,)), subject=subject)
            return
        message = f"claim_evidence differs from the correction registry: {json_path(parts)} {description}"
        yield Diagnostic(code, message, json_path((EVIDENCE_KEY, *parts)), subject=subject)


def _present(bundle: Any) -> bool:
    return bundle is not None and bundle != {}


def _subject_name(item: Mapping[str, Any]) -> str:
    return f"article {item.get('url')}" if item.get("url") else "article"


def _homepage_subject(projection: Mapping[str, Any], index: int | None) -> str:
    """``homepage URL``; an entry without a url is named by its index in ``items`` (0-based, as in ``$.items[2]``) and title."""
    url = projection.get("url")
    if isinstance(url, str) and url:
        return f"homepage {url}"
    title = projection.get("title")
    return (
        "homepage item"
        + (f" {index}" if index is not None else "")
        + (f" ({_short(title)})" if isinstance(title, str) else "")
    )


def _validity(bundle: Any, item: Mapping[str, Any], subject: str) -> Iterator[Diagnostic]:
    """Errors of the bundle checked against the item's own title/tldr/summary."""
    for d in iter_diagnostics(bundle, item):
        if d.is_error:
            inner = subject if d.subject == "claim_evidence" else f"{subject}, {d.subject}"
            yield replace(d, path=json_path((EVIDENCE_KEY,)) + d.path[1:], subject=inner)


def iter_article_diagnostics(
    item: Any, expected: Mapping[str, Any] | None, *, expected_fields: Mapping[str, Any] | None = None
) -> Iterator[Diagnostic]:
    """A derived article must carry ``expected`` exactly, valid for its own text.

    ``expected_fields`` (a correction's replacement fields) are compared too: an
    ``evidence_label`` or title changed in a copy is caught even where no
    fingerprint covers it.
    """
    if not isinstance(item, dict):
        yield Diagnostic("NW404", "article item must be an object", subject="article")
        return
    subject = _subject_name(item)
    bundle = item.get(EVIDENCE_KEY)
    if _present(expected) and not _present(bundle):
        yield Diagnostic(
            "NW401",
            "claim_evidence dropped: the correction registry has a bundle for this URL",
            json_path((EVIDENCE_KEY,)),
            subject=subject,
        )
    elif not _present(expected) and _present(bundle):
        yield Diagnostic(
            "NW405",
            "carries claim_evidence the correction registry does not have for this URL",
            json_path((EVIDENCE_KEY,)),
            subject=subject,
        )
    elif _present(bundle):
        yield from _bundle_differences("NW402", subject, bundle, expected)
        yield from _validity(bundle, item, subject)
    for key, value in (expected_fields or {}).items():
        if key in TEXT_FIELDS and item.get(key) != value:
            message = f"{key} {_versus(item.get(key), value, 'the correction registry')}"
            yield Diagnostic("NW403", message, json_path((key,)), subject=subject)


def compare_article_evidence(
    item: Any, expected: Mapping[str, Any] | None, *, expected_fields: Mapping[str, Any] | None = None
) -> list[str]:
    """Error messages (``"article URL: …"``); empty when the copy matches the canonical record."""
    found = iter_article_diagnostics(item, expected, expected_fields=expected_fields)
    return [d.text for d in found if d.is_error]


def iter_homepage_diagnostics(
    projection: Any,
    expected: Mapping[str, Any] | None,
    item: Mapping[str, Any] | None = None,
    *,
    pattern: str = DEFAULT_EVIDENCE_URL,
    date: str | None = None,
    index: int | None = None,
) -> Iterator[Diagnostic]:
    """A homepage entry must carry ``expected``, link a dated page anchored to one of its claims,
    and (given the reviewed ``item``) show the reviewed title and tldr and name the reviewed article:
    its ``url``, or ``source.url`` in an existing-system record without ``url`` (both given and
    different: NW419).

    Messages name the entry by its ``url``; one without a url is named
    ``homepage item INDEX ("title")``, ``index`` being its 0-based place in the
    JSON's ``items`` (``$.items[INDEX]``) when the caller gives it.
    """
    if not isinstance(projection, dict):
        yield Diagnostic("NW420", "homepage entry must be an object", subject="homepage entry")
        return
    subject = _homepage_subject(projection, index)
    bundle = projection.get(EVIDENCE_KEY)
    if not _present(bundle):
        yield Diagnostic(
            "NW411", "claim_evidence dropped from the homepage entry", json_path((EVIDENCE_KEY,)), subject=subject
        )
    else:
        yield from _bundle_differences("NW412", subject, bundle, expected)
    yield from _link_diagnostics(projection.get("evidence_url"), expected, pattern, date, subject)
    conflict = source_url_conflict(projection)
    if conflict is not None:
        message = f"url {_short(conflict[0])} and source.url {_short(conflict[1])} name different articles"
        yield Diagnostic("NW419", message, json_path(("source", "url")), subject=subject)
    if item is not None:
        yield from _wording_diagnostics(projection, item, subject)
        if _present(bundle):
            yield from _validity(bundle, item, subject)


def _link_diagnostics(
    url: Any, expected: Mapping[str, Any] | None, pattern: str, date: str | None, subject: str
) -> Iterator[Diagnostic]:
    where = json_path(("evidence_url",))
    link = parse_evidence_url(url, pattern)
    if link is None:
        message = f"evidence_url {_short(url)} is not a link to a dated detail page (expected {accepted_form(pattern)})"
        yield Diagnostic("NW413", message, where, subject=subject)
        return
    if date is not None and link.date != date:
        yield Diagnostic(
            "NW418", f"evidence_url points to the page of {link.date}, expected {date}", where, subject=subject
        )
    claims = expected.get("claims") if isinstance(expected, Mapping) else None
    ids = {c.get("id") for c in claims if isinstance(c, dict)} if isinstance(claims, list) else set()
    if link.claim_id not in ids:
        yield Diagnostic(
            "NW414",
            f"evidence_url anchor evidence-{link.claim_id} is not a claim of the bundle",
            where,
            subject=subject,
        )


def _wording_diagnostics(projection: Mapping[str, Any], item: Mapping[str, Any], subject: str) -> Iterator[Diagnostic]:
    for key, source, code in (("title", "title", "NW415"), ("blurb", "tldr", "NW416")):
        if normalized_text(projection.get(key)) != normalized_text(item.get(source)):
            message = f"{key} {_versus(projection.get(key), item.get(source), f'the reviewed {source}')}: changed wording needs a new review"
            yield Diagnostic(code, message, json_path((key,)), subject=subject)
    url, where = article_url(projection)
    if item.get("url") is not None and url != item.get("url"):
        message = f"{'.'.join(map(str, where))} {_short(url)} is not the reviewed article's"
        yield Diagnostic("NW417", message, json_path(where), subject=subject)


def compare_homepage_evidence(
    projection: Any,
    expected: Mapping[str, Any] | None,
    item: Mapping[str, Any] | None = None,
    *,
    pattern: str = DEFAULT_EVIDENCE_URL,
    date: str | None = None,
    index: int | None = None,
) -> list[str]:
    """Error messages for a homepage entry; empty when it matches.

    With the default ``pattern`` the ``evidence_url`` may sit in any folder
    (``presentations/daily_reports/auto_daily_report_2026_09_05.html#evidence-ID``);
    a pattern given here must match it exactly. ``index``: the entry's 0-based
    place in ``items``, to name an entry that has no ``url``.
    """
    found = iter_homepage_diagnostics(projection, expected, item, pattern=pattern, date=date, index=index)
    return [d.text for d in found if d.is_error]


def at_file(
    diagnostics: Iterator[Diagnostic], file: str | os.PathLike[str], prefix: PathParts = (), line: int | None = None
) -> list[Diagnostic]:
    """Place diagnostics of a value found at ``prefix`` in ``file`` (and ``line``)."""
    base = json_path(prefix)
    return [
        replace(d, path=base + d.path[1:], file=os.fspath(file), line=line if d.line is None else d.line)
        for d in diagnostics
    ]
