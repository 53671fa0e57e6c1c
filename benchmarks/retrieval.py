"""What one retrieval costs on a large knowledge base (issue 15): median milliseconds per query.

    .venv/bin/python benchmarks/retrieval.py --chunks 10000 --queries 200

Builds a deterministic synthetic knowledge base of mixed Japanese and English chunks (about the
length of a claim chunk: a statement, conditions, a source line with a quote), builds its
inverted index once (timed apart), then times ``retrieve(kb, question)`` for questions made of
fragments of random chunks plus words the corpus lacks. Prints the index build time and the
median, 95th percentile and maximum per query. Standard library only; not collected by pytest
(``testpaths = ["tests"]``), and no test asserts a time.
"""

from __future__ import annotations

import argparse
import random
import statistics
import time
from collections.abc import Sequence
from typing import Any

from claim_evidence import KnowledgeBase, retrieve

_JA = (
    "クモエンジン",
    "ツキモデル",
    "架空アメ社",
    "ノルンベイ計算機",
    "推論",
    "速度",
    "料金",
    "無料枠",
    "トークン",
    "仕様書",
    "報道",
    "測定",
    "企業価値",
    "調達額",
    "契約",
    "提供開始",
    "前版比",
    "公称値",
    "第三者",
    "評価",
    "学習データ",
    "入力上限",
    "応答時間",
    "利用規約",
)
_JA_GLUE = ("は", "の", "が", "を", "に", "で", "と", "によると", "では", "として")
_EN = (
    "model",
    "engine",
    "price",
    "tokens",
    "benchmark",
    "release",
    "vendor",
    "report",
    "measured",
    "speed",
    "context",
    "limit",
    "funding",
    "valuation",
    "contract",
    "free tier",
    "per day",
    "independent",
    "official",
    "specification",
)


def _sentence(rng: random.Random) -> str:
    if rng.random() < 0.7:
        words = [rng.choice(_JA) + rng.choice(_JA_GLUE) for _ in range(rng.randint(4, 9))]
        return (
            "".join(words) + f"{rng.randint(1, 999)}{rng.choice(('億', '万', '%', '倍', '円', ''))}と記載されている。"
        )
    return " ".join(rng.choice(_EN) for _ in range(rng.randint(6, 14))).capitalize() + f" {rng.randint(1, 999)}."


def corpus(size: int, seed: int) -> list[dict[str, Any]]:
    rng = random.Random(seed)
    chunks = []
    for n in range(size):
        text = "\n".join(
            [
                f"主張: {_sentence(rng)}",
                f"条件: {_sentence(rng)}",
                f"不確実性: {_sentence(rng)}",
                f"出典: 架空社「資料{n}」 https://example.com/doc/{n} 引用: 「{_sentence(rng)}」",
            ]
        )
        chunks.append(
            {
                "id": f"page-{n // 10}.html#C{n}",
                "kind": "claim",
                "state": "CONFIRMED",
                "state_rule": "matched",
                "title": f"主張 {n}",
                "text": text,
                "url": f"/page-{n // 10}.html#evidence-C{n}",
                "page": f"page-{n // 10}.html",
                "sources": [],
            }
        )
    return chunks


def questions(chunks: Sequence[dict[str, Any]], count: int, seed: int) -> list[str]:
    rng = random.Random(seed + 1)
    out = []
    for _ in range(count):
        text = rng.choice(chunks)["text"]
        start = rng.randrange(max(1, len(text) - 40))
        out.append(
            text[start : start + rng.randint(8, 40)] + rng.choice(("は本当？", "について教えて", " what is it?", ""))
        )
    return out


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--chunks", type=int, default=10_000)
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--k", type=int, default=8)
    parser.add_argument("--seed", type=int, default=15)
    args = parser.parse_args(argv)
    chunks = corpus(args.chunks, args.seed)
    kb = KnowledgeBase(tuple(chunks), "2026-09-01", "--today")
    started = time.perf_counter()
    kb.index  # noqa: B018 - built once, as a server does on its first question
    build = time.perf_counter() - started
    asked = questions(chunks, args.queries, args.seed)
    times = []
    for question in asked:
        started = time.perf_counter()
        retrieve(kb, question, args.k)
        times.append((time.perf_counter() - started) * 1000)
    times.sort()
    chars = statistics.mean(len(c["text"]) for c in chunks)
    print(
        f"corpus: {len(chunks)} chunks (mean {chars:.0f} characters), {len(kb.index.postings)} distinct bigrams; index built in {build:.2f} s"
    )
    print(
        f"retrieve k={args.k}: median {statistics.median(times):.2f} ms/query, p95 {times[int(len(times) * 0.95) - 1]:.2f} ms, max {times[-1]:.2f} ms over {len(times)} queries"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
