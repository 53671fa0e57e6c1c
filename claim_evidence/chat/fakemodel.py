"""A stand-in for the Anthropic Messages API on ``127.0.0.1``, for the tests and the local demo.

It speaks just enough of the API for the official SDK: ``POST /v1/messages`` answers with a
message shaped like the real one (``id``, ``type: "message"``, ``role``, ``model``, ``content``
``[{type: "text", text}]``, ``stop_reason``, ``usage``), and errors are the real error JSON
(``{"type": "error", "error": {"type": "rate_limit_error", "message": …}}``) with the status
the API uses (429, 500, 529…). What it answers is scripted::

    with FakeModel(answer=lambda request: '{"answer": "…"}') as fake:   # a function of the request
        fake.script("first text", error(429), FakeReply(delay=5.0))     # or a queue, used first
        client = anthropic.Anthropic(base_url=fake.url, api_key="test-key")
        ...
        fake.requests[0].body["messages"]                               # what the SDK sent

It is bounded so a runaway caller cannot hang anything: after ``max_requests`` it answers 529
and stops, after ``lifetime`` seconds it stops, a delayed reply wakes when it stops, and every
connection has a socket timeout. Standard library only; it never leaves the loopback interface.
"""

from __future__ import annotations

import itertools
import json
import threading
from collections import deque
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from .._answer.config import STATE_RANK, UNVERIFIED
from .._core.loopback import LoopbackHTTP, QuietHandler
from .prompt import read_user_message

__all__ = ["FakeModel", "FakeReply", "ReceivedRequest", "error", "grounded_answer", "last_user_text", "message"]

# The error ``type`` the API sends with each status.
_ERROR_TYPES = {
    400: "invalid_request_error",
    401: "authentication_error",
    403: "permission_error",
    404: "not_found_error",
    413: "request_too_large",
    429: "rate_limit_error",
    500: "api_error",
    503: "api_error",
    529: "overloaded_error",
}


@dataclass(frozen=True)
class FakeReply:
    """One answer: a JSON ``body`` (``None``: a message built from ``text``) after ``delay`` seconds.

    ``raw`` replaces the body with these bytes as they are (a truncated JSON, say), still sent
    with a Content-Length of their own length. ``drip`` > 0 sends the body a byte at a time,
    that many seconds apart (an upstream that holds a connection open); like ``delay``, the
    drip ends when the fake stops.
    """

    status: int = 200
    body: Mapping[str, Any] | None = None
    headers: Mapping[str, str] = field(default_factory=dict)
    text: str = ""
    delay: float = 0.0
    raw: bytes | None = None
    drip: float = 0.0


@dataclass(frozen=True)
class ReceivedRequest:
    """A request as the fake saw it: lower-cased headers and the parsed JSON body (``{}`` if none)."""

    method: str
    path: str
    headers: Mapping[str, str]
    body: Mapping[str, Any]


Answer = Callable[[Mapping[str, Any]], "str | FakeReply"]


def message(text: str, *, model: str, number: int = 1, input_tokens: int = 0) -> dict[str, Any]:
    """A Messages API response carrying ``text`` as its one text block."""
    return {
        "id": f"msg_fake{number:020d}",
        "type": "message",
        "role": "assistant",
        "model": model,
        "content": [{"type": "text", "text": text}],
        "stop_reason": "end_turn",
        "stop_sequence": None,
        "usage": {"input_tokens": input_tokens, "output_tokens": max(1, len(text) // 4)},
    }


def error(status: int, text: str | None = None, *, retry_after: int | None = None) -> FakeReply:
    """An error as the API sends it: status, ``{"type": "error", "error": {type, message}}``."""
    kind = _ERROR_TYPES.get(status, "api_error")
    body = {"type": "error", "error": {"type": kind, "message": text or kind.replace("_", " ")}}
    headers = {"retry-after": str(retry_after)} if retry_after is not None else {}
    return FakeReply(status=status, body=body, headers=headers)


class FakeModel(LoopbackHTTP):
    """The Messages API on a bounded loopback server (:class:`claim_evidence._core.loopback.LoopbackHTTP`).

    ``answer`` is called with the request body when the script queue is empty; with neither, the
    fake answers 500. ``reported_model`` is the ``model`` of every message (default: the model the
    request named). ``api_key``, when given, must come as ``x-api-key`` or ``Authorization: Bearer``
    (the SDK sends the latter), else 401 as the API does.
    """

    def __init__(
        self,
        answer: Answer | None = None,
        *,
        reported_model: str | None = None,
        api_key: str | None = None,
        max_requests: int = 200,
        lifetime: float = 300.0,
        socket_timeout: float = 10.0,
    ) -> None:
        super().__init__(_Handler, lifetime=lifetime, socket_timeout=socket_timeout)
        self.answer = answer
        self.reported_model = reported_model
        self.api_key = api_key
        self.max_requests = max_requests
        self._lock = threading.Lock()
        self._queue: deque[str | FakeReply] = deque()
        self._requests: list[ReceivedRequest] = []
        self._numbers = itertools.count(1)

    @property
    def url(self) -> str:
        """The base URL to give the SDK (``base_url`` or ``ANTHROPIC_BASE_URL``)."""
        return f"http://127.0.0.1:{self.port}"

    # --- what callers ask -------------------------------------------------
    def script(self, *replies: str | FakeReply) -> None:
        """Queue answers, used in order before ``answer``; a string is a message's text."""
        with self._lock:
            self._queue.extend(replies)

    @property
    def requests(self) -> list[ReceivedRequest]:
        with self._lock:
            return list(self._requests)

    # --- called by the handler -------------------------------------------
    def _respond(self, request: ReceivedRequest) -> _Out:
        with self._lock:
            self._requests.append(request)
            over = len(self._requests) > self.max_requests
            scripted = self._queue.popleft() if self._queue and not over else None
        if over:
            self.shutdown_soon(f"more than {self.max_requests} requests")
            return _as_response(error(529, "fake model request budget spent"))
        if request.method != "POST" or request.path != "/v1/messages":
            return _as_response(error(404, f"not found: {request.method} {request.path}"))
        if self.api_key is not None and self.api_key not in (
            request.headers.get("x-api-key"),
            _bearer(request.headers.get("authorization")),
        ):
            return _as_response(error(401, "invalid x-api-key"))
        problem = _request_problem(request.body)
        if problem:
            return _as_response(error(400, problem))
        if scripted is None and self.answer is None:
            return _as_response(error(500, "nothing scripted"))
        try:
            reply = scripted if scripted is not None else self.answer(request.body)  # type: ignore[misc]
        except Exception as exc:  # noqa: BLE001 - a broken script must show up as a 500, not a hung client
            return _as_response(error(500, f"answer failed: {exc!r}"))
        if isinstance(reply, str):
            reply = FakeReply(text=reply)
        if reply.delay:
            self.closing.wait(reply.delay)
        if reply.raw is not None or reply.body is not None:
            return _as_response(reply)
        model = self.reported_model or str(request.body.get("model", ""))
        body = message(
            reply.text, model=model, number=next(self._numbers), input_tokens=len(json.dumps(request.body)) // 4
        )
        return _Out(reply.status, _encoded(body), dict(reply.headers), reply.drip)


@dataclass(frozen=True)
class _Out:
    """What the handler sends: a status, the body's bytes, extra headers, and the drip (0: at once)."""

    status: int
    data: bytes
    headers: dict[str, str]
    drip: float = 0.0


def _bearer(value: str | None) -> str | None:
    return value[len("Bearer ") :] if value and value.startswith("Bearer ") else None


def _encoded(body: Mapping[str, Any]) -> bytes:
    # ensure_ascii: a lone surrogate a test scripts (\ud800) goes out as its JSON escape, as an API may send it.
    return json.dumps(body).encode("utf-8")


def _as_response(reply: FakeReply) -> _Out:
    data = reply.raw if reply.raw is not None else _encoded(dict(reply.body or {}))
    return _Out(reply.status, data, dict(reply.headers), reply.drip)


def _request_problem(body: Mapping[str, Any]) -> str:
    """What the API would reject in a request body, or ``""``."""
    if not isinstance(body.get("model"), str) or not body["model"]:
        return "model: field required"
    if not isinstance(body.get("max_tokens"), int) or body["max_tokens"] < 1:
        return "max_tokens: field required"
    messages = body.get("messages")
    if not isinstance(messages, list) or not messages:
        return "messages: at least one message is required"
    for number, item in enumerate(messages):
        if not isinstance(item, dict) or item.get("role") not in ("user", "assistant"):
            return f"messages.{number}.role: must be user or assistant"
        if not isinstance(item.get("content"), (str, list)):
            return f"messages.{number}.content: field required"
    if messages[0]["role"] != "user":
        return "messages: first message must use the user role"
    system = body.get("system")
    if system is not None and not isinstance(system, (str, list)):
        return "system: must be a string or a list of blocks"
    return ""


class _Handler(QuietHandler):
    _MAX_BODY = 4 * 1024 * 1024

    @property
    def owner(self) -> FakeModel:
        owner = self.server.owner
        assert isinstance(owner, FakeModel)
        return owner

    def do_POST(self) -> None:
        self._handle()

    def do_GET(self) -> None:
        self._handle()

    def _handle(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        if length > self._MAX_BODY:
            self.close_connection = True
            self._send(_as_response(error(413, "request too large")))
            return
        raw = self.rfile.read(length) if length else b""
        try:
            parsed = json.loads(raw) if raw else {}
        except (UnicodeDecodeError, json.JSONDecodeError):
            parsed = None
        if not isinstance(parsed, dict):
            self._send(_as_response(error(400, "body is not a JSON object")))
            return
        path = self.path.split("?", 1)[0]
        request = ReceivedRequest(self.command, path, {k.lower(): v for k, v in self.headers.items()}, parsed)
        self._send(self.owner._respond(request))

    def _send(self, out: _Out) -> None:
        try:
            self.send_response(out.status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(out.data)))
            self.send_header("request-id", "req_fake")
            for name, value in out.headers.items():
                self.send_header(name, value)
            self.end_headers()
            if out.drip <= 0:
                self.wfile.write(out.data)
                return
            for index in range(len(out.data)):  # bounded: the body's length, and the fake's lifetime
                if self.owner.closing.wait(out.drip):
                    self.close_connection = True
                    return
                self.wfile.write(out.data[index : index + 1])
        except OSError:  # the client went away (its timeout): nothing to tell it
            self.close_connection = True


# --- the demo's model: answers copied from the material, deterministically -------------------------

_ADVICE_WORDS = ("買う", "買い", "売る", "売り", "投資", "株価", "儲", "buy", "sell", "invest", "stock price")
_DEMO_TEXT = {
    "ja": {
        "says": "資料の記録では「{statement}」とされています。",
        "none": "この資料からは確認できません。",
        "refused": "投資や売買の判断には答えられません。",
        "unverified": "{title}は資料で照合されていません",
    },
    "en": {
        "says": "The site's record says: {statement}",
        "none": "This cannot be confirmed from this material.",
        "refused": "I cannot advise on investing or trading.",
        "unverified": "{title} is not checked against its sources",
    },
}


def last_user_text(request: Mapping[str, Any]) -> str:
    """The text of the last user message of a Messages API request body (``""`` if none)."""
    messages = request.get("messages")
    for item in reversed(messages if isinstance(messages, list) else []):
        if isinstance(item, dict) and item.get("role") == "user":
            content = item.get("content")
            if isinstance(content, str):
                return content
            if isinstance(content, list):
                return "".join(b.get("text", "") for b in content if isinstance(b, dict) and b.get("type") == "text")
    return ""


def _statement(chunk: Mapping[str, Any]) -> str:
    for line in str(chunk.get("text", "")).splitlines():
        for label in ("主張: ", "Statement: "):
            if line.startswith(label):
                return line[len(label) :].strip()
    return str(chunk.get("title", ""))


def grounded_answer(request: Mapping[str, Any]) -> str:
    """The demo's stand-in for a model: one JSON object built only from the material it was sent.

    The first chunk's statement is the answer (its state, capped at ESTIMATE, the answer's);
    reviewed chunks become confirmed items tagged with their own state, unreviewed ones unknown
    items; their URLs the sources. A question about buying, selling or investing is refused, with
    the same items and sources: what the material confirms instead of advice. It shows what the
    endpoint and the guard do with a well-behaved reply, not what a model would say.
    """
    system = request.get("system")
    lang = "en" if isinstance(system, str) and "in English." in system else "ja"
    words = _DEMO_TEXT[lang]
    chunks, question = read_user_message(last_user_text(request))
    empty: dict[str, Any] = {"confirmed": [], "unknown": [], "sources": []}
    advice = any(word in question.lower() for word in _ADVICE_WORDS)
    if not chunks:
        if advice:
            return json.dumps(
                {"answer": words["refused"], **empty, "state": UNVERIFIED, "refused": True}, ensure_ascii=False
            )
        return json.dumps({"answer": words["none"], **empty, "state": UNVERIFIED, "refused": False}, ensure_ascii=False)
    top = chunks[0]
    answer = words["says"].format(statement=_statement(top))
    if len(answer) > 200:
        answer = words["says"].format(statement=top.get("title", ""))
    top_state = str(top.get("state", UNVERIFIED))
    state = "ESTIMATE" if STATE_RANK.get(top_state, 0) >= STATE_RANK["ESTIMATE"] else top_state
    confirmed: list[str] = []
    unknown: list[str] = []
    sources: list[str] = []
    for chunk in chunks[:4]:
        chunk_state = str(chunk.get("state", UNVERIFIED))
        if chunk_state == UNVERIFIED:
            item = f"[{UNVERIFIED}] " + words["unverified"].format(title=chunk.get("title", ""))
            if len(unknown) < 3 and len(item) <= 100:
                unknown.append(item)
        else:
            item = f"[{chunk_state}] {_statement(chunk)}"
            if len(item) <= 100:
                confirmed.append(item)
        url = chunk.get("url")
        if isinstance(url, str) and url and url not in sources:
            sources.append(url)
    if advice:
        answer, state = words["refused"], UNVERIFIED
    return json.dumps(
        {
            "answer": answer,
            "confirmed": confirmed,
            "unknown": unknown,
            "state": state,
            "sources": sources,
            "refused": advice,
        },
        ensure_ascii=False,
    )
