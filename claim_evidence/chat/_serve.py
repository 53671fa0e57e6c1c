"""``python -m claim_evidence.chat``: parse, build the app, hand it to uvicorn. Exit 2 on any setup problem."""

from __future__ import annotations

import argparse
import logging
import sys
from collections.abc import Sequence

from .._core.diagnostics import ClaimEvidenceError
from ._settings import DEFAULT_MODEL, MODEL_ENV, ChatSettings

EXTRA_MISSING = "the chat extra is not installed ({missing}): pip install '/path/to/claim-evidence[chat]' (the checkout this package was installed from)"


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m claim_evidence.chat",
        description="Serve POST /api/chat (guarded AI answers from a kb.json) and the chat widget.",
        epilog=f"The API key is read from ANTHROPIC_API_KEY only; the model from {MODEL_ENV} (default {DEFAULT_MODEL}). See docs/chat.md.",
    )
    parser.add_argument("--kb", required=True, help="kb.json written by `claim-evidence kb build`")
    parser.add_argument("--site", help="also serve this folder at / (a static site with the widget)")
    parser.add_argument("--site-url", help="the site's public URL, to turn site paths into full URLs in copied text")
    parser.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1)")
    parser.add_argument("--port", type=int, default=8000, help="port to listen on (default 8000)")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    try:
        import anthropic  # noqa: F401 - only to say which extra is missing, before anything starts
        import starlette  # noqa: F401
        import uvicorn
    except ImportError as exc:
        print(f"claim-evidence chat: {EXTRA_MISSING.format(missing=exc.name or exc)}", file=sys.stderr)
        return 2
    from . import create_app

    try:
        settings = ChatSettings.from_env(args.kb, site_dir=args.site, site_url=args.site_url)
        app = create_app(settings)
    except ClaimEvidenceError as exc:
        print(f"claim-evidence chat: {exc}", file=sys.stderr)
        return 2
    # The endpoint's own warnings (an upstream failure: status and kind only, never a body or the key),
    # in uvicorn's format.
    handler = logging.StreamHandler()
    handler.setFormatter(logging.Formatter("%(levelname)s:     %(name)s: %(message)s"))
    chat_log = logging.getLogger("claim_evidence.chat")
    chat_log.addHandler(handler)
    chat_log.setLevel(logging.INFO)
    uvicorn.run(app, host=args.host, port=args.port, server_header=False)
    return 0
