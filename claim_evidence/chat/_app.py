"""The reference endpoint: ``POST /api/chat`` → retrieve → model → guard → JSON, and the widget's files.

Every answer a reader sees has passed ``guard_answer``; every failure is a fixed JSON message
with a fixed status (never a traceback, never the model provider's body); the API key lives only
inside the SDK client, read from the server's environment once.

Failures are answered inside the endpoint, not left to Starlette's error handler: its
middleware re-raises every exception after answering 500, and the server then logs the
traceback. The model call has one deadline (``timeout``) for the whole exchange: the SDK's
timeout bounds each wait for data, so an upstream sending a byte a second would otherwise hold a
request for as long as it likes.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import anthropic
import anyio
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from .. import KnowledgeBase, copy_text, guard_answer, load_kb, retrieve, trim_history
from .._answer.config import DEFAULT_COPY_PREFIX
from .._answer.retrieve import DEFAULT_K
from .._render.citedforms import as_json, render_markdown
from ._cited import answer_cited, used_chunks
from ._published import PublishedFiles
from ._ratelimit import RateLimiter
from ._request import (
    DEFAULT_LANG,
    NOT_JSON,
    NOT_JSON_TYPE,
    TOO_LARGE,
    ChatRequest,
    Refusal,
    is_unicode,
    parse_chat_request,
    request_lang,
)
from ._settings import KEY_ENV, ChatConfigError, ChatSettings
from .prompt import build_messages, system_prompt

log = logging.getLogger("claim_evidence.chat")

STATIC_DIR = Path(__file__).resolve().parent / "static"
WIDGET_PATH = "/chat-widget"
ENDPOINT_PATH = "/api/chat"
RESPONSE_KEYS = (
    "answer",
    "confirmed",
    "unknown",
    "state",
    "sources",
    "refused",
    "findings",
    "copy_text",
    "model",
    "cited_sources",
)

RATE_LIMITED = Refusal(
    429,
    "rate_limited",
    "Too many requests from this address. Try again later.",
    "このアドレスからの質問が多すぎます。しばらくしてからもう一度お試しください。",
)
UPSTREAM_BUSY = Refusal(
    429,
    "upstream_rate_limited",
    "The model is busy. Try again later.",
    "AI モデルが混み合っています。しばらくしてからもう一度お試しください。",
)
UPSTREAM_DOWN = Refusal(
    503,
    "upstream_unavailable",
    "The model could not be reached. Try again later.",
    "AI モデルに接続できませんでした。しばらくしてからもう一度お試しください。",
)
SERVER_BUSY = Refusal(
    503,
    "server_busy",
    "The server is answering other questions. Try again later.",
    "サーバーはほかの質問に回答中です。しばらくしてからもう一度お試しください。",
)
INTERNAL = Refusal(500, "internal_error", "The answer could not be produced.", "回答を作成できませんでした。")
NOT_ALLOWED = Refusal(405, "method_not_allowed", "Send the question with POST.", "質問は POST で送ってください。")
_NO_STORE = {"Cache-Control": "no-store", "X-Content-Type-Options": "nosniff"}
# The longest wait an upstream's Retry-After may pass on to a reader; anything else is not passed on.
MAX_RETRY_AFTER = 3600


def refuse(refusal: Refusal, lang: str = DEFAULT_LANG, headers: dict[str, str] | None = None) -> JSONResponse:
    return JSONResponse(refusal.to_dict(lang), status_code=refusal.status, headers={**_NO_STORE, **(headers or {})})


def upstream_retry_after(exc: anthropic.APIStatusError) -> dict[str, str]:
    """The upstream's ``Retry-After`` as a header to pass on, when it is whole seconds within an hour; else none."""
    headers = getattr(getattr(exc, "response", None), "headers", None)
    value = headers.get("retry-after", "").strip() if headers is not None else ""
    if value.isascii() and value.isdigit() and int(value) <= MAX_RETRY_AFTER:
        return {"Retry-After": str(int(value))}
    return {}


class ChatService:
    """The endpoint's state: the kb, the SDK client, the rate limiter and the upstream slots."""

    def __init__(self, settings: ChatSettings, kb: KnowledgeBase, client: anthropic.AsyncAnthropic) -> None:
        self.settings = settings
        self.kb = kb
        self.client = client
        self.limiter = RateLimiter(
            burst=settings.rate_burst,
            per_second=settings.rate_per_minute / 60.0,
            max_keys=settings.rate_clients,
            clock=settings.clock,
        )
        self.in_flight = 0

    async def chat(self, request: Request) -> Response:
        """``POST /api/chat``. Whatever goes wrong is answered here with a fixed message: a bug is a 500
        logged by its exception's class alone (no traceback, nothing of the request or the reply)."""
        lang = request_lang(None, request.headers.get("accept-language", ""))
        try:
            return await self._chat(request, lang)
        except Exception as exc:  # noqa: BLE001 - the one place a bug becomes the fixed 500
            log.error("internal error answering %s (%s)", ENDPOINT_PATH, type(exc).__name__)
            return refuse(INTERNAL, lang)

    async def not_allowed(self, request: Request) -> Response:
        """Any method but POST on ``/api/chat``: 405 with ``Allow: POST``, with or without ``--site``."""
        return refuse(NOT_ALLOWED, request_lang(None, request.headers.get("accept-language", "")), {"Allow": "POST"})

    async def _chat(self, request: Request, lang: str) -> Response:
        """``lang`` is the fixed texts' language until the body says its own (see ``request_lang``)."""
        wait = self.limiter.take(request.client.host if request.client else "")
        if wait:
            return refuse(RATE_LIMITED, lang, {"Retry-After": str(wait)})
        media_type = request.headers.get("content-type", "").split(";", 1)[0].strip().lower()
        if media_type != "application/json":
            return refuse(NOT_JSON_TYPE, lang)
        raw = await self._body(request)
        if raw is None:
            return refuse(TOO_LARGE, lang)
        try:
            body = json.loads(raw)
        except (UnicodeDecodeError, ValueError, RecursionError):
            return refuse(NOT_JSON, lang)
        lang = request_lang(body, request.headers.get("accept-language", ""))
        parsed = parse_chat_request(body)
        if isinstance(parsed, Refusal):
            return refuse(parsed, lang)
        if self.in_flight >= self.settings.max_concurrent:
            return refuse(SERVER_BUSY, lang, {"Retry-After": "5"})
        self.in_flight += 1
        try:
            return await self._answer(parsed)
        finally:
            self.in_flight -= 1

    async def _body(self, request: Request) -> bytes | None:
        """The body, or None once it is over the limit (by its Content-Length or by what arrives)."""
        limit = self.settings.max_body_bytes
        declared = request.headers.get("content-length", "")
        if declared.isdigit() and int(declared) > limit:
            return None
        received = bytearray()
        async for piece in request.stream():
            received += piece
            if len(received) > limit:
                return None
        return bytes(received)

    async def _answer(self, asked: ChatRequest) -> Response:
        chunks = retrieve(self.kb, asked.question, DEFAULT_K)
        lang = asked.lang
        system = system_prompt(lang, self.kb.system_prompt)
        messages = build_messages(chunks, asked.question, trim_history(asked.history))
        try:
            with anyio.fail_after(self.settings.timeout):  # the whole call: connect, headers, body, the SDK's retries
                reply = await self.client.messages.create(
                    model=self.settings.model,
                    max_tokens=self.settings.max_tokens,
                    system=system,
                    messages=messages,  # type: ignore[arg-type]
                )
        except TimeoutError:
            log.warning("model provider did not answer within %g s", self.settings.timeout)
            return refuse(UPSTREAM_DOWN, lang)
        except anthropic.RateLimitError as exc:
            log.warning("model provider answered 429 (rate limited)")
            return refuse(UPSTREAM_BUSY, lang, upstream_retry_after(exc))
        except anthropic.APIStatusError as exc:
            log.warning("model provider answered HTTP %d (%s)", exc.status_code, type(exc).__name__)
            return refuse(UPSTREAM_DOWN, lang, upstream_retry_after(exc))
        except anthropic.APITimeoutError:
            log.warning("model provider did not answer within %g s", self.settings.timeout)
            return refuse(UPSTREAM_DOWN, lang)
        except anthropic.APIConnectionError:
            log.warning("model provider could not be reached")
            return refuse(UPSTREAM_DOWN, lang)
        except anthropic.AnthropicError as exc:  # anything else the SDK raises
            log.warning("model call failed (%s)", type(exc).__name__)
            return refuse(UPSTREAM_DOWN, lang)
        except ValueError:
            # The SDK parses the body with json.loads and lets its error through: a reply cut short.
            log.warning("model provider sent a malformed message (not JSON)")
            return refuse(UPSTREAM_DOWN, lang)
        content, model = getattr(reply, "content", None), getattr(reply, "model", None)
        if not isinstance(content, list) or not isinstance(model, str):
            # The SDK does not validate responses strictly: a message without these is no answer.
            log.warning("model provider sent a malformed message (no content or model)")
            return refuse(UPSTREAM_DOWN, lang)
        text = "".join(
            t
            for block in content
            if getattr(block, "type", None) == "text" and isinstance(t := getattr(block, "text", None), str)
        )
        if not is_unicode(text) or not is_unicode(model):
            log.warning(_NOT_UNICODE)
            return refuse(UPSTREAM_DOWN, lang)
        guarded = guard_answer(
            text, chunks, lang=asked.lang, banned=self.kb.banned, advice=self.kb.advice, prediction=self.kb.prediction
        )
        result: dict[str, Any] = guarded.to_dict()
        body = {key: result[key] for key in RESPONSE_KEYS if key in result}
        body["findings"] = list(guarded.codes)
        # What the answer relied on, aged to today: the copied text ends with the same block in Markdown.
        cited = answer_cited(self.kb, chunks, used_chunks(guarded, chunks), asked.lang)
        copied = copy_text(
            guarded, prefix_template=self.kb.copy_prefix or DEFAULT_COPY_PREFIX, site_url=self.settings.site_url
        )
        body["copy_text"] = copied + "\n\n" + render_markdown(cited).rstrip("\n")
        body["model"] = model
        body["cited_sources"] = as_json(cited)
        try:
            return JSONResponse(body, headers=_NO_STORE)  # rendered here: UTF-8 now or never
        except UnicodeEncodeError:
            # The reply's JSON may spell a lone surrogate as an escape ("\ud800") that the guard's parse turned into one.
            log.warning(_NOT_UNICODE)
            return refuse(UPSTREAM_DOWN, lang)


_NOT_UNICODE = "model provider sent text that is not valid Unicode (a lone surrogate)"


async def _internal_error(request: Request, exc: Exception) -> Response:
    """A bug outside the endpoint (the static files): the fixed 500. Starlette re-raises after it."""
    log.error("internal error answering %s (%s)", request.url.path, type(exc).__name__)
    return refuse(INTERNAL, request_lang(None, request.headers.get("accept-language", "")))


def create_app(settings: ChatSettings) -> Starlette:
    """The ASGI app: ``POST /api/chat``, the widget under ``/chat-widget/``, and ``settings.site_dir`` at ``/``.

    Raises :class:`~claim_evidence.InputError` when the kb cannot be loaded, and
    :class:`ChatConfigError` when the site folder is missing or ``ANTHROPIC_API_KEY`` is not set
    in the server's environment (both are ``ClaimEvidenceError``: exit 2 from the command).
    """
    kb = load_kb(settings.kb_path)
    if settings.site_dir is not None and not Path(settings.site_dir).is_dir():
        raise ChatConfigError(f"site folder not found: {settings.site_dir}")
    api_key = os.environ.get(KEY_ENV)
    if not api_key:
        raise ChatConfigError(
            f"{KEY_ENV} is not set in the server's environment; the chat endpoint needs it to ask the model"
        )
    client = anthropic.AsyncAnthropic(
        api_key=api_key, base_url=settings.base_url, timeout=settings.timeout, max_retries=settings.max_retries
    )
    service = ChatService(settings, kb, client)

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        try:
            yield
        finally:
            with contextlib.suppress(Exception):  # closing the connection pool; nothing to tell anyone
                await client.close()

    routes: list[Route | Mount] = [
        Route(ENDPOINT_PATH, service.chat, methods=["POST"]),
        # Every other method, here rather than left to routing: with --site the mount at / would answer it 404.
        Route(ENDPOINT_PATH, service.not_allowed, methods=["GET", "HEAD", "PUT", "PATCH", "DELETE", "OPTIONS"]),
        Mount(WIDGET_PATH, app=StaticFiles(directory=str(STATIC_DIR)), name="chat-widget"),
    ]
    if settings.site_dir is not None:
        routes.append(Mount("/", app=PublishedFiles(Path(settings.site_dir)), name="site"))
    app = Starlette(routes=routes, exception_handlers={Exception: _internal_error}, lifespan=lifespan)
    app.state.chat = service
    return app
