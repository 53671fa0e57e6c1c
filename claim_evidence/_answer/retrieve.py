"""Retrieval for the answer guard: shared character bigrams, through an inverted index built once.

Japanese has no spaces to split words on, and a site's knowledge base is small, so the score is
the plainest one that works for both scripts and that anyone can recompute by hand: the number
of *distinct* character bigrams a question and a chunk share, after NFKC, case folding and the
removal of every whitespace character (SCHEMA.md "Retrieval"). The guard grounds items with the
same measure, so what retrieval finds and what the guard accepts are judged alike.
"""

from __future__ import annotations

import heapq
from collections import Counter
from collections.abc import Mapping, Sequence
from copy import deepcopy
from itertools import chain
from typing import Any, Protocol

from .._core.normalize import folded_for_bigrams

DEFAULT_K = 8

__all__ = ["DEFAULT_K", "Index", "bigrams", "retrieve", "scored"]


def bigrams(text: str) -> frozenset[str]:
    """The distinct pairs of adjacent characters of :func:`.folded_for_bigrams` (``text``); none below two
    characters."""
    folded = folded_for_bigrams(text)
    return frozenset(folded[i : i + 2] for i in range(len(folded) - 1))


def chunk_text(chunk: Any) -> str:
    """The text a chunk is searched and grounded by: its ``text`` (``""`` when not a string)."""
    text = chunk.get("text") if isinstance(chunk, Mapping) else None
    return text if isinstance(text, str) else ""


class Index:
    """Bigram → the positions of the texts holding it (ascending), built once per corpus.

    A query touches only the postings of its own bigrams, so its cost follows how common they
    are, not the size of the corpus; the counting runs in ``Counter``'s C loop.
    """

    def __init__(self, texts: Sequence[str]) -> None:
        postings: dict[str, list[int]] = {}
        for position, text in enumerate(texts):
            for pair in bigrams(text):
                postings.setdefault(pair, []).append(position)
        self.postings = postings
        self.size = len(texts)

    def top(self, question: str, k: int = DEFAULT_K) -> list[tuple[int, int]]:
        """``(position, score)`` of the ``k`` best texts: score descending, then position ascending; score 0 never."""
        if k <= 0:
            return []
        wanted = [self.postings[pair] for pair in bigrams(question) if pair in self.postings]
        counts = Counter(chain.from_iterable(wanted))
        best = heapq.nsmallest(k, counts.items(), key=lambda item: (-item[1], item[0]))
        return [(position, score) for position, score in best]


class Searchable(Protocol):
    """What :func:`retrieve` needs of a knowledge base: its chunks and their index (``kb.KnowledgeBase``)."""

    @property
    def chunks(self) -> Sequence[Mapping[str, Any]]: ...

    @property
    def index(self) -> Index: ...


def scored(
    kb: Searchable | Sequence[Mapping[str, Any]], question: str, k: int = DEFAULT_K
) -> list[tuple[int, dict[str, Any]]]:
    """``(score, chunk)`` of the ``k`` best chunks (copies: a caller cannot alter the knowledge base)."""
    if not isinstance(question, str) or type(k) is not int:
        return []
    if isinstance(kb, Sequence):
        chunks: Sequence[Any] = kb
        index = Index([chunk_text(c) for c in kb])
    else:
        chunks, index = kb.chunks, kb.index
    return [(score, deepcopy(dict(chunks[position]))) for position, score in index.top(question, k)]


def retrieve(kb: Searchable | Sequence[Mapping[str, Any]], question: str, k: int = DEFAULT_K) -> list[dict[str, Any]]:
    """The ``k`` chunks sharing the most distinct bigrams with ``question``, as stored in kb.json.

    ``kb`` is a :class:`~claim_evidence._answer.kb.KnowledgeBase` (its index is built once and kept) or a
    plain list of chunk dicts (indexed for this call). Ties go to the chunk that comes first in
    the knowledge base; chunks sharing nothing are never returned.
    """
    return [chunk for _, chunk in scored(kb, question, k)]
