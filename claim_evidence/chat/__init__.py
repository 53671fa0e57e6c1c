"""The reference answer endpoint and its widget (issue #15), an optional extra::

    pip install '/path/to/claim-evidence[chat]'   # from a checkout: the package is not on the index
    python -m claim_evidence.chat --kb kb.json [--site DIR] [--host 127.0.0.1] [--port 8000]

``create_app(ChatSettings(...))`` is a Starlette ASGI app: ``POST /api/chat`` retrieves the
question's chunks from a kb.json, asks the model through the official Anthropic SDK, passes the
reply through :func:`claim_evidence.guard_answer` and returns the guarded answer as JSON; the
widget (``chat.js``, ``chat.css``: inline in a ``[data-claim-evidence-chat]`` element, or a floating
launcher from one ``<script … data-claim-evidence-chat-launcher>`` tag) is served under ``/chat-widget/``.
A site's own system prompt comes from kb.json (``[chat] system_prompt``). See docs/chat.md.

Importing this package loads neither Starlette nor the SDK: ``create_app`` does, so the command
can say which extra is missing. ``import claim_evidence`` never imports this package.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ._settings import DEFAULT_MODEL, ChatConfigError, ChatSettings

if TYPE_CHECKING:
    from starlette.applications import Starlette

__all__ = ["DEFAULT_MODEL", "ChatConfigError", "ChatSettings", "create_app"]


def create_app(settings: ChatSettings) -> Starlette:
    """The ASGI app for ``settings`` (see ``claim_evidence.chat._app.create_app``)."""
    from ._app import create_app as build

    return build(settings)
