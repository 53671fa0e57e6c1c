"""The AI answer endpoint and widget on the example site, locally, with no API key and no network.

    .venv/bin/pip install -e '.[chat]'
    .venv/bin/python examples/chat_demo.py            # then open the printed URL
    .venv/bin/python examples/chat_demo.py --port 8123

It builds kb.json from examples/site into a temporary folder, starts a fake model on 127.0.0.1
(claim_evidence.chat.fakemodel: it speaks the Anthropic Messages API and answers by copying the
retrieved material, deterministically), and serves the site, the widget and POST /api/chat on
127.0.0.1. Every answer passes the same guard a real model's would. What it shows is the
plumbing: a fake model that copies its material says nothing about what a real model would say.
Ctrl-C stops both servers.
"""

from __future__ import annotations

import argparse
import os
import signal
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

SITE = Path(__file__).resolve().parent / "site"
DEMO_KEY = "demo-key-for-the-fake-model"  # not a secret: only the fake model on loopback checks it
DEMO_MODEL = "claim-evidence-fake-model"


def prepare(workdir: Path, port: int) -> tuple[Any, Any]:
    """Build the kb, start the fake model, and return ``(app, fake)``; the caller stops ``fake``."""
    from claim_evidence.chat import ChatSettings, create_app
    from claim_evidence.chat.fakemodel import FakeModel, grounded_answer
    from claim_evidence.cli import main as claim_evidence

    kb = workdir / "kb.json"
    code = claim_evidence(["kb", "build", "--config", str(SITE / "claim-evidence.toml"), "--out", str(kb)])
    if code != 0:
        raise SystemExit(code)
    fake = FakeModel(
        grounded_answer, reported_model=DEMO_MODEL, api_key=DEMO_KEY, max_requests=10_000, lifetime=8 * 3600.0
    )
    fake.start()
    # The demo's own key in this process only: a real ANTHROPIC_API_KEY is never sent to the fake.
    os.environ["ANTHROPIC_API_KEY"] = DEMO_KEY
    settings = ChatSettings(
        kb_path=kb, site_dir=SITE, site_url=f"http://127.0.0.1:{port}", base_url=fake.url, model=DEMO_MODEL
    )
    try:
        return create_app(settings), fake
    except BaseException:
        fake.stop()
        raise


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--port", type=int, default=8000, help="port on 127.0.0.1 (default 8000)")
    args = parser.parse_args(argv)
    try:
        import uvicorn
    except ImportError:
        print("chat_demo: the chat extra is not installed: pip install -e '.[chat]'", file=sys.stderr)
        return 2
    # SIGTERM ends the demo like Ctrl-C does: through the cleanup below (uvicorn passes it on once stopped).
    signal.signal(signal.SIGTERM, lambda signum, frame: sys.exit(0))
    with tempfile.TemporaryDirectory(prefix="claim-evidence-chat-demo-") as folder:
        app, fake = prepare(Path(folder), args.port)
        try:
            print(
                f"chat demo: open http://127.0.0.1:{args.port}/chat.html  (fake model at {fake.url}; Ctrl-C stops)",
                flush=True,
            )
            uvicorn.run(app, host="127.0.0.1", port=args.port, server_header=False, log_level="warning")
        finally:
            fake.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
