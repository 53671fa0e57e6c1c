"""What a reader may send to ``POST /api/chat``: checked into a value, or refused with a fixed error."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

MAX_QUESTION_CHARS = 500
# A history longer than this is cut to its last MAX_HISTORY_ITEMS messages before trim_history keeps the
# last 8 exchanges of them: a long history is trimmed, never refused (the body limit bounds it anyway).
MAX_HISTORY_ITEMS = 64
LANGS = ("ja", "en")
DEFAULT_LANG = "ja"


@dataclass(frozen=True)
class ChatRequest:
    question: str
    history: list[dict[str, Any]]
    lang: str


@dataclass(frozen=True)
class Refusal:
    """A request refused: the HTTP status, a stable code and a fixed message in English and Japanese
    (never the input); ``to_dict`` gives the one in the request's language."""

    status: int
    code: str
    message: str
    message_ja: str

    def to_dict(self, lang: str = DEFAULT_LANG) -> dict[str, str]:
        return {"error": self.code, "message": self.message_ja if lang == "ja" else self.message}


NOT_JSON_TYPE = Refusal(
    415,
    "unsupported_media_type",
    "Send the request as application/json.",
    "リクエストは application/json で送ってください。",
)
TOO_LARGE = Refusal(413, "request_too_large", "The request body is too large.", "リクエストが大きすぎます。")
NOT_JSON = Refusal(
    400,
    "invalid_json",
    "The request body is not a JSON object.",
    "リクエストの本文が JSON オブジェクトではありません。",
)
NO_QUESTION = Refusal(
    400,
    "invalid_question",
    f"question must be a string of 1 to {MAX_QUESTION_CHARS} characters.",
    f"question は 1〜{MAX_QUESTION_CHARS} 文字の文字列にしてください。",
)
BAD_LANG = Refusal(400, "invalid_lang", 'lang must be "ja" or "en".', 'lang は "ja" か "en" にしてください。')
BAD_HISTORY = Refusal(
    400,
    "invalid_history",
    "history must be a list of {role: user|assistant, content: string}.",
    "history は {role: user|assistant, content: 文字列} のリストにしてください。",
)


def parse_chat_request(body: Any) -> ChatRequest | Refusal:
    """The request in ``body`` (parsed JSON), or why it is refused."""
    if not isinstance(body, dict):
        return NOT_JSON
    question = body.get("question")
    if (
        not isinstance(question, str)
        or not question.strip()
        or len(question) > MAX_QUESTION_CHARS
        or not is_unicode(question)
    ):
        return NO_QUESTION
    lang = body.get("lang", "ja")
    if lang not in LANGS:
        return BAD_LANG
    history = body.get("history", [])
    if history is None:
        history = []
    if not isinstance(history, list):
        return BAD_HISTORY
    history = history[-MAX_HISTORY_ITEMS:]
    for turn in history:
        if not (
            isinstance(turn, dict)
            and turn.get("role") in ("user", "assistant")
            and isinstance(turn.get("content"), str)
        ):
            return BAD_HISTORY
        if not is_unicode(turn["content"]):
            return BAD_HISTORY
    return ChatRequest(question=question.strip(), history=history, lang=lang)


def request_lang(body: Any, accept_language: str = "") -> str:
    """The language of the fixed texts for a request: its ``lang`` when it is ``ja`` or ``en``, else (a body
    not yet read, not JSON, or with another lang) the first of them in ``Accept-Language``, else ``ja``."""
    lang = body.get("lang") if isinstance(body, dict) else None
    if isinstance(lang, str) and lang in LANGS:
        return lang
    for part in accept_language.split(","):
        primary = part.split(";", 1)[0].strip().lower().split("-", 1)[0]
        if primary in LANGS:
            return primary
    return DEFAULT_LANG


def is_unicode(text: str) -> bool:
    """False for a string holding a lone surrogate: JSON can spell one (``"\\ud800"``), UTF-8 cannot,
    so it could be neither sent to the model nor written back."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True
