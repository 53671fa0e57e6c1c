"""What enters and leaves a conversation with the model: the history it is shown, and the text a reader copies.

Both are bounded and shaped here so an endpoint cannot forget to: a reader's copy always opens
with the evidence state and the site's notice that the text is AI-generated and unverified,
and the history a model sees is short, well-formed and made of plain strings.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any
from urllib.parse import urljoin

from .config import DEFAULT_COPY_PREFIX
from .guard import TEXTS, GuardedAnswer

MAX_HISTORY_EXCHANGES = 8
MAX_HISTORY_MESSAGE_CHARS = 700
ROLES = ("user", "assistant")


def copy_text(
    guarded: GuardedAnswer, *, prefix_template: str = DEFAULT_COPY_PREFIX, site_url: str | None = None
) -> str:
    """The answer as a reader copies it: the prefix (``{state}`` filled in), the answer, then the
    confirmed and unknown items and the sources, one per ``- `` line under a heading, no final newline.

    ``site_url`` resolves a source given as a site path (``/a.html#evidence-x``) to a full URL;
    without it such a source is copied as it is.
    """
    words = TEXTS.get(guarded.lang, TEXTS["ja"])
    lines = [prefix_template.replace("{state}", guarded.state), guarded.answer]
    for key, items in (("confirmed", guarded.confirmed), ("unknown", guarded.unknown)):
        if items:
            lines.append(f"{words[key]}:")
            lines += [f"- {item}" for item in items]
    if guarded.sources:
        lines.append(f"{words['sources']}:")
        for source in guarded.sources:
            url = urljoin(site_url, source["url"]) if site_url and source["url"].startswith("/") else source["url"]
            lines.append(f"- {source['title']} {url}")
    return "\n".join(lines)


def trim_history(history: Any) -> list[dict[str, str]]:
    """The last :data:`MAX_HISTORY_EXCHANGES` exchanges of ``history`` as ``{"role", "content"}`` messages,
    each cut to :data:`MAX_HISTORY_MESSAGE_CHARS` characters.

    ``history`` is a list of ``{"role": "user" | "assistant", "content": str}``. An exchange is a
    user message and the assistant message right after it; a message of any other shape, an
    empty one, a question left unanswered and an answer without a question are dropped, so what
    is returned always alternates user, assistant. Never raises.
    """
    if not isinstance(history, (list, tuple)):
        return []
    exchanges: list[tuple[str, str]] = []
    question: str | None = None
    for message in history:
        if not isinstance(message, Mapping):
            continue
        role, content = message.get("role"), message.get("content")
        if not isinstance(role, str) or role not in ROLES or not isinstance(content, str) or not content.strip():
            continue
        if role == "user":
            question = content
        elif question is not None:
            exchanges.append((question, content))
            question = None
    out = []
    for asked, answered in exchanges[-MAX_HISTORY_EXCHANGES:]:
        out.append({"role": "user", "content": asked[:MAX_HISTORY_MESSAGE_CHARS]})
        out.append({"role": "assistant", "content": answered[:MAX_HISTORY_MESSAGE_CHARS]})
    return out
