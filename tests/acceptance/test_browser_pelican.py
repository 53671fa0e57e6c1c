"""Pelican's default theme in a real browser: the evidence block next to notmyidea's floated line.

notmyidea floats the article's "Published … In category" line (``footer.post-info``) to the right at
the top of the text, and a block box runs underneath a float: an evidence block right after a short
first sentence had its border and background under that line. Built with the real ``pelican`` and the
plugin, served on 127.0.0.1 and shown in headless Chromium (the setup of tests/acceptance/test_browser.py)
at a desktop width and at 390 px, the block's box must not intersect the float's, and must keep a
readable width (not squeezed into the strip beside the float).
"""

from __future__ import annotations

import functools
import http.server
import json
import os
import shutil
import subprocess
import sys
import threading
from collections.abc import Iterator
from importlib.util import find_spec
from pathlib import Path
from typing import Any

import pytest

from claim_evidence import claim_fingerprint, dumps_for_script

from ..conftest import ROOT

pytestmark = pytest.mark.browser

webdriver = pytest.importorskip("selenium.webdriver", reason="selenium not installed (pip install -e '.[test]')")

from . import test_browser as chromium  # noqa: E402
from .test_browser import _QuietHandler, _require_browser, _screenshot  # noqa: E402

browser = chromium.browser  # the same fixture: Debian's chromium and chromedriver, with test_browser's flags

GENERATORS = ROOT / "tests" / "data" / "generators"
STYLESHEET = ROOT / "claim_evidence" / "assets" / "claim-evidence.css"
CLAIM = "KUMO-SPEED"
STATEMENT = "速くなった。"  # one short line: the block starts level with the floated line
WIDTHS = [1200, 390]


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A notmyidea site whose article opens with the claim, built with the plugin and served."""
    _require_browser()
    if find_spec("pelican") is None:
        pytest.skip("pelican not installed (pip install -e '.[test]')")
    project = tmp_path_factory.mktemp("pelican") / "project"
    (project / "content" / "assets").mkdir(parents=True)
    shutil.copyfile(STYLESHEET, project / "content" / "assets" / "claim-evidence.css")
    (project / "templates").mkdir()
    (project / "templates" / "article.html").write_text(
        '{% extends "!theme/article.html" %}\n{% block head %}{{ super() }}\n'
        '  <link rel="stylesheet" href="{{ SITEURL }}/assets/claim-evidence.css" />\n{% endblock %}\n',
        encoding="utf-8",
    )
    bundle = json.loads((GENERATORS / "bundle.json").read_text(encoding="utf-8"))
    claim = bundle["claims"][0]
    claim["statement"] = STATEMENT
    claim["verification"]["fingerprint"] = claim_fingerprint(claim, bundle["sources"])
    (project / "content" / "kumo.md").write_text(
        "Title: クモエンジン\nDate: 2024-09-05\nSlug: kumo\n\n"
        f'<p data-claim-id="{CLAIM}">{STATEMENT}</p>\n<div data-evidence-for="{CLAIM}"></div>\n\n'
        "発表の詳細は出典を参照。\n\n"
        f'<script type="application/json" id="claim-evidence-data">\n{dumps_for_script(bundle)}\n</script>\n',
        encoding="utf-8",
    )
    (project / "pelicanconf.py").write_text(
        'SITENAME = "Engines"\nSITEURL = ""\nPATH = "content"\nTIMEZONE = "UTC"\nDEFAULT_LANG = "ja"\n'
        'THEME = "notmyidea"\nTHEME_TEMPLATES_OVERRIDES = ["templates"]\nSTATIC_PATHS = ["assets"]\n'
        'PLUGINS = ["claim_evidence.integrations.pelican"]\n'
        + "".join(
            f"{feed} = None\n"
            for feed in (
                "FEED_ALL_ATOM",
                "CATEGORY_FEED_ATOM",
                "TRANSLATION_FEED_ATOM",
                "AUTHOR_FEED_ATOM",
                "AUTHOR_FEED_RSS",
            )
        ),
        encoding="utf-8",
    )
    done = subprocess.run(
        [sys.executable, "-m", "pelican", "content", "-s", "pelicanconf.py", "-o", "output", "--fatal", "warnings"],
        cwd=project,
        env={**os.environ, "NO_COLOR": "1", "COLUMNS": "1000"},
        capture_output=True,
        text=True,
        check=False,
        timeout=120,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    handler = functools.partial(_QuietHandler, directory=str(project / "output"))
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{httpd.server_address[1]}"
    finally:
        httpd.shutdown()
        httpd.server_close()


_BOXES = """
const box = e => { const r = e.getBoundingClientRect(); return {left: r.left, top: r.top, right: r.right, bottom: r.bottom}; };
const float = document.querySelector('footer.post-info');
return {
  float: box(float), floated: getComputedStyle(float).float,
  block: box(document.querySelector('aside.claim-evidence')),
  claim: box(document.querySelector('[data-claim-id]')),
  text: box(document.querySelector('.entry-content')),
  width: window.innerWidth,
};
"""


@pytest.mark.parametrize("width", WIDTHS)
def test_browser_pelican_notmyidea_block_clears_the_floated_post_info(
    browser: Any, site: str, tmp_path: Path, width: int
) -> None:
    browser.set_window_size(width, 1400)
    browser.get(f"{site}/kumo.html")
    shot = _screenshot(browser, tmp_path / f"notmyidea-{width}.png")
    boxes = browser.execute_script(_BOXES)
    assert boxes["width"] == width, shot
    float_box, block = boxes["float"], boxes["block"]
    # the premise: the float is beside the claim sentence, so the block would start level with it
    assert boxes["floated"] == "right" and boxes["claim"]["bottom"] < float_box["bottom"], (boxes, shot)
    apart = (
        block["right"] <= float_box["left"]
        or float_box["right"] <= block["left"]
        or block["bottom"] <= float_box["top"]
        or float_box["bottom"] <= block["top"]
    )
    assert apart, (boxes, shot)
    text_width = boxes["text"]["right"] - boxes["text"]["left"]
    assert block["right"] - block["left"] >= text_width / 2, (boxes, shot)  # not squeezed beside the float
