"""What the retrieved chunks allow an answer: their links, and per chunk its state, bigrams and figures.

The guard grounds a piece of text in *one* chunk, the one it matches, and takes that chunk's
state — never the strongest retrieved — as the bound: a weak chunk cannot borrow a strong
chunk's state by being retrieved beside it. Both sides are read without their URLs, so a URL
shared by an item and a chunk is no resemblance (its characters would otherwise be most of
the match).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from .._core.urls import safe_http_url
from .config import STATE_RANK, UNVERIFIED, state_or_none
from .figures import Figure, figures, grounded_by
from .retrieve import bigrams
from .text import site_link, without_urls

GROUNDING_PERCENT = 50  # of a text's distinct bigrams (URLs and an item's tag removed) shared with one chunk


@dataclass(frozen=True)
class MaterialChunk:
    """One retrieved chunk as the guard compares with it."""

    id: str
    state: str
    grams: frozenset[str]
    held: frozenset[tuple[str, str]]  # (value, counter) of every figure in its title, text, sources' names


@dataclass(frozen=True)
class Match:
    """The chunk a text matches best: its index, and how many of the text's bigrams it shares."""

    index: int
    chunk: MaterialChunk
    shared: int
    total: int

    @property
    def grounded(self) -> bool:
        return self.total > 0 and self.shared * 100 >= self.total * GROUNDING_PERCENT


@dataclass
class Material:
    """Link URLs with their titles, and the chunks in retrieval order."""

    urls: dict[str, str] = field(default_factory=dict)
    chunks: list[MaterialChunk] = field(default_factory=list)

    @classmethod
    def of(cls, retrieved: Sequence[Any]) -> Material:
        material = cls()
        for raw in retrieved if isinstance(retrieved, Sequence) else ():
            chunk = raw.as_dict() if hasattr(raw, "as_dict") else raw
            if not isinstance(chunk, Mapping):
                continue
            cid, title, text = (_str(chunk.get(k)) for k in ("id", "title", "text"))
            state = state_or_none(chunk.get("state")) or UNVERIFIED
            if link := site_link(chunk.get("url")):
                material.urls.setdefault(link, title or link)
            known = [title, text]
            sources = chunk.get("sources")
            for source in sources if isinstance(sources, list) else ():
                if isinstance(source, Mapping) and (url := safe_http_url(source.get("url"))):
                    name = _str(source.get("title")) or _str(source.get("publisher")) or url
                    material.urls.setdefault(url, name)
                    known += [_str(source.get("title")), _str(source.get("publisher"))]
            held = frozenset(f.key for piece in known for f in figures(piece))
            material.chunks.append(MaterialChunk(cid, state, bigrams(without_urls(text)), held))
        return material

    @property
    def strongest(self) -> int:
        return max((STATE_RANK[c.state] for c in self.chunks), default=0)

    def closest(self, text: str) -> Match | None:
        """The chunk sharing most distinct bigrams with ``text`` (URLs removed; first on ties), or None."""
        grams = bigrams(without_urls(text))
        if not grams or not self.chunks:
            return None
        shared, position = max((len(grams & c.grams), -i) for i, c in enumerate(self.chunks))
        return Match(-position, self.chunks[-position], shared, len(grams))

    def holds(self, figure: Figure) -> bool:
        return any(grounded_by(figure, c.held) for c in self.chunks)

    def holders(self, figure: Figure) -> list[MaterialChunk]:
        """The chunks holding ``figure``, strongest first, then in retrieval order."""
        found = [(i, c) for i, c in enumerate(self.chunks) if grounded_by(figure, c.held)]
        return [c for _, c in sorted(found, key=lambda p: (-STATE_RANK[p[1].state], p[0]))]

    def near(self, figure: Figure) -> list[str]:
        """The same value as written with other counters in the material, for a message."""
        return sorted({counter for c in self.chunks for value, counter in c.held if value == figure.value})

    def grounding(self, text: str) -> list[MaterialChunk]:
        """The chunks ``text`` is grounded in, in first-use order: the one it matches (when it shares at
        least half its bigrams), then for each figure the chunk it matched already or the strongest
        one holding it."""
        used: list[MaterialChunk] = []
        match = self.closest(text)
        if match is not None and match.grounded:
            used.append(match.chunk)
        for figure in figures(text):
            if any(grounded_by(figure, c.held) for c in used):
                continue
            holders = self.holders(figure)
            if holders:
                used.append(holders[0])
        return used


def _str(value: Any) -> str:
    return value if isinstance(value, str) else ""
