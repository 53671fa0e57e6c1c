"""A token bucket per client, in bounded memory."""

from __future__ import annotations

import math
import threading
from collections import OrderedDict
from collections.abc import Callable


class RateLimiter:
    """``burst`` requests at once per key, refilled at ``per_second``.

    At most ``max_keys`` buckets are kept; the least recently used is forgotten first (that client
    starts again with a full bucket, which only errs on the generous side).
    """

    def __init__(self, *, burst: int, per_second: float, max_keys: int, clock: Callable[[], float]) -> None:
        self.burst = float(burst)
        self.per_second = per_second
        self.max_keys = max_keys
        self.clock = clock
        self._buckets: OrderedDict[str, tuple[float, float]] = OrderedDict()
        self._lock = threading.Lock()

    def take(self, key: str) -> int:
        """Spend one token for ``key``: 0 when allowed, else the whole seconds to wait (≥ 1)."""
        now = self.clock()
        with self._lock:
            tokens, stamp = self._buckets.pop(key, (self.burst, now))
            tokens = min(self.burst, tokens + max(0.0, now - stamp) * self.per_second)
            if tokens >= 1.0:
                tokens -= 1.0
                wait = 0
            else:
                wait = max(1, math.ceil((1.0 - tokens) / self.per_second))
            self._buckets[key] = (tokens, now)
            while len(self._buckets) > self.max_keys:
                self._buckets.popitem(last=False)
        return wait

    def __len__(self) -> int:
        with self._lock:
            return len(self._buckets)
