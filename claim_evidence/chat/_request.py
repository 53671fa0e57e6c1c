"""What a reader may send to ``POST /api/chat``: checked into a value, or refused with a fixed error."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

MAX_QUESTION_CHARS = 500
MAX_HISTORY_ITEMS = 64  # before trimming: anything longer is not a widget talking
LANGS = ("ja", "en")


@dataclass(frozen=True)
class ChatRequest:
    question: str
    history: list[dict[str, Any]]
    lang: str


@dataclass(frozen=True)
class Refusal:
    """A request refused: the HTTP status, a stable code and a fixed message (never the input)."""

    status: int
    code: str
    message: str

    def to_dict(self) -> dict[str, str]:
        return {"error": self.code, "message": self.message}


NOT_JSON_TYPE = Refusal(415, "unsupported_media_type", "Send the request as application/json.")
TOO_LARGE = Refusal(413, "request_too_large", "The request body is too large.")
NOT_JSON = Refusal(400, "invalid_json", "The request body is not a JSON object.")
NO_QUESTION = Refusal(400, "invalid_question", f"question must be a string of 1 to {MAX_QUESTION_CHARS} characters.")
BAD_LANG = Refusal(400, "invalid_lang", 'lang must be "ja" or "en".')
BAD_HISTORY = Refusal(400, "invalid_history", "history must be a list of {role: user|assistant, content: string}.")


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
    if not isinstance(history, list) or len(history) > MAX_HISTORY_ITEMS:
        return BAD_HISTORY
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


def is_unicode(text: str) -> bool:
    """False for a string holding a lone surrogate: JSON can spell one (``"\\ud800"``), UTF-8 cannot,
    so it could be neither sent to the model nor written back."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True
