"""The text normalizations: for each comparison, the one form both sides are put in.

They differ on purpose, because each forgives exactly what its comparison may forgive and no more:

- :func:`normalized_text` — whitespace only: every run of Unicode whitespace (U+3000 included) is one
  space, the ends are stripped. For what a review covers: the statement, title, tldr and summary
  inside a fingerprint (SCHEMA.md "Fingerprints"), and a claim element's visible text against its
  statement (SH120). A changed character must change the fingerprint, so nothing else is forgiven;
  the vectors in ``schemas/`` pin it.
- :func:`normalized_quote` — NFKC, then whitespace as above. For a quote anchored in a snapshot's text
  (``_snapshots.anchor``): full-width forms, compatibility characters and a line break in the source
  must not hide a passage that is there.
- :func:`folded_phrase` — NFKC, case folded, then whitespace as above. For a banned phrase in an answer
  (the answer guard, CE743): a phrase must not slip through in another case or width.
- :func:`folded_for_bigrams` — NFKC, case folded, every whitespace character removed. For retrieval's
  character bigrams and the guard's grounding (SCHEMA.md "Retrieval"): Japanese has no spaces, so a
  space must not split a bigram either.
- :func:`lf_newlines` — CRLF and CR become LF, nothing else. For a snapshot's text as the store keeps
  and hashes it: the same text fetched with other line ends is the same snapshot.

Whitespace is what ``str.isspace`` says in every one of them (the ``\\s`` of a ``str`` pattern is the
same set). Standard library only: the HTML reader, the record layer, the snapshots and the answer
guard all compare text, and none of them may import another for it.
"""

from __future__ import annotations

import unicodedata
from typing import Any


def normalized_text(value: Any) -> str:
    """Fold every run of Unicode whitespace (U+3000 included) to one space, strip.

    ``str.split`` without a separator cuts at the runs of exactly the characters ``\\s`` matches (both
    are ``str.isspace``; ``tests/unit/core/test_normalize.py`` holds them together over every code point)
    and drops the empty ends: the same string as substituting each run and stripping, three to four
    times faster, and it runs on every claim sentence of every page checked."""
    return " ".join(str(value or "").split())


def normalized_quote(text: str) -> str:
    """NFKC, whitespace runs as one space, stripped: the form both sides are compared in."""
    return normalized_text(unicodedata.normalize("NFKC", text))


def folded_phrase(text: str) -> str:
    """How banned phrases are matched: NFKC, case folded, whitespace runs as one space."""
    return normalized_text(unicodedata.normalize("NFKC", text).casefold())


def folded_for_bigrams(text: str) -> str:
    """NFKC, then ``str.casefold``, then every character for which ``str.isspace`` holds removed."""
    return "".join(c for c in unicodedata.normalize("NFKC", text).casefold() if not c.isspace())


def lf_newlines(text: str) -> str:
    """Text as the store keeps it: LF line ends."""
    return text.replace("\r\n", "\n").replace("\r", "\n")
