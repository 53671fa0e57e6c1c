"""A response body's content codings undone under a cap on what every layer decodes.

A few kilobytes of ``Content-Encoding: gzip, gzip`` decode to gigabytes, and a decoder that
inflates a whole network chunk before anyone counts has already spent the memory. So each
layer here is a zlib ``decompressobj`` asked for at most :data:`PIECE` bytes at a time
(``decompress(data, max_length)``, the rest of the input kept in ``unconsumed_tail``), every
layer's output is counted against the cap as it comes, and nothing past the cap is ever
decoded. Only gzip and deflate are decoded (what ``Accept-Encoding`` offers), at most
:data:`MAX_CODINGS` of them; ``identity`` means nothing and is dropped. The codings are the
HTTP ones (RFC 9110 §8.4); the decompression is the standard library's.
"""

from __future__ import annotations

import zlib
from collections.abc import AsyncIterator, Iterator, Sequence

from .._core.hints import shown

ACCEPT_ENCODING = "gzip, deflate"
DECODED = ("gzip", "deflate")
MAX_CODINGS = 2
PIECE = 64 * 1024  # the most any one decompress call may return

_GZIP = {"gzip", "x-gzip"}  # x-gzip: the old name, still sent (RFC 9110 §8.4.1.3)


class OverCap(Exception):
    """A layer decoded more than the cap: the body is too large, and its rest is never decoded."""


class NotDecodable(Exception):
    """The body is not valid in a coding it declares (corrupt, or cut short)."""


def codings_to_undo(values: Sequence[str]) -> list[str] | str:
    """The codings of a ``Content-Encoding`` (its comma-separated values, in the order applied),
    lowercased, ``identity`` and empty items dropped; or, as a string, why the body is refused."""
    named = [v.strip().lower() for v in values]
    codings = [c for c in named if c and c != "identity"]
    header = shown(", ".join(v.strip() for v in values))
    if len(codings) > MAX_CODINGS:
        return f"Content-Encoding {header}: more than {MAX_CODINGS} content codings are not decoded"
    for coding in codings:
        if coding not in _GZIP and coding != "deflate":
            return f"Content-Encoding {header}: the content coding {shown(coding)} is not one this tool decodes ({', '.join(DECODED)})"
    return ["gzip" if c in _GZIP else c for c in codings]


async def decoded(raw: AsyncIterator[bytes], codings: Sequence[str], limit: int) -> AsyncIterator[bytes]:
    """The body of ``raw`` (the bytes as sent) with ``codings`` undone, in pieces of at most
    :data:`PIECE` bytes (or a network chunk, without codings).

    Raises :class:`OverCap` as soon as any layer's output passes ``limit`` — the last layer's is
    the body, an inner one's is what the next layer would have to read — and
    :class:`NotDecodable` when a layer's data is corrupt or ends before its end.
    """
    layers = [_Layer(coding, limit) for coding in reversed(codings)]  # the last coding applied comes off first
    size = 0
    async for chunk in raw:
        for piece in _through(layers, chunk):
            size += len(piece)
            if size > limit:
                raise OverCap
            yield piece
    for layer in layers:
        layer.finish()


def _through(layers: Sequence[_Layer], data: bytes) -> Iterator[bytes]:
    if not layers:
        if data:
            yield data
        return
    for piece in layers[0].feed(data):
        yield from _through(layers[1:], piece)


class _Layer:
    """One coding being undone, with the count of what it decoded."""

    def __init__(self, coding: str, limit: int) -> None:
        self.coding = coding
        self.limit = limit
        self.produced = 0
        # deflate is meant to be zlib-wrapped (RFC 9110 §8.4.1.2) but some servers send it raw: like
        # browsers and httpx, try the wrapper first and fall back to raw on the first bytes.
        self._raw_fallback = coding == "deflate"
        self._zlib = zlib.decompressobj(zlib.MAX_WBITS | 16 if coding == "gzip" else zlib.MAX_WBITS)

    def feed(self, data: bytes) -> Iterator[bytes]:
        """Decode ``data`` in pieces of at most :data:`PIECE` bytes; bounded: each round either
        returns output (at most ``limit`` in all) or ends."""
        while not self._zlib.eof:
            before = len(data)
            out = self._decompress(data)
            data = self._zlib.unconsumed_tail
            if not out and data and len(data) >= before:
                raise NotDecodable(f"the {self.coding} body could not be decoded further")
            if out:
                self.produced += len(out)
                if self.produced > self.limit:
                    raise OverCap
                yield out
            # A full piece may leave decoded bytes inside zlib even with no input left: ask again.
            if not data and len(out) < PIECE:
                return
        # Bytes after the end of the compressed data are ignored, as httpx and browsers do.

    def finish(self) -> None:
        if not self._zlib.eof:
            raise NotDecodable(f"the {self.coding} body ends before its compressed data does")

    def _decompress(self, data: bytes) -> bytes:
        try:
            out = self._zlib.decompress(data, PIECE)
        except zlib.error as exc:
            if not self._raw_fallback:
                raise NotDecodable(f"the {self.coding} body is not valid {self.coding}: {exc}") from None
            self._raw_fallback = False
            self._zlib = zlib.decompressobj(-zlib.MAX_WBITS)
            return self._decompress(data)
        if out or data:
            self._raw_fallback = False  # the wrapper was read: no fallback after the first bytes
        return out
