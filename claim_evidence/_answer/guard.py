"""The answer guard: deterministic code between a model's reply and a reader.

A model can be asked to cite, hedge and stay short; it cannot be trusted to. So every rule a
reader relies on is enforced here, over two inputs only — the model's text and the chunks
retrieved for the question — and never by asking the model again (SCHEMA.md "Answer guard"):

- the reply must be one JSON object of fixed keys, within fixed limits;
- the answer's state is at most ESTIMATE, and never stronger than the material retrieved;
- an item's FACT or CONFIRMED tag stands only over a chunk carrying that state;
- every URL is one of the retrieved chunks', every number is in a retrieved chunk by value
  (``_record.numerals``: 300億 is not 30億), and no banned phrase is used.

Text inside a chunk is data here, never an instruction: nothing a chunk says can change what
the guard does. The guard proves these rules only — not that the model's answer is true.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from .._core.diagnostics import Diagnostic, json_path
from .._core.normalize import folded_phrase
from .._core.urls import safe_http_url
from .._record.numerals import find_numbers
from .config import DEFAULT_BANNED, STATE_RANK, STATES, UNVERIFIED, state_or_none
from .mdchunks import URL
from .parse import parse_model_json
from .retrieve import bigrams
from .text import ELLIPSIS, URL_END, banned_pattern, clean, cut_text, show, site_link, split_tag, without_urls

MAX_ANSWER_CHARS = 200
MAX_CONFIRMED = 4
MAX_UNKNOWN = 3
MAX_ITEM_CHARS = 100  # the tag included
MAX_SOURCES = 4
MAX_TOTAL_CHARS = 1200  # answer + items + each source's title and URL
GROUNDING_PERCENT = 50  # of an item's distinct bigrams (its tag removed) shared with one retrieved chunk
ANSWER_STATES = ("ESTIMATE", "HYPOTHESIS", "UNVERIFIED")
MODEL_KEYS = ("answer", "confirmed", "unknown", "state", "sources", "refused")
TEXTS: dict[str, dict[str, str]] = {
    "ja": {
        "failed": "確認済みの回答を作成できませんでした。",
        "cannot_confirm": "この資料からは確認できません。",
        "refused": "この質問には、このサイトの資料からはお答えできません。",
        "confirmed": "確認できたこと",
        "unknown": "わからないこと",
        "sources": "出典",
    },
    "en": {
        "failed": "Could not produce a checked answer.",
        "cannot_confirm": "This cannot be confirmed from this material.",
        "refused": "This question cannot be answered from this site's material.",
        "confirmed": "Confirmed",
        "unknown": "Not known",
        "sources": "Sources",
    },
}


@dataclass(frozen=True)
class GuardedAnswer:
    """What a reader may be shown: the checked answer, and every change the guard made, as findings.

    ``sources`` are ``{"title", "url"}`` dicts whose titles come from the knowledge base, never
    from the model. ``findings`` are :class:`Diagnostic` values (code, message, JSON path into
    the model's object); ``to_dict`` gives the JSON form with fixed keys.
    """

    answer: str
    confirmed: tuple[str, ...] = ()
    unknown: tuple[str, ...] = ()
    state: str = UNVERIFIED
    sources: tuple[dict[str, str], ...] = ()
    refused: bool = False
    findings: tuple[Diagnostic, ...] = ()
    lang: str = "ja"

    @property
    def codes(self) -> tuple[str, ...]:
        return tuple(d.code for d in self.findings)

    def to_dict(self) -> dict[str, Any]:
        return {
            "answer": self.answer,
            "confirmed": list(self.confirmed),
            "unknown": list(self.unknown),
            "state": self.state,
            "sources": [{"title": s["title"], "url": s["url"]} for s in self.sources],
            "refused": self.refused,
            "findings": [{"code": d.code, "message": d.message, "path": d.path} for d in self.findings],
            "lang": self.lang,
        }


@dataclass
class _Material:
    """What the retrieved chunks allow: link URLs with their titles, number values, and each chunk's bigrams."""

    urls: dict[str, str] = field(default_factory=dict)
    numbers: set[str] = field(default_factory=set)
    chunks: list[tuple[str, str, frozenset[str]]] = field(default_factory=list)  # (id, state, bigrams)

    @classmethod
    def of(cls, retrieved: Sequence[Any]) -> _Material:
        material = cls()
        for raw in retrieved if isinstance(retrieved, Sequence) else ():
            chunk = raw.as_dict() if hasattr(raw, "as_dict") else raw
            if not isinstance(chunk, Mapping):
                continue
            cid, title, text = (_str(chunk.get(k)) for k in ("id", "title", "text"))
            state = state_or_none(chunk.get("state")) or UNVERIFIED
            material.chunks.append((cid, state, bigrams(text)))
            if link := site_link(chunk.get("url")):
                material.urls.setdefault(link, title or link)
            known = [title, text]
            sources = chunk.get("sources")
            for source in sources if isinstance(sources, list) else ():
                if isinstance(source, Mapping) and (url := safe_http_url(source.get("url"))):
                    name = _str(source.get("title")) or _str(source.get("publisher")) or url
                    material.urls.setdefault(url, name)
                    known += [_str(source.get("title")), _str(source.get("publisher"))]
            material.numbers.update(n.value for piece in known for n in find_numbers(without_urls(piece)))
        return material

    @property
    def strongest(self) -> int:
        return max((STATE_RANK[state] for _, state, _ in self.chunks), default=0)

    def closest(self, text: str) -> tuple[str, str, int, int] | None:
        """``(chunk id, state, shared, total)`` for the chunk sharing most bigrams with ``text`` (first on ties)."""
        grams = bigrams(text)
        if not grams or not self.chunks:
            return None
        shared, position = max((len(grams & g), -i) for i, (_, _, g) in enumerate(self.chunks))
        cid, state, _ = self.chunks[-position]
        return cid, state, shared, len(grams)


def guard_answer(
    model_text: str,
    retrieved_chunks: Sequence[Mapping[str, Any] | Any],
    *,
    lang: str = "ja",
    banned: Sequence[str] | None = None,
) -> GuardedAnswer:
    """Check a model's reply against the retrieved chunks; never raises, whatever either holds."""
    lang = lang if isinstance(lang, str) and lang in TEXTS else "ja"
    phrases = (banned,) if isinstance(banned, str) else DEFAULT_BANNED if banned is None else banned
    parsed = parse_model_json(model_text)
    if parsed.value is None:
        return GuardedAnswer(
            TEXTS[lang]["failed"], lang=lang, findings=(_finding("CE710", f"{parsed.error}: no checked answer"),)
        )
    run = _Run(
        parsed.value,
        _Material.of(retrieved_chunks),
        banned_pattern(tuple(p for p in phrases if isinstance(p, str))),
        lang,
    )
    if parsed.note:
        run.note("CE711", parsed.note)
    return run.result()


class _Run:
    """One reply being checked: the findings so far, and whether the answer must drop to UNVERIFIED."""

    def __init__(self, value: dict[str, Any], material: _Material, banned: re.Pattern[str] | None, lang: str) -> None:
        self.value, self.material, self.banned, self.lang = value, material, banned, lang
        self.findings: list[Diagnostic] = []
        self.unverified = False

    def note(self, code: str, message: str, path: str = "$") -> None:
        self.findings.append(_finding(code, message, path))

    def result(self) -> GuardedAnswer:
        for key in self.value:
            if key not in MODEL_KEYS:
                self.note(
                    "CE713",
                    f"unknown key {show(key)} ignored (the keys are {', '.join(MODEL_KEYS)})",
                    json_path((key,)),
                )
        for key in MODEL_KEYS:
            if key not in self.value:
                self.note("CE712", f"{key} is missing", f"$.{key}")
        refused = self.value.get("refused", False)
        if not isinstance(refused, bool):
            self.note("CE712", f"refused must be true or false (found {show(refused)}); taken as false", "$.refused")
            refused = False
        state = self._state()
        if refused:
            answer = self._text(TEXTS[self.lang]["refused"], TEXTS[self.lang]["refused"])
            dropped = sum(
                len(v) for k in ("confirmed", "unknown", "sources") if isinstance(v := self.value.get(k), list)
            )
            if dropped:
                self.note("CE750", f"a refused answer carries no items or sources: {dropped} dropped")
            confirmed: list[str] = []
            unknown: list[str] = []
            sources: list[dict[str, str]] = []
        else:
            answer = self._text(TEXTS[self.lang]["cannot_confirm"], None)
            confirmed, unknown = self._items("confirmed", MAX_CONFIRMED), self._items("unknown", MAX_UNKNOWN)
            sources = self._sources()
        self._total(answer, confirmed, unknown, sources)
        final = UNVERIFIED if refused or self.unverified else state
        return GuardedAnswer(
            answer, tuple(confirmed), tuple(unknown), final, tuple(sources), refused, tuple(self.findings), self.lang
        )

    def _state(self) -> str:
        if "state" not in self.value:
            return UNVERIFIED
        raw = self.value["state"]
        state = raw.strip().upper() if isinstance(raw, str) else None
        if state not in ANSWER_STATES:
            self.note(
                "CE730", f"state {show(raw)} is not one of {', '.join(ANSWER_STATES)}: set to UNVERIFIED", "$.state"
            )
            return UNVERIFIED
        assert state is not None
        if STATE_RANK[state] > self.material.strongest:
            strongest = next(s for s in STATES if STATE_RANK[s] == self.material.strongest)
            self.note(
                "CE733",
                f"state {state} is stronger than every retrieved chunk (strongest: {strongest}): set to UNVERIFIED",
                "$.state",
            )
            return UNVERIFIED
        return state

    def _text(self, replacement: str, empty: str | None) -> str:
        """The answer (or a refusal's message): cleaned, cut, checked; replaced by fixed text when it fails."""
        raw = self.value.get("answer")
        if "answer" in self.value and not isinstance(raw, str):
            self.note("CE712", f"answer must be a string (found {show(raw)}); replaced", "$.answer")
        text = clean(raw) if isinstance(raw, str) else ""
        if not text:
            if empty is None and isinstance(raw, str):
                self.note("CE712", "answer is empty; replaced", "$.answer")
            self.unverified = self.unverified or empty is None
            return empty or replacement
        cut = cut_text(text, MAX_ANSWER_CHARS)
        if cut != text:
            self.note(
                "CE720", f"answer is {len(text)} characters, over the limit of {MAX_ANSWER_CHARS}: cut", "$.answer"
            )
        problems = self._problems(cut)
        for code, message in problems:
            self.note(code, f"{message}; answer replaced", "$.answer")
        if problems:
            self.unverified = True
            return replacement
        return cut

    def _items(self, name: str, limit: int) -> list[str]:
        raw = self.value.get(name, [])
        if not isinstance(raw, list):
            self.note("CE712", f"{name} must be a list of strings (found {show(raw)}); taken as empty", f"$.{name}")
            return []
        if len(raw) > limit:
            self.note(
                "CE721",
                f"{name} has {len(raw)} items, over the limit of {limit}: the items after the first {limit} dropped",
                f"$.{name}",
            )
        out = []
        for i, item in enumerate(raw[:limit]):
            checked = self._item(item, f"$.{name}[{i}]")
            if checked is not None:
                out.append(checked)
        return out

    def _item(self, item: Any, path: str) -> str | None:
        if not isinstance(item, str):
            self.note("CE712", f"an item must be a string (found {show(item)}); dropped", path)
            return None
        cleaned = clean(item)
        tag, body, problem = split_tag(cleaned)
        if cleaned and problem:
            self.note("CE731", problem, path)
        if not body:
            self.note("CE712", "item is empty; dropped", path)
            return None
        text = cut_text(f"[{tag}] {body}", MAX_ITEM_CHARS)
        if tag != UNVERIFIED:
            closest = self.material.closest(_body(text, tag))
            if not _tag_stands(tag, closest):
                self.note("CE732", f"tag [{tag}] is not grounded: {_grounding(closest)}; changed to [UNVERIFIED]", path)
                tag = UNVERIFIED
                text = cut_text(f"[{tag}] {body}", MAX_ITEM_CHARS)
        if text != f"[{tag}] {body}":
            if not _body(text, tag):
                self.note(
                    "CE722",
                    f"item is {len(tag) + 3 + len(body)} characters and cannot be cut within {MAX_ITEM_CHARS}; dropped",
                    path,
                )
                return None
            self.note(
                "CE722", f"item is {len(tag) + 3 + len(body)} characters, over the limit of {MAX_ITEM_CHARS}: cut", path
            )
        problems = self._problems(text[len(tag) + 2 :])
        for code, message in problems:
            self.note(code, f"{message}; item removed", path)
        if problems:
            self.unverified = True
            return None
        return text

    def _sources(self) -> list[dict[str, str]]:
        raw = self.value.get("sources", [])
        if not isinstance(raw, list):
            self.note("CE712", f"sources must be a list of URLs (found {show(raw)}); taken as empty", "$.sources")
            return []
        if len(raw) > MAX_SOURCES:
            self.note(
                "CE723",
                f"sources has {len(raw)} entries, over the limit of {MAX_SOURCES}: the entries after the first {MAX_SOURCES} dropped",
                "$.sources",
            )
        out: list[dict[str, str]] = []
        for i, entry in enumerate(raw[:MAX_SOURCES]):
            url = entry.get("url") if isinstance(entry, dict) else entry
            if not isinstance(url, str):
                self.note(
                    "CE712",
                    f"a source must be a URL string or an object with a url (found {show(entry)}); dropped",
                    f"$.sources[{i}]",
                )
            elif url.strip() not in self.material.urls:
                self.note(
                    "CE740",
                    f"source {show(url.strip())} is not a safe URL of the retrieved chunks; dropped",
                    f"$.sources[{i}]",
                )
            elif all(s["url"] != url.strip() for s in out):
                out.append({"title": self.material.urls[url.strip()], "url": url.strip()})
        return out

    def _total(self, answer: str, confirmed: list[str], unknown: list[str], sources: list[dict[str, str]]) -> None:
        """Within MAX_TOTAL_CHARS: trailing sources go first, then unknown items, then confirmed ones."""

        def total() -> int:
            return (
                len(answer) + sum(map(len, confirmed + unknown)) + sum(len(s["title"]) + len(s["url"]) for s in sources)
            )

        before, dropped = total(), 0
        while total() > MAX_TOTAL_CHARS and (sources or unknown or confirmed):
            if sources:
                sources.pop()
            else:
                (unknown or confirmed).pop()
            dropped += 1
        if dropped:
            self.note(
                "CE724",
                f"the answer is {before} characters in all, over the limit of {MAX_TOTAL_CHARS}: {dropped} trailing entries dropped",
            )

    def _problems(self, text: str) -> list[tuple[str, str]]:
        """Why ``text`` may not be shown: URLs and numbers the material lacks, banned phrases (in that order)."""
        found = []
        for match in URL.finditer(text):
            url = match.group().rstrip(URL_END)
            if url not in self.material.urls:
                found.append(("CE741", f"URL {show(url)} is not in the retrieved material"))
        for number in find_numbers(without_urls(text)):
            if number.value not in self.material.numbers:
                found.append(("CE742", f"number {show(number.text)} (value {number.value}) is in no retrieved chunk"))
        if self.banned is not None:
            folded = folded_phrase(text)
            for match in self.banned.finditer(folded):
                found.append(("CE743", f"banned phrase {show(match.group())}"))
        return found


def _tag_stands(tag: str, closest: tuple[str, str, int, int] | None) -> bool:
    """FACT and CONFIRMED need a grounded chunk in that very state; ESTIMATE and HYPOTHESIS one at least as strong."""
    if closest is None:
        return False
    _, state, shared, total = closest
    if shared * 100 < total * GROUNDING_PERCENT:
        return False
    return state == tag if tag in ("FACT", "CONFIRMED") else STATE_RANK[state] >= STATE_RANK[tag]


def _grounding(closest: tuple[str, str, int, int] | None) -> str:
    if closest is None:
        return "no retrieved chunk to ground it in"
    cid, state, shared, total = closest
    return f"the closest retrieved chunk {show(cid)} ({state}) shares {shared} of its {total} bigrams"


def _body(text: str, tag: str) -> str:
    body = text[len(tag) + 3 :]
    return body[: -len(ELLIPSIS)].rstrip() if body.endswith(ELLIPSIS) else body


def _str(value: Any) -> str:
    return value if isinstance(value, str) else ""


def _finding(code: str, message: str, path: str = "$") -> Diagnostic:
    return Diagnostic(code, message, path, "warning", "answer")
