"""The answer guard: deterministic code between a model's reply and a reader.

A model can be asked to cite, hedge and stay short; it cannot be trusted to. So every rule a
reader relies on is enforced here, over two inputs only — the model's text and the chunks
retrieved for the question — and never by asking the model again (SCHEMA.md "Answer guard"):

- the reply must be one JSON object of fixed keys, within fixed limits;
- the answer's state is at most ESTIMATE, and never stronger than the chunks it is grounded in;
- an item's tag stands only over the chunk the item matches, in that state, holding its figures;
- every URL is one of the retrieved chunks', every figure is in a retrieved chunk by value and
  counter (``figures``: 300億 is not 30億, 22 倍 is not 22 日), and no banned phrase is used;
- an item or source that repeats an earlier one is dropped (CE725);
- no trading advice and no prediction (``advice``): either turns the reply into a refusal that
  keeps the grounded items.

Text inside a chunk is data here, never an instruction: nothing a chunk says can change what
the guard does. The guard proves these rules only — not that the model's answer is true.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from .._core.diagnostics import Diagnostic, json_path
from .._core.normalize import folded_phrase
from .advice import advice_hits
from .config import DEFAULT_BANNED, STATE_RANK, STATES, UNVERIFIED
from .figures import figures, grounded_by
from .material import GROUNDING_PERCENT as GROUNDING_PERCENT
from .material import Match, Material, MaterialChunk
from .mdchunks import URL
from .parse import parse_model_json
from .text import ELLIPSIS, URL_END, banned_pattern, clean, cut_text, show, split_tag

MAX_ANSWER_CHARS = 200
MAX_CONFIRMED = 4
MAX_UNKNOWN = 3
MAX_ITEM_CHARS = 100  # the tag included
MAX_SOURCES = 4
MAX_TOTAL_CHARS = 1200  # the returned six-field object as compact JSON (see returned_chars)
ANSWER_STATES = ("ESTIMATE", "HYPOTHESIS", "UNVERIFIED")
MODEL_KEYS = ("answer", "confirmed", "unknown", "state", "sources", "refused")
TEXTS: dict[str, dict[str, str]] = {
    "ja": {
        "failed": "確認済みの回答を作成できませんでした。",
        "cannot_confirm": "この資料からは確認できません。",
        "refused": "この質問には、このサイトの資料からはお答えできません。",
        "advice": "売買の助言や将来の予測はお答えできません。資料で確認できることとわからないことをお示しします。",
        "confirmed": "確認できたこと",
        "unknown": "わからないこと",
        "sources": "出典",
    },
    "en": {
        "failed": "Could not produce a checked answer.",
        "cannot_confirm": "This cannot be confirmed from this material.",
        "refused": "This question cannot be answered from this site's material.",
        "advice": "Trading advice and predictions cannot be given. Here is what the material confirms and what it does not.",
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
    the model's object); ``to_dict`` gives the JSON form with fixed keys. ``used_chunks`` are the ids
    of the chunks the answer and the kept items are grounded in, in first-use order (what a
    reader's "cited sources" are drawn from); ``to_dict`` leaves them out, so the endpoint's
    response keys stay as they are.
    """

    answer: str
    confirmed: tuple[str, ...] = ()
    unknown: tuple[str, ...] = ()
    state: str = UNVERIFIED
    sources: tuple[dict[str, str], ...] = ()
    refused: bool = False
    findings: tuple[Diagnostic, ...] = ()
    lang: str = "ja"
    used_chunks: tuple[str, ...] = ()

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


def guard_answer(
    model_text: str,
    retrieved_chunks: Sequence[Mapping[str, Any] | Any],
    *,
    lang: str = "ja",
    banned: Sequence[str] | None = None,
    advice: Sequence[str] = (),
    prediction: Sequence[str] = (),
) -> GuardedAnswer:
    """Check a model's reply against the retrieved chunks; never raises, whatever either holds.

    ``banned`` replaces the default phrases (``None``: the defaults); ``advice`` and ``prediction``
    are phrases added to the fixed advice and prediction checks, which cannot be turned off.
    """
    lang = lang if isinstance(lang, str) and lang in TEXTS else "ja"
    phrases = (banned,) if isinstance(banned, str) else DEFAULT_BANNED if banned is None else banned
    parsed = parse_model_json(model_text)
    if parsed.value is None:
        return GuardedAnswer(
            TEXTS[lang]["failed"], lang=lang, findings=(_finding("CE710", f"{parsed.error}: no checked answer"),)
        )
    run = _Run(
        parsed.value,
        Material.of(retrieved_chunks),
        banned_pattern(tuple(p for p in phrases if isinstance(p, str))),
        lang,
        (_strings(advice), _strings(prediction)),
    )
    if parsed.note:
        run.note("CE711", parsed.note)
    return run.result()


class _Run:
    """One reply being checked: the findings so far, whether the answer must drop to UNVERIFIED, whether
    it must become a refusal (advice or a prediction), and the chunks the kept text is grounded in."""

    def __init__(
        self,
        value: dict[str, Any],
        material: Material,
        banned: re.Pattern[str] | None,
        lang: str,
        extra: tuple[tuple[str, ...], tuple[str, ...]],
    ) -> None:
        self.value, self.material, self.banned, self.lang, self.extra = value, material, banned, lang, extra
        self.findings: list[Diagnostic] = []
        self.unverified = False
        self.advised = False
        self.answer_chunks: list[MaterialChunk] = []  # the chunks the kept answer is grounded in
        self.item_chunks: dict[str, list[list[MaterialChunk]]] = {}  # per kept item, in order
        self.item_bodies: dict[str, str] = {}  # the body of each kept item (confirmed, then unknown) → its path

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
        texts = TEXTS[self.lang]
        answer = (
            self._text(texts["refused"], texts["refused"]) if refused else self._text(texts["cannot_confirm"], None)
        )
        confirmed, unknown = self._items("confirmed", MAX_CONFIRMED), self._items("unknown", MAX_UNKNOWN)
        sources = self._sources()
        if self.advised:
            answer, refused = texts["advice"], True
            self.answer_chunks = []
        self._total(answer, confirmed, unknown, sources, refused)
        kept_confirmed = self.item_chunks.get("confirmed", [])[: len(confirmed)]  # _total drops from the end
        kept_unknown = self.item_chunks.get("unknown", [])[: len(unknown)]
        if not (refused or self.unverified):
            state = self._bounded(state, self.answer_chunks or [c for chunks in kept_confirmed for c in chunks])
        final = UNVERIFIED if refused or self.unverified else state
        used = _first_use(c.id for chunks in [self.answer_chunks, *kept_confirmed, *kept_unknown] for c in chunks)
        return GuardedAnswer(
            answer,
            tuple(confirmed),
            tuple(unknown),
            final,
            tuple(sources),
            refused,
            tuple(self.findings),
            self.lang,
            used,
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

    def _bounded(self, state: str, chunks: list[MaterialChunk]) -> str:
        """The state at most the weakest chunk the answer is grounded in — its own text's chunks, else (an
        answer that only introduces its items) those of the kept ``confirmed`` items; none: unchanged."""
        if not chunks:
            return state
        weakest = min(chunks, key=lambda c: STATE_RANK[c.state])
        if STATE_RANK[weakest.state] >= STATE_RANK[state]:
            return state
        self.note(
            "CE734",
            f"state {state} is stronger than the chunk {show(weakest.id)} ({weakest.state}) the answer is grounded in: set to {weakest.state}",
            "$.state",
        )
        return weakest.state

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
        if self._advice(cut, "$.answer", "the answer replaced by the refusal"):
            return replacement
        if problems:
            self.unverified = True
            return replacement
        if empty is None:
            self.answer_chunks = self.material.grounding(cut)
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
        out: list[str] = []
        self.item_chunks[name] = []
        for i, item in enumerate(raw[:limit]):
            path = f"$.{name}[{i}]"
            checked = self._item(item, path)
            if checked is None:
                continue
            body = checked[0].split("] ", 1)[1]
            if body in self.item_bodies:
                self.note("CE725", f"item repeats {self.item_bodies[body]}; dropped", path)
                continue
            self.item_bodies[body] = path
            out.append(checked[0])
            self.item_chunks[name].append(checked[1])
        return out

    def _item(self, item: Any, path: str) -> tuple[str, list[MaterialChunk]] | None:
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
            why = self._ungrounded(tag, _body(text, tag))
            if why:
                self.note("CE732", f"tag [{tag}] is not grounded: {why}; changed to [UNVERIFIED]", path)
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
        shown = text[len(tag) + 2 :]
        problems = self._problems(shown)
        for code, message in problems:
            self.note(code, f"{message}; item removed", path)
        if self._advice(shown, path, "item removed, the answer replaced by the refusal"):
            return None
        if problems:
            self.unverified = True
            return None
        return text, self.material.grounding(_body(text, tag))

    def _ungrounded(self, tag: str, body: str) -> str | None:
        """Why ``[tag] body`` may not keep its tag (None: it may): the chunk it matches must share half its
        bigrams, carry the tag (FACT, CONFIRMED) or one at least as strong, and hold each of its figures."""
        match = self.material.closest(body)
        if match is None or not match.grounded:
            return _grounding(match)
        state = match.chunk.state
        if not (state == tag if tag in ("FACT", "CONFIRMED") else STATE_RANK[state] >= STATE_RANK[tag]):
            return _grounding(match)
        for figure in figures(body):  # a figure held nowhere is CE742 already: the item goes
            if self.material.holds(figure) and not grounded_by(figure, match.chunk.held):
                return f"{show(figure.text)} {figure.shown()} is not in the chunk it matches, {show(match.chunk.id)} ({state})"
        return None

    def _advice(self, text: str, path: str, outcome: str) -> bool:
        """Note every advice or prediction in ``text``; True when there was one (the reply becomes a refusal)."""
        hits = advice_hits(text, *self.extra)
        for code, sentence in hits:
            kind = "trading advice" if code == "CE751" else "a prediction"
            self.note(code, f"{kind}: {show(sentence)}; {outcome}", path)
        self.advised = self.advised or bool(hits)
        return bool(hits)

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
            elif any(s["url"] == url.strip() for s in out):
                self.note("CE725", f"source {show(url.strip())} is listed twice; dropped", f"$.sources[{i}]")
            else:
                out.append({"title": self.material.urls[url.strip()], "url": url.strip()})
        return out

    def _total(
        self, answer: str, confirmed: list[str], unknown: list[str], sources: list[dict[str, str]], refused: bool
    ) -> None:
        """Within MAX_TOTAL_CHARS as returned: trailing sources go first, then unknown items, then confirmed ones."""

        def total() -> int:
            return returned_chars(answer, confirmed, unknown, UNVERIFIED, sources, refused)

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
                f"the answer is {before} characters as returned, over the limit of {MAX_TOTAL_CHARS}: {dropped} trailing entries dropped",
            )

    def _problems(self, text: str) -> list[tuple[str, str]]:
        """Why ``text`` may not be shown: URLs and figures the material lacks, banned phrases (in that order)."""
        found = []
        for match in URL.finditer(text):
            url = match.group().rstrip(URL_END)
            if url not in self.material.urls:
                found.append(("CE741", f"URL {show(url)} is not in the retrieved material"))
        for figure in figures(text):
            if not self.material.holds(figure):
                near = self.material.near(figure)
                also = (
                    f" (the material has {figure.value} with {', '.join(c or 'no counter' for c in near)})"
                    if near
                    else ""
                )
                found.append(("CE742", f"number {show(figure.text)} {figure.shown()} is in no retrieved chunk{also}"))
        if self.banned is not None:
            folded = folded_phrase(text)
            for match in self.banned.finditer(folded):
                found.append(("CE743", f"banned phrase {show(match.group())}"))
        return found


def returned_chars(
    answer: str,
    confirmed: Sequence[str],
    unknown: Sequence[str],
    state: str,
    sources: Sequence[Mapping[str, str]],
    refused: bool,
) -> int:
    """What MAX_TOTAL_CHARS bounds: the code points of the six returned fields as the endpoint sends them,
    ``{"answer", "confirmed", "unknown", "state", "sources": [{"title", "url"}], "refused"}`` as compact
    JSON (``separators=(",", ":")``, ``ensure_ascii=False``: Starlette's JSONResponse form). The state is
    counted as ``UNVERIFIED``, its longest value, so the cut never depends on it."""
    value = {
        "answer": answer,
        "confirmed": list(confirmed),
        "unknown": list(unknown),
        "state": state,
        "sources": [{"title": s["title"], "url": s["url"]} for s in sources],
        "refused": refused,
    }
    return len(json.dumps(value, ensure_ascii=False, separators=(",", ":")))


def _grounding(match: Match | None) -> str:
    if match is None:
        return "no retrieved chunk to ground it in"
    return f"the closest retrieved chunk {show(match.chunk.id)} ({match.chunk.state}) shares {match.shared} of its {match.total} bigrams"


def _first_use(ids: Iterable[str]) -> tuple[str, ...]:
    return tuple(dict.fromkeys(ids))


def _body(text: str, tag: str) -> str:
    body = text[len(tag) + 3 :]
    return body[: -len(ELLIPSIS)].rstrip() if body.endswith(ELLIPSIS) else body


def _strings(value: Any) -> tuple[str, ...]:
    if isinstance(value, str):
        return (value,)
    return tuple(v for v in value if isinstance(v, str)) if isinstance(value, Sequence) else ()


def _finding(code: str, message: str, path: str = "$") -> Diagnostic:
    return Diagnostic(code, message, path, "warning", "answer")
