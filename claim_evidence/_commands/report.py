"""``claim-evidence report``: the state of a whole site's evidence on one page (HTML, JSON or CSV).

Collect, then report: :func:`collect_site` reads every registered page (and the correction
registry of ``[news]``) into a :class:`SiteReport` of claim rows; the renderers only lay it out.
The build date comes from :func:`._freshness.build_date` alone, so the same inputs and the same
``--today`` give the same bytes. Never a gate: findings are counted, not judged.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import astuple, dataclass, fields, replace
from datetime import date
from typing import Any

from .._check.documents import ARTICLE_KEY, BundleDocument, load_document
from .._check.page import check_text
from .._core.dates import is_valid_date
from .._core.diagnostics import ClaimEvidenceError, Diagnostic
from .._core.textio import read_text
from .._core.urls import safe_http_url
from .._record.freshness import DUE_SOON, EXPIRED, Freshness, build_date, build_date_only, due_state, review_due
from .._record.signature import signature_of
from .._record.vocabulary import BASES, LABELS, METHODS, STATUSES, VERIFIED_STATUSES, str_or_none
from .._render.templating import template_environment
from .._site.config import Config, registered_pages, site_path

REPORT_FORMATS = ("html", "json", "csv")
TEMPLATE = "site_report.html.j2"
FRESHNESS_STATES = ("fresh", "due soon", "expired", "no policy", "not reviewed")
# (label, lowest age, highest age); the last bucket is open-ended, "not reviewed" follows.
AGE_BUCKETS = (("0-30", 0, 30), ("31-90", 31, 90), ("91-180", 91, 180), ("181-365", 181, 365), (">365", 366, None))
NOT_REVIEWED = "not reviewed"
OTHER = "other"  # a status outside the vocabulary (an invalid record)
NONE = "none"  # no basis or method recorded
MOST_CITED = 10
_FRESHNESS_CODES = frozenset({EXPIRED, DUE_SOON})
PAGE_PREFIX = "SH"  # the page check's codes: how a page shows its records, not the records


@dataclass(frozen=True)
class ClaimRow:
    """One claim of the site, as the JSON rows and the CSV columns give it (this field order)."""

    page: str  # the page's path under the site root, or the registry article's URL
    claim_id: str
    label: str
    status: str
    basis: str
    evidence_label: str
    method: str
    checked_at: str | None
    age_days: int | None
    due: str | None
    freshness: str
    invalid: bool  # its record is invalid (a record finding: validation, policy, snapshots, CE406)
    # The codes of the page's own findings (SH: a stale slot, a marker not today's, a sentence that differs)
    # about this claim, then those about its whole page as ``page:CODE`` (a missing stylesheet, a stale
    # sources summary): the page needs work, the record does not.
    page_findings: tuple[str, ...]
    sources: int
    signer: str | None = None  # the principal of the review's signature (verified, unless the row is invalid)


ROW_FIELDS = tuple(f.name for f in fields(ClaimRow))


@dataclass(frozen=True)
class PageEntry:
    page: str
    claims: int
    codes: tuple[str, ...]  # every finding's code, sorted, once each
    errors: int
    warnings: int
    linked: bool  # a registered page (links go to PAGE#evidence-ID), not a registry article


@dataclass(frozen=True)
class CitedSource:
    url: str
    publisher: str
    title: str
    count: int  # claims citing it, over the whole site


@dataclass(frozen=True)
class SiteReport:
    build_date: str
    build_date_source: str
    lang: str
    policy: bool  # the config has [freshness]
    rows: tuple[ClaimRow, ...]
    sources: tuple[CitedSource, ...]
    pages: tuple[PageEntry, ...]

    def summary(self) -> dict[str, Any]:
        rows = self.rows
        return {
            "pages": len(self.pages),
            "claims": len(rows),
            "freshness_policy": self.policy,
            "by_status": _counts(rows, "status", (*STATUSES, OTHER)),
            "by_basis": _counts(rows, "basis", (*BASES, NONE)),
            "by_method": _counts(rows, "method", (*METHODS, NONE)),
            "review_age": _counts_of((age_bucket(r.age_days) for r in rows), BUCKET_NAMES),
            "freshness": _counts(rows, "freshness", FRESHNESS_STATES),
            "expired": [_ref(r) for r in rows if r.freshness == "expired"],
            "due_soon": [_ref(r) for r in rows if r.freshness == "due soon"],
            "unreviewed": [_ref(r) for r in rows if r.freshness == NOT_REVIEWED],
            "unsigned": [_ref(r) for r in rows if r.freshness != NOT_REVIEWED and r.signer is None],
            "invalid": [_ref(r) for r in rows if r.invalid],
            "page_findings": [{**_ref(r), "codes": list(r.page_findings)} for r in rows if r.page_findings],
            "most_cited": [_plain(s) for s in self.sources[:MOST_CITED]],
            "pages_with_findings": [{"page": p.page, "codes": list(p.codes)} for p in self.pages if p.codes],
        }

    def as_json(self) -> dict[str, Any]:
        return {
            "build_date": self.build_date,
            "build_date_source": self.build_date_source,
            "summary": self.summary(),
            "claims": [_plain(r) for r in self.rows],
            "sources": [_plain(s) for s in self.sources],
            "pages": [{k: v for k, v in _plain(p).items() if k != "linked"} for p in self.pages],
        }


BUCKET_NAMES = (*(b[0] for b in AGE_BUCKETS), NOT_REVIEWED)


def age_bucket(age: int | None) -> str:
    """The bucket of a review age in days (a review dated after the build date counts as 0-30)."""
    if age is None:
        return NOT_REVIEWED
    return next(name for name, _, high in AGE_BUCKETS if high is None or age <= high)


def _counts(rows: tuple[ClaimRow, ...], key: str, names: tuple[str, ...]) -> dict[str, int]:
    return _counts_of((getattr(r, key) for r in rows), names)


def _counts_of(values: Iterable[str], names: tuple[str, ...]) -> dict[str, int]:
    found = Counter(values)
    return {name: found[name] for name in names}


def _ref(row: ClaimRow) -> dict[str, Any]:
    return {"page": row.page, "claim_id": row.claim_id, "due": row.due}


def _plain(value: Any) -> dict[str, Any]:
    return {f.name: (list(v) if isinstance(v := getattr(value, f.name), tuple) else v) for f in fields(value)}


# --- collecting ---------------------------------------------------------------------


def collect_site(config: Config, today: str | None, environ: Mapping[str, str] | None = None) -> SiteReport:
    """Every claim of the registered pages and of the correction registry, aged to the build date."""
    day, source = build_date(today, environ)  # the one reading of the clock, when nothing names the date
    freshness = (
        replace(config.options.freshness, today=day, source=source)
        if config.options.freshness
        else build_date_only(day, source)
    )
    options = replace(config.options, freshness=freshness)
    built = date.fromisoformat(day)
    bundles: list[tuple[str, bool, Any, list[Diagnostic]]] = []
    for path in registered_pages(config):
        name = site_path(config.root, path) or str(path)
        try:
            page = check_text(read_text(path), str(path), options)
        except ClaimEvidenceError as exc:
            bundles.append((name, True, None, [getattr(exc, "diagnostic", Diagnostic("CE999", str(exc)))]))
            continue
        bundles.append((name, True, page.bundle, page.diagnostics))
    if config.news is not None:
        bundles.extend(_registry(config, freshness))
    rows: list[ClaimRow] = []
    pages: list[PageEntry] = []
    cited: dict[str, list[Any]] = {}
    for name, linked, bundle, diagnostics in bundles:
        claims = [c for c in _list(bundle, "claims") if isinstance(c, dict)]
        sources = {s["id"]: s for s in _list(bundle, "sources") if isinstance(s, dict) and isinstance(s.get("id"), str)}
        invalid = {d.subject for d in diagnostics if d.is_error and _about_record(d)}
        shown = [d for d in diagnostics if not _about_record(d) and d.code.startswith(PAGE_PREFIX)]
        for claim in claims:
            ids = _cited_ids(claim)
            subject = f"claim {claim.get('id')}"
            own = sorted({d.code for d in shown if d.subject == subject})
            on_page = (*own, *sorted({f"page:{d.code}" for d in shown if not d.subject.startswith("claim ")}))
            rows.append(_row(name, claim, len(ids), subject in invalid, on_page, freshness, built))
            for sid in sorted(ids & sources.keys()):
                s = sources[sid]
                url = str_or_none(s.get("url")) or ""
                entry = cited.setdefault(
                    url, [url, str_or_none(s.get("publisher")) or "", str_or_none(s.get("title")) or "", 0]
                )
                entry[3] += 1
        codes = tuple(sorted({d.code for d in diagnostics}))
        errors = sum(d.severity == "error" for d in diagnostics)
        warnings = sum(d.severity == "warning" for d in diagnostics)
        pages.append(PageEntry(name, len(claims), codes, errors, warnings, linked))
    ranked = sorted((CitedSource(*e) for e in cited.values()), key=lambda s: (-s.count, s.url, s.publisher, s.title))
    return SiteReport(day, source, config.options.lang, freshness.aging, tuple(rows), tuple(ranked), tuple(pages))


def _registry(config: Config, freshness: Freshness | None) -> Iterator[tuple[str, bool, Any, list[Diagnostic]]]:
    assert config.news is not None
    registry = config.root / config.news.corrections
    try:
        value = load_document(registry).value
    except ClaimEvidenceError as exc:
        yield config.news.corrections, False, None, [getattr(exc, "diagnostic", Diagnostic("CE999", str(exc)))]
        return
    for url, entry in value.items() if isinstance(value, dict) else ():
        if isinstance(entry, dict) and ARTICLE_KEY in entry:
            document = BundleDocument(str(registry), entry, [])
            found = document.diagnostics(config.options.policy, config.options.snapshots, freshness)
            yield url, False, entry[ARTICLE_KEY], found


def _list(bundle: Any, key: str) -> list[Any]:
    value = bundle.get(key) if isinstance(bundle, dict) else None
    return value if isinstance(value, list) else []


def _cited_ids(claim: dict[str, Any]) -> set[str]:
    return {
        r["source_id"]
        for r in _list(claim, "source_refs")
        if isinstance(r, dict) and isinstance(r.get("source_id"), str)
    }


def _about_record(d: Diagnostic) -> bool:
    """A finding about the record itself (its contract, the site's policy, snapshots, a review dated after
    the build), not about how a page shows it (SH: the page check) nor about its age (CE601/CE602: the
    freshness column says that)."""
    return not d.code.startswith(PAGE_PREFIX) and d.code not in _FRESHNESS_CODES


def _row(
    page: str,
    claim: dict[str, Any],
    sources: int,
    invalid: bool,
    page_findings: tuple[str, ...],
    freshness: Freshness | None,
    built: date,
) -> ClaimRow:
    verification = claim.get("verification") if isinstance(claim.get("verification"), dict) else {}
    assert isinstance(verification, dict)
    status = str_or_none(claim.get("status")) or OTHER
    checked = verification.get("checked_at") if is_valid_date(verification.get("checked_at")) else None
    reviewed = status in VERIFIED_STATUSES and isinstance(checked, str)
    age = (built - date.fromisoformat(checked)).days if reviewed and isinstance(checked, str) else None
    if age is not None and age < 0:
        age = None  # a review dated after the build (CE406, so the row is invalid) has no age to show
    due, state = _due(claim, verification, freshness, built) if reviewed else (None, NOT_REVIEWED)
    basis, method = str_or_none(claim.get("basis")), str_or_none(verification.get("method"))
    return ClaimRow(
        page,
        str_or_none(claim.get("id")) or "",
        str_or_none(claim.get("label")) or "",
        status if status in STATUSES else OTHER,
        basis if basis in BASES else NONE,
        str_or_none(claim.get("evidence_label")) or "",
        method if method in METHODS else NONE,
        checked,
        age,
        due,
        state,
        invalid,
        page_findings,
        sources,
        _signer(claim),
    )


def _signer(claim: dict[str, Any]) -> str | None:
    found = signature_of(claim)
    signer = found.get("signer") if found is not None else None
    return signer if isinstance(signer, str) else None


def _due(
    claim: dict[str, Any], verification: dict[str, Any], freshness: Freshness | None, built: date
) -> tuple[str | None, str]:
    """The due date and state, by the same rule as CE601/CE602: ``review_by``, else the basis's period."""
    if freshness is None or not freshness.aging:
        return None, "no policy"
    found = review_due(verification, claim.get("basis"), freshness)
    if found is None:
        return None, "no policy"
    due = found[0]
    return due.isoformat(), due_state(due, date.fromisoformat(verification["checked_at"]), built)


# --- reporting ----------------------------------------------------------------------


def render_json(report: SiteReport) -> bytes:
    return (json.dumps(report.as_json(), ensure_ascii=False, indent=2) + "\n").encode("utf-8")


def render_csv(report: SiteReport) -> bytes:
    """RFC 4180 rows a spreadsheet cannot be turned against: see :func:`csv_cell`."""
    lines = [",".join(ROW_FIELDS)]
    for row in report.rows:
        lines.append(",".join(csv_cell(" ".join(v) if isinstance(v, tuple) else v) for v in astuple(row)))
    return ("\n".join(lines) + "\n").encode("utf-8")


# A spreadsheet runs a cell that starts with one of these as a formula (OWASP, "CSV Injection").
_FORMULA_START = ("=", "+", "-", "@", "\t", "\r")
_NEEDS_QUOTES = re.compile(r'[,"\r\n]')


def csv_cell(value: object) -> str:
    """One CSV field. Text a record supplies (a label, an id, a page) that starts like a formula gets a
    leading ``'``, so ``=1+1`` stays text; any field holding a comma, quote, CR or LF is quoted.
    ``csv.QUOTE_MINIMAL`` leaves a lone CR unquoted when the line ends in LF, and a reader then
    splits the row there (a forged row could follow). Numbers and flags are the report's own: a
    negative age stays a number."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return str(value).lower()
    if not isinstance(value, str):
        return str(value)
    text = "'" + value if value.startswith(_FORMULA_START) else value
    return '"' + text.replace('"', '""') + '"' if _NEEDS_QUOTES.search(text) else text


def render_html(report: SiteReport, site_href: str = "") -> bytes:
    """One self-contained page; ``site_href`` leads from the report's folder to the site root ("" or ending in "/")."""
    lang = report.lang if report.lang in LABELS else "ja"
    summary = report.summary()
    text = TEXTS[lang]
    status_bars = [(LABELS[lang]["status"].get(s, text["other"]), n) for s, n in summary["by_status"].items()]
    age_bars = [
        (text["not_reviewed"] if b == NOT_REVIEWED else text["days"].format(b), n)
        for b, n in summary["review_age"].items()
    ]
    links = {p.page: p.linked for p in report.pages}

    def href(row: ClaimRow) -> str:
        if links.get(row.page):
            return f"{site_href}{row.page}#evidence-{row.claim_id}"
        url = safe_http_url(row.page)
        return f"{url}#evidence-{row.claim_id}" if url else ""

    context = {
        "r": report,
        "s": summary,
        "t": text,
        "lang": lang,
        "labels": LABELS[lang],
        "href": href,
        "states": {state: text["state_" + state.replace(" ", "_")] for state in FRESHNESS_STATES},
        "status_chart": _bars(status_bars),
        "age_chart": _columns(age_bars),
        "flagged": [r for r in report.rows if r.freshness in ("expired", "due soon")],
        "troubled": [r for r in report.rows if r.invalid or r.freshness == NOT_REVIEWED],
        "shown": [r for r in report.rows if r.page_findings],
        "safe_url": safe_http_url,
        "most_cited": report.sources[:MOST_CITED],
    }
    html = template_environment(None, compact=False).get_template(TEMPLATE).render(context)
    return html.encode("utf-8")


def _bars(items: list[tuple[str, int]]) -> dict[str, Any]:
    """A horizontal bar chart's geometry: label column, bar, the number after it."""
    top = max((n for _, n in items), default=0) or 1
    rows = [{"label": label, "n": n, "y": 8 + i * 30, "w": round(300 * n / top)} for i, (label, n) in enumerate(items)]
    return {"rows": rows, "height": 16 + 30 * len(items)}


def _columns(items: list[tuple[str, int]]) -> dict[str, Any]:
    """A histogram's geometry: one column per bucket, the number above, the bucket below."""
    top = max((n for _, n in items), default=0) or 1
    cols = [
        {"label": label, "n": n, "x": 20 + i * 100, "h": round(160 * n / top)} for i, (label, n) in enumerate(items)
    ]
    return {"cols": cols, "width": 40 + 100 * len(items)}


TEXTS: dict[str, dict[str, str]] = {
    "ja": {
        "title": "根拠記録の状況",
        "built": "ビルド日 {date}（{source} による）",
        "pages": "ページ",
        "claims": "主張",
        "expired": "期限切れ",
        "due_soon": "期限間近",
        "unreviewed": "未照合",
        "unsigned": "署名のない照合",
        "invalid": "記録に不整合",
        "page_findings": "ページ上の指摘",
        "status_title": "照合状態の内訳",
        "status_desc": "照合状態ごとの主張の数（横棒グラフ）",
        "age_title": "照合からの経過日数",
        "age_desc": "照合日からビルド日までの日数ごとの主張の数（ヒストグラム）",
        "days": "{} 日",
        "not_reviewed": "未照合",
        "other": "語彙外",
        "flagged": "期限切れ・期限間近の照合",
        "troubled": "不整合または未照合の記録",
        "shown": "ページ上の指摘がある主張（記録は有効: 表示の更新・スタイルシートなど）",
        "sources": "よく引用される出典",
        "all": "すべての主張",
        "findings": "指摘のあるページ",
        "none": "なし",
        "col_page": "ページ",
        "col_claim": "主張 ID",
        "col_label": "ラベル",
        "col_status": "照合状態",
        "col_basis": "根拠の種類",
        "col_kind": "情報区分",
        "col_method": "確認方法",
        "col_signer": "署名者",
        "col_checked": "照合日",
        "col_age": "経過日数",
        "col_due": "期限",
        "col_state": "鮮度",
        "col_invalid": "不整合",
        "col_page_findings": "ページの指摘",
        "col_sources": "出典数",
        "col_url": "URL",
        "col_publisher": "発行者",
        "col_title": "題名",
        "col_count": "引用数",
        "col_codes": "コード",
        "yes": "あり",
        "no": "なし",
        "policy_off": "[freshness] が設定されていないため、経過日数のみを示し、期限は判定しません。",
        "state_fresh": "有効",
        "state_due_soon": "期限間近",
        "state_expired": "期限切れ",
        "state_no_policy": "期限なし",
        "state_not_reviewed": "未照合",
    },
    "en": {
        "title": "Evidence records: site report",
        "built": "Build date {date} (from {source})",
        "pages": "pages",
        "claims": "claims",
        "expired": "expired",
        "due_soon": "due soon",
        "unreviewed": "not reviewed",
        "unsigned": "unsigned reviews",
        "invalid": "invalid records",
        "page_findings": "with page findings",
        "status_title": "Claims by review status",
        "status_desc": "Number of claims per review status (horizontal bar chart)",
        "age_title": "Review age",
        "age_desc": "Number of claims per days since review, counted to the build date (histogram)",
        "days": "{} days",
        "not_reviewed": "not reviewed",
        "other": "outside the vocabulary",
        "flagged": "Expired and due-soon reviews",
        "troubled": "Invalid or unreviewed records",
        "shown": "Claims with page findings (the record holds: a stale slot, a stylesheet, …)",
        "sources": "Most-cited sources",
        "all": "All claims",
        "findings": "Pages with findings",
        "none": "none",
        "col_page": "Page",
        "col_claim": "Claim ID",
        "col_label": "Label",
        "col_status": "Status",
        "col_basis": "Basis",
        "col_kind": "Information kind",
        "col_method": "Method",
        "col_signer": "Signed by",
        "col_checked": "Checked",
        "col_age": "Age (days)",
        "col_due": "Due",
        "col_state": "Freshness",
        "col_invalid": "Invalid",
        "col_page_findings": "Page findings",
        "col_sources": "Sources",
        "col_url": "URL",
        "col_publisher": "Publisher",
        "col_title": "Title",
        "col_count": "Claims citing",
        "col_codes": "Codes",
        "yes": "yes",
        "no": "no",
        "policy_off": "No [freshness] table: ages are shown, and no review is judged expired.",
        "state_fresh": "fresh",
        "state_due_soon": "due soon",
        "state_expired": "expired",
        "state_no_policy": "no policy",
        "state_not_reviewed": "not reviewed",
    },
}
