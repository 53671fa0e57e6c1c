"""The closed vocabularies of bundle v1 and their display labels per locale.

The keys are contract (they are stored in sealed bundles); the labels are
presentation and may be overridden by a site's templates.
"""

from __future__ import annotations

import re
from typing import Final

BASES: Final = (
    "official_spec",
    "vendor_claim",
    "independent_measurement",
    "reporting",
    "operator_measurement",
    "editorial",
)
STATUSES: Final = ("matched", "partial", "unverified", "conflict")
METHODS: Final = ("ai_document_review", "human_document_review", "operator_test")
EVIDENCE_LABELS: Final = (
    "",
    "Fact",
    "Fact-A",
    "Fact-B",
    "Fact-C",
    "Claim",
    "Opinion",
    "Forecast",
    "Opinion / Forecast",
    "Opinion/Forecast",
    "Rumor",
    "Curated",
)
# Statuses that assert a review took place; they need sources and a record.
VERIFIED_STATUSES: Final = frozenset({"matched", "partial", "conflict"})
# Statuses that say the sources support the statement: its numbers must then be in the quotes.
SUPPORTING_STATUSES: Final = frozenset({"matched", "partial"})

ID_RE: Final = re.compile(r"[A-Za-z][A-Za-z0-9_-]{0,99}")
FINGERPRINT_RE: Final = re.compile(r"[0-9a-f]{64}")

LABELS: Final[dict[str, dict[str, dict[str, str]]]] = {
    "ja": {
        "basis": {
            "official_spec": "公式仕様・公式発表",
            "vendor_claim": "ベンダー公称値",
            "independent_measurement": "第三者の測定",
            "reporting": "報道",
            "operator_measurement": "運営者による実測",
            "editorial": "編集者の見解・推奨",
        },
        "status": {
            "matched": "資料との照合済み",
            "partial": "一部のみ裏付けあり",
            "unverified": "未確認・根拠未登録",
            "conflict": "資料間に不一致あり",
        },
        "method": {
            "ai_document_review": "AIによる資料照合",
            "human_document_review": "人による資料照合",
            "operator_test": "運営者の実測記録",
        },
    },
    "en": {
        "basis": {
            "official_spec": "Official specification or announcement",
            "vendor_claim": "Vendor's stated figure",
            "independent_measurement": "Third-party measurement",
            "reporting": "News reporting",
            "operator_measurement": "Measured by the site operator",
            "editorial": "Editorial view or recommendation",
        },
        "status": {
            "matched": "Matched against sources",
            "partial": "Partly supported",
            "unverified": "Unverified / no basis recorded",
            "conflict": "Sources disagree",
        },
        "method": {
            "ai_document_review": "AI review of documents",
            "human_document_review": "Human review of documents",
            "operator_test": "Operator's test record",
        },
    },
}
LOCALES: Final = tuple(LABELS)


def str_or_none(value: object) -> str | None:
    """``value`` if it is a string, else None: for lookups in sets and dicts of contract words, which
    must not assume that a JSON value the schema has not vouched for is hashable (``[]``, ``{}``)."""
    return value if isinstance(value, str) else None


def is_valid_id(value: object) -> bool:
    return isinstance(value, str) and ID_RE.fullmatch(value) is not None


# Fixed phrases of the evidence block, per locale. Keys are used by the templates.
TEXT: Final[dict[str, dict[str, str]]] = {
    "ja": {
        "default_label": "この主張",
        "basis_missing": "根拠の種類未登録",
        "checked": "照合",
        "checked_missing": "照合日未記録",
        "signed_by": "・署名: ",
        "method_missing": "確認方法未記録",
        "invalid_warning": "本文・条件または根拠記録に不整合があるため、照合状態を再確認してください。",
        "malformed_warning": "根拠情報の形式を再確認してください（未確認）。",
        "mismatch_warning": "ページ上の文と根拠記録が一致しないため、照合状態を表示していません（未確認）。",
        "limits": "適用・制限: ",
        "summary_suffix": "の出典と照合範囲",
        "statement": "照合対象: ",
        "evidence_label": "情報区分: ",
        "evidence_label_missing": "未登録",
        "url_unchecked": "（URL要確認）",
        "section": "該当箇所: ",
        "supports": "。裏付ける内容: ",
        "published": " / 出典公開日 ",
        "published_missing": " / 出典公開日未記録",
        "archive": "アーカイブ",
        "quote": "引用「",
        "quote_close": "」",
        "no_sources": "対応する出典情報は未登録です。未登録は虚偽の判定ではありません。",
        "as_of": "対象時点: ",
        "as_of_missing": "未記録",
        "note": "照合範囲: ",
        "caveat": "この表示は資料と主張の対応状況を示します。全環境での動作や独立した実証を保証しません。",
        "open": "（",
        "close": "）",
        # Freshness markers (see _render/markers.py): "[tag] checked DATE · state", built from these.
        "marker_permanent": "常設",
        "marker_period": "{days}日",
        "marker_period_one": "{days}日",
        "marker_review_by": "期日指定",
        "marker_checked": "照合 {date}",
        "marker_fresh": "次回確認 {due}まで",
        "marker_due_soon": "まもなく再確認（{due}まで）",
        "marker_expired": "⚠ 古い: 再確認が必要（期限 {due}）",
        "summary_title": "このページが依拠する資料",
        "summary_relied": "根拠にしている主張: ",
        "summary_separator": "、",
        "summary_reviewed": "最新の照合: ",
        "summary_not_reviewed": "照合記録なし（未確認）",
        "summary_none": "このページの主張に対応する出典情報は未登録です。",
        "summary_caveat": "このページの主張が引用している資料の一覧です。資料そのものの正しさを保証するものではありません。",
    },
    "en": {
        "default_label": "This claim",
        "basis_missing": "Basis not recorded",
        "checked": "Checked",
        "checked_missing": "Check date not recorded",
        "signed_by": ", signed by ",
        "method_missing": "review method not recorded",
        "invalid_warning": "The text, conditions or evidence record are inconsistent; re-check the review status.",
        "malformed_warning": "The evidence data is malformed; re-check it (unverified).",
        "mismatch_warning": "The sentence on this page and its evidence record disagree, so no review status is shown (unverified).",
        "limits": "Scope and limits: ",
        "summary_suffix": ": sources and scope of the check",
        "statement": "Statement checked: ",
        "evidence_label": "Information kind: ",
        "evidence_label_missing": "not recorded",
        "url_unchecked": " (URL needs checking)",
        "section": "Section: ",
        "supports": ". Supports: ",
        "published": " / published ",
        "published_missing": " / publication date not recorded",
        "archive": "archived copy",
        "quote": 'Quote "',
        "quote_close": '"',
        "no_sources": "No corresponding source is recorded. Not being recorded is not a finding of falsehood.",
        "as_of": "As of: ",
        "as_of_missing": "not recorded",
        "note": "Scope of the check: ",
        "caveat": "This shows how the claim corresponds to its sources. It does not prove the claim true everywhere or constitute independent verification.",
        "open": " (",
        "close": ")",
        "marker_permanent": "permanent",
        "marker_period": "{days} days",
        "marker_period_one": "{days} day",
        "marker_review_by": "fixed date",
        "marker_checked": "checked {date}",
        "marker_fresh": "re-check by {due}",
        "marker_due_soon": "re-check soon (by {due})",
        "marker_expired": "⚠ outdated: needs re-checking (due {due})",
        "summary_title": "Sources this page relies on",
        "summary_relied": "Relied on by: ",
        "summary_separator": ", ",
        "summary_reviewed": "Latest review: ",
        "summary_not_reviewed": "no review recorded (unverified)",
        "summary_none": "No source is recorded for the claims on this page.",
        "summary_caveat": "This lists the sources the claims on this page cite. It does not vouch for the sources themselves.",
    },
}
