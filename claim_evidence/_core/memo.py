"""Memo keys for pure functions of JSON data: the full canonical content, never object identity.

A key exists only for plain JSON values (``dict`` with ``str`` keys, ``list``,
``str``, ``int``, ``float``, ``bool``, ``None``, exact types): a tuple or a
``dict`` subclass would serialise like a list or a dict while validating
differently, so such input gets no key and is never cached.
"""

from __future__ import annotations

import json
from collections import OrderedDict
from typing import Any, Generic, TypeVar

_SCALARS = frozenset({str, int, float, bool, type(None)})
V = TypeVar("V")


def content_key(value: Any) -> str | None:
    """``json.dumps`` of ``value`` (key order kept) if it is plain JSON, else None."""
    stack = [value]
    push, pop = stack.append, stack.pop
    while stack:
        node = pop()
        kind = type(node)
        if kind is dict:
            for key in node:
                if type(key) is not str:
                    return None
            items: Any = node.values()
        elif kind is list:
            items = node
        elif kind in _SCALARS:
            continue
        else:
            return None
        for item in items:
            kind = type(item)
            if kind is dict or kind is list:
                push(item)
            elif kind not in _SCALARS:
                return None
    return json.dumps(value, ensure_ascii=False, allow_nan=True)


class Memo(Generic[V]):
    """A bounded least-recently-used map; values must be immutable (they are shared)."""

    def __init__(self, size: int) -> None:
        self.size = size
        self.items: OrderedDict[Any, V] = OrderedDict()

    def get(self, key: Any) -> V | None:
        found = self.items.get(key)
        if found is not None:
            self.items.move_to_end(key)
        return found

    def put(self, key: Any, value: V) -> V:
        self.items[key] = value
        if len(self.items) > self.size:
            self.items.popitem(last=False)
        return value
