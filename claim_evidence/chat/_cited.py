"""The Cited Sources of one answer: the chunks it used, with their records' freshness on the day it is asked.

:func:`used_chunks` says which retrieved chunks the answer relied on: those the guard grounded the
answer and its kept items in (``GuardedAnswer.used_chunks``), and those whose evidence-block URL, or
one of whose source URLs, remains in the answer's ``sources`` (a source the reader is shown is one the
answer relied on, and its freshness must be shown with it).

Each used claim chunk carries its record as kb build read it (``record``: the claim and the sources
it cites); :func:`answer_cited` re-validates and ages it with
:func:`claim_evidence._render.cited.cited_sources` to the build date a request resolves
(``SOURCE_DATE_EPOCH``, else the clock: an answer is given on a day, and a review that expired since
the kb was built must not be shown fresh). A chunk kb build judged ``invalid`` (its page and record
disagree, or its bundle is broken) and a claim chunk without a record (a kb written before records
were kept) are listed as not reviewed, never as fresh. Extra text is no record: it is not listed.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from .._answer.guard import GuardedAnswer
from .._answer.kb import KnowledgeBase
from .._answer.text import site_link
from .._core.urls import safe_http_url
from .._record.freshness import Freshness, build_date
from .._render.cited import CitedSources, cited_sources


def used_chunks(guarded: GuardedAnswer, chunks: Sequence[Mapping[str, Any]]) -> tuple[str, ...]:
    """The ids of the retrieved ``chunks`` the answer relied on (grounded in, or shown as a source), in
    retrieval order."""
    kept = {s["url"] for s in guarded.sources}
    grounded = set(guarded.used_chunks)
    found = []
    for chunk in chunks:
        if str(chunk.get("id")) in grounded:
            found.append(str(chunk.get("id")))
            continue
        sources = chunk.get("sources")
        urls = {site_link(chunk.get("url"))} | {
            safe_http_url(s.get("url"))
            for s in (sources if isinstance(sources, list) else [])
            if isinstance(s, Mapping)
        }
        if kept & (urls - {""}):
            found.append(str(chunk.get("id")))
    return tuple(found)


def answer_cited(
    kb: KnowledgeBase, chunks: Sequence[Mapping[str, Any]], used: Sequence[str], lang: str
) -> CitedSources:
    """The Cited Sources block of the ``used`` chunks (ids) among the retrieved ``chunks``."""
    day, source = build_date(None)
    wanted = set(used)
    records: list[Any] = []
    withheld: set[int] = set()
    for chunk in chunks:
        if chunk.get("id") not in wanted or chunk.get("kind") != "claim":
            continue
        record = chunk.get("record")
        if not isinstance(record, Mapping) or not isinstance(record.get("claim"), Mapping):
            record = _unrecorded(chunk)
            withheld.add(len(records))
        elif chunk.get("state_rule") == "invalid":
            withheld.add(len(records))
        records.append({"version": 1, "sources": record.get("sources"), "claims": [record["claim"]]})
    policy = Freshness() if kb.max_age_days is None else Freshness(max_age_days=kb.max_age_days)
    freshness = Freshness(max_age_days=policy.max_age_days, today=day, source=source)
    return cited_sources(records, freshness=freshness, lang=lang, withheld=frozenset(withheld))


def _unrecorded(chunk: Mapping[str, Any]) -> dict[str, Any]:
    """What a chunk without a record still says: its title, and the sources it lists (never a review)."""
    sources = [s for s in chunk.get("sources") or [] if isinstance(s, Mapping)]
    ids = [f"s{i}" for i in range(len(sources))]
    claim = {
        "id": str(chunk.get("id")),
        "label": str(chunk.get("title") or ""),
        "status": "unverified",
        "source_refs": [{"source_id": i} for i in ids],
    }
    return {"claim": claim, "sources": [{**s, "id": i} for s, i in zip(sources, ids, strict=True)]}
