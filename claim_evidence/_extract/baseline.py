"""A rule-based extractor (``--model baseline``): deterministic, offline, and honest about its limits.

It exists so the commands have a job without an API key, and so a model's score has something to be
compared with. It reads the request with a handful of patterns — action words, ``X-123`` references,
``NUMBER UNIT`` pairs with the product written before them, 単価 prices, 税込/税抜, explicit and
relative dates — and every number through the toolkit's one number reader
(:func:`claim_evidence._record.numerals.read_amount`). Where the patterns cannot decide, it reports an
issue (so ``needs_review``) rather than guessing. Its measured score per category is in the README.
"""

from __future__ import annotations

import re
import unicodedata
from datetime import date, timedelta
from typing import Any

from .contract import expected_status
from .normalize import AmbiguousNumber, split_quantity

__all__ = ["extract"]

_UNITS = "セット|ケース|ダース|パック|ロール|カートン|個|箱|本|枚|台|冊|巻|袋|缶|瓶|束|組|脚|着|足|点|部|つ"
_NUMBER = r"[0-9０-９][0-9０-９,，.．]*|[〇一二三四五六七八九十百千万]+"
_QUANTITY = re.compile(rf"(?P<number>{_NUMBER})\s?(?P<unit>{_UNITS})")
_BARE_QUANTITY = re.compile(r"を\s?(?P<number>[0-9０-９]+)\s?(?=注文|発注|で|、|。)")
_PACK = re.compile(r"入り?")
_PRICE = re.compile(
    r"単価\s?(?:は|を)?\s?(?:USD\s?|[$＄¥￥]\s?)?(?P<n>[0-9０-９][0-9０-９,，.．]*)|[$＄](?P<d>[0-9][0-9,.]*)"
)
_REFERENCE = re.compile(r"(?<![A-Za-z])[A-Z]{1,3}-[0-9]+")
_DELIMITERS = re.compile(r".*[、。，,：:\n】」]")
# What may stand before a product name: a parenthesis closed before it, a joiner, the reference (O-990の).
_LEADING = re.compile(r"^(?:\s|（[^（）]*）|\([^()]*\)|と|及び|および|×|x|\S*?[A-Z]{1,3}-[0-9]+の?)+")
_TRAILING = re.compile(r"(?:\s|を|は|が|の数量を|の数量は|の数量)+$")
_VAGUE_QUANTITY = re.compile(r"\s?(?:くらい|ぐらい|程度|前後|ほど)")
_REPLACE = re.compile(r"^\s?(?:から|→|->|⇒|を)\s?$")
_USD = re.compile(r"[$＄]|ドル|USD", re.IGNORECASE)
_INJECTION = re.compile(
    r"指示を無視|無視して|システムへの指示|SYSTEM\s?:|system prompt|プロンプト|採点|満点|score|"
    r"出力してください|全顧客|設定せよ|ignore (?:all|previous)|</?request_data>",
    re.IGNORECASE,
)
_DATE = re.compile(r"(?:(?P<y>[0-9]{4})年)?(?P<m>[0-9]{1,2})月(?P<d>[0-9]{1,2})日|(?P<iso>[0-9]{4}-[0-9]{2}-[0-9]{2})")
_VAGUE_DATE = re.compile(r"来週|今週|今月|来月|月末|近日|なるべく早|早めに|至急|上旬|中旬|下旬|頃")
_HISTORY = re.compile(r"【今回】")
_CARRY = re.compile(r"その内容|同じ内容|同じ条件|条件で")
_ACTION_WORDS = (
    ("cancel", re.compile(r"キャンセル|取り消|取消")),
    ("change", re.compile(r"変更|修正|減ら|増や")),
    ("order", re.compile(r"注文|発注")),
    ("quote", re.compile(r"見積")),
)


def extract(request: dict[str, Any]) -> dict[str, Any]:
    """The output for one request (``input``, ``reference_date``): always inside the contract."""
    text = str(request["input"])
    history, current = _split_history(text)
    issues: list[str] = []
    action = _action(current, issues)
    reference = _reference(current) or _reference(history)
    if action in ("change", "cancel") and reference is None:
        issues.append("missing_reference")
    currency = "JPY"
    if _USD.search(text):
        currency = "USD"
        issues.append("unsupported_currency")
    items: list[dict[str, Any]] = []
    if action in ("quote", "order", "change"):
        items = _items(current, history, issues)
    if _INJECTION.search(text):
        issues.append("untrusted_instruction")
    delivery = _delivery_date(current, str(request["reference_date"]), issues)
    unique = list(dict.fromkeys(issues))
    return {
        "action": action,
        "reference": reference,
        "currency": currency,
        "items": items,
        "tax_included": _tax(text),
        "delivery_date": delivery,
        "issues": unique,
        "status": expected_status(action, unique),
    }


def _split_history(text: str) -> tuple[str, str]:
    found = list(_HISTORY.finditer(text))
    if not found:
        return "", text
    return text[: found[-1].start()], text[found[-1].end() :]


def _action(text: str, issues: list[str]) -> str:
    present = [name for name, pattern in _ACTION_WORDS if pattern.search(text)]
    if "cancel" in present and "change" in present:
        issues.append("conflicting_action")
        return "unknown"
    if not present:
        issues.append("unknown_request")
        return "unknown"
    return present[0]


def _reference(text: str) -> str | None:
    found = _REFERENCE.search(text)
    return found.group() if found else None


def _items(current: str, history: str, issues: list[str]) -> list[dict[str, Any]]:
    earlier = _parse_items(history, [])
    items = _parse_items(current, issues, earlier)
    if not items and earlier and _CARRY.search(current):
        return earlier
    if not items and "減ら" in current:
        issues.append("insufficient_context")
    if not items and not any(i in issues for i in ("insufficient_context",)):
        items = _without_quantity(current, issues)
    return items


def _parse_items(text: str, issues: list[str], earlier: list[dict[str, Any]] | None = None) -> list[dict[str, Any]]:
    items: list[dict[str, Any]] = []
    pending: str | None = None  # the product before a pack size (4本入り): the quantity follows
    last_end = 0
    matches = list(_QUANTITY.finditer(text))
    for index, match in enumerate(matches):
        between = text[last_end : match.start()]
        product = _product(between)
        after = text[match.end() :]
        if _PACK.match(after):
            pending = product or pending
            last_end = match.end() + _PACK.match(after).end()  # type: ignore[union-attr]
            continue
        quantity, unit = _quantity(match, after, issues)
        next_start = matches[index + 1].start() if index + 1 < len(matches) else len(text)
        price = _price(text[match.end() : next_start])
        last_end = match.end()
        if pending is not None and not product:
            product, pending = pending, None
        if items and _REPLACE.match(between):  # 20箱から30箱: the new quantity of the same product
            items[-1]["quantity"] = quantity
            continue
        if not product or product.startswith("数量"):
            if earlier and "減ら" not in after[:8]:
                base = next((dict(i) for i in earlier if i["unit"] == unit), dict(earlier[0]))
                base["quantity"] = quantity
                items.append(base)
            continue
        if "減ら" in after[:8]:
            items.extend(_decrease(product, quantity, unit, earlier or [], issues))
            continue
        same = next((i for i in items if i["product"] == product), None)
        if same is not None:
            if same["quantity"] != quantity:
                same["quantity"] = None
                issues.append("conflicting_quantity")
            continue
        items.append({"product": product, "quantity": quantity, "unit": unit, "unit_price": price})
    if not items:
        bare = _BARE_QUANTITY.search(text)
        if bare is not None:
            product = _product(text[: bare.start()])
            if product:
                issues.append("ambiguous_unit")
                items.append(
                    {"product": product, "quantity": _decimal(bare.group("number")), "unit": None, "unit_price": None}
                )
    return items


def _product(before: str) -> str:
    cut = _DELIMITERS.match(before)
    product = before[cut.end() :] if cut else before
    product = _LEADING.sub("", product)
    return _TRAILING.sub("", product)


def _quantity(match: re.Match[str], after: str, issues: list[str]) -> tuple[str | None, str]:
    unit = match.group("unit")
    if _VAGUE_QUANTITY.match(after):
        issues.append("ambiguous_quantity")
        return None, unit
    try:
        value, _ = split_quantity(match.group("number"))
    except AmbiguousNumber:
        issues.append("ambiguous_quantity")
        return None, unit
    return value, unit


def _decrease(
    product: str, quantity: str | None, unit: str, earlier: list[dict[str, Any]], issues: list[str]
) -> list[dict[str, Any]]:
    original = next((i for i in earlier if i["product"] == product and i["unit"] == unit), None)
    if original is None or original["quantity"] is None or quantity is None:
        issues.append("insufficient_context")
        return []
    from decimal import Decimal

    left = Decimal(original["quantity"]) - Decimal(quantity)
    if left < 0:
        issues.append("conflicting_quantity")
        return []
    return [{**original, "quantity": _decimal(str(left))}]


def _price(text: str) -> str | None:
    found = _PRICE.search(text)
    if found is None:
        return None
    return _decimal(found.group("n") or found.group("d"))


def _decimal(written: str) -> str | None:
    try:
        value, unit = split_quantity(written)
    except AmbiguousNumber:
        return None
    return value if not unit else None


def _without_quantity(text: str, issues: list[str]) -> list[dict[str, Any]]:
    found = re.search(r"([^\s、。：:]+?)を(?:注文|発注)", text)
    if found is None:
        return []
    issues.append("missing_quantity")
    return [{"product": found.group(1), "quantity": None, "unit": None, "unit_price": None}]


def _tax(text: str) -> bool | None:
    included = re.search(r"税込|込み", text) is not None
    excluded = re.search(r"税抜|税別|抜き", text) is not None
    if included == excluded:
        return None
    return included


def _delivery_date(text: str, reference_date: str, issues: list[str]) -> str | None:
    plain = unicodedata.normalize("NFKC", text)
    today = date.fromisoformat(reference_date)
    found: list[date] = []
    for match in _DATE.finditer(plain):
        try:
            if match.group("iso"):
                found.append(date.fromisoformat(match.group("iso")))
            else:
                year = int(match.group("y") or today.year)
                found.append(date(year, int(match.group("m")), int(match.group("d"))))
        except ValueError:
            issues.append("ambiguous_date")
            return None
    if "明後日" in plain:
        found.append(today + timedelta(days=2))
    elif "明日" in plain:
        found.append(today + timedelta(days=1))
    distinct = sorted(set(found))
    if len(distinct) > 1:
        issues.append("conflicting_date")
        return None
    if _VAGUE_DATE.search(plain):
        issues.append("ambiguous_date")
        return None
    return distinct[0].isoformat() if distinct else None
