"""The evidence block inside real themes, in headless Chromium (the browser of tests/acceptance/test_browser.py):
MkDocs Material, Sphinx furo and Pelican notmyidea, each built by its generator with the plugin from one page
of tests/data/themes/, and the hand-written example site. Each is looked at in light, in dark as the theme's
own toggle sets it, in dark as the OS setting asks for it (Chromium's ``prefers-color-scheme`` emulation),
at a desktop width and at 390 px.

What a theme's CSS does to the evidence block and to the "sources this page relies on" block is measured,
not guessed: the disclosure line, the headings and the paragraphs start at the block's content edge
(Material's ``[dir=ltr] .md-typeset summary`` indents the line 40 px, furo pads every heading), the
disclosure focused from the keyboard shows its own ring and no theme's shadow, a link in
the block has the colour of a link in the theme's text, every piece of text in the block has a contrast of
at least 4.5:1 against what is drawn behind it (and axe-core agrees, where it is installed), nothing of the
block sticks out of it or out of the viewport, and no other content of the page is drawn over its box.
Every case leaves two screenshots (PNG), named in its failure message, in
``<pytest's basetemp>/theme-screenshots/`` (``pytest --basetemp=DIR`` keeps them in DIR).
"""

from __future__ import annotations

import functools
import http.server
import json
import os
import shutil
import subprocess
import sys
import textwrap
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from importlib.util import find_spec
from pathlib import Path
from typing import Any

import pytest

from claim_evidence import claim_fingerprint, dumps_for_script

from ..conftest import ROOT

pytestmark = pytest.mark.browser

webdriver = pytest.importorskip("selenium.webdriver", reason="selenium not installed (pip install -e '.[test]')")
from selenium.webdriver.support.ui import WebDriverWait  # noqa: E402

from . import test_browser as chromium  # noqa: E402
from .test_browser import AXE, _axe, _QuietHandler, _require_browser  # noqa: E402

browser = chromium.browser  # the same fixture: Debian's chromium and chromedriver, with test_browser's flags

THEMES = ROOT / "tests" / "data" / "themes"
BUNDLE = ROOT / "tests" / "data" / "generators" / "bundle.json"
STYLESHEET = ROOT / "claim_evidence" / "assets" / "claim-evidence.css"
WAIT = 30  # seconds a condition may take to hold (a slow machine), never a measured duration
CLAIM = "KUMO-SPEED"
TEXT_LINK = 'a[href="https://example.com/kumo/"]'  # the link in the text after the block (tests/data/themes)
BLOCKS = {"block": f"#evidence-{CLAIM}", "sources": "section.claim-evidence-summary"}  # what is looked at
AXE_CONTRAST = "{runOnly: ['color-contrast']}"
WIDTHS = {"desktop": (1280, 1000, False), "390px": (390, 844, True)}  # width, height, mobile
MIN_CONTRAST = 4.5  # WCAG 2 AA for body text


@dataclass(frozen=True)
class Site:
    name: str
    url: str  # the page with the block, as served on 127.0.0.1
    outside_link: str  # a CSS selector for a link of the theme's text, outside every evidence block
    dark_by_os: bool  # the theme turns dark when the OS setting asks for it
    toggle: str | None  # JavaScript clicking the theme's own dark toggle (None: the theme has none)


def _run(args: list[str], cwd: Path) -> None:
    # NO_MKDOCS_2_WARNING: Material's banner about MkDocs 2.0 on every build
    env = {**os.environ, "NO_COLOR": "1", "NO_MKDOCS_2_WARNING": "1", "COLUMNS": "1000"}
    done = subprocess.run(
        [sys.executable, "-m", *args], cwd=cwd, env=env, capture_output=True, text=True, check=False, timeout=180
    )
    assert done.returncode == 0, done.stdout + done.stderr


def _page(source: str, indent: str = "") -> str:
    """A page of tests/data/themes with its ``@BUNDLE@`` replaced by the sealed records."""
    bundle = json.loads(BUNDLE.read_text(encoding="utf-8"))
    for claim in bundle["claims"]:
        claim["verification"]["fingerprint"] = claim_fingerprint(claim, bundle["sources"])
    text = (THEMES / source).read_text(encoding="utf-8")
    return text.replace(indent + "@BUNDLE@", textwrap.indent(dumps_for_script(bundle), indent))


def _serve(folder: Path) -> Iterator[str]:
    """``folder`` on a loopback HTTP server, for as long as the generator is looked at."""
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(_QuietHandler, directory=str(folder)))
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{httpd.server_address[1]}"
    finally:
        httpd.shutdown()
        httpd.server_close()


def _needs(module: str, package: str) -> None:
    _require_browser()
    if find_spec(module) is None:
        pytest.skip(f"{package} not installed (pip install -e '.[test]')")


MATERIAL_CONFIG = """\
site_name: Engines
theme:
  name: material
  language: ja
  font: false  # no Google Fonts: the test fetches nothing but the loopback server
  palette:  # the OS setting chooses the scheme, the header's toggle switches it
    - media: "(prefers-color-scheme: light)"
      scheme: default
      toggle: {icon: material/brightness-7, name: ダークモードへ}
    - media: "(prefers-color-scheme: dark)"
      scheme: slate
      toggle: {icon: material/brightness-4, name: ライトモードへ}
extra_css:
  - assets/claim-evidence.css
plugins:
  - claim-evidence
"""


@pytest.fixture(scope="module")
def material(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Site]:
    _needs("material", "mkdocs-material")
    project = tmp_path_factory.mktemp("material")
    (project / "docs" / "assets").mkdir(parents=True)
    shutil.copyfile(STYLESHEET, project / "docs" / "assets" / "claim-evidence.css")
    (project / "docs" / "index.md").write_text("# クモエンジン\n\n" + _page("page.md"), encoding="utf-8")
    (project / "mkdocs.yml").write_text(MATERIAL_CONFIG, encoding="utf-8")
    (project / "claim-evidence.toml").write_text('stylesheet = "/assets/claim-evidence.css"\n', encoding="utf-8")
    _run(["mkdocs", "build", "--strict"], project)
    for url in _serve(project / "site"):
        yield Site(
            "material",
            url + "/",
            f"article {TEXT_LINK}",
            dark_by_os=True,
            toggle="[...document.querySelectorAll('form[data-md-component=palette] label')]"
            ".find(l => l.offsetParent !== null).click()",
        )


@pytest.fixture(scope="module")
def furo(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Site]:
    _needs("furo", "furo")
    project = tmp_path_factory.mktemp("furo")
    (project / "index.rst").write_text(_page("page.rst", "   "), encoding="utf-8")
    (project / "conf.py").write_text(
        'project = "Engines"\nlanguage = "ja"\nhtml_theme = "furo"\n'
        'html_css_files = ["/assets/claim-evidence.css"]\nextensions = ["claim_evidence.integrations.sphinx"]\n',
        encoding="utf-8",
    )
    _run(["sphinx", "-q", "-W", "-b", "html", ".", "_build"], project)
    (project / "_build" / "assets").mkdir()
    shutil.copyfile(STYLESHEET, project / "_build" / "assets" / "claim-evidence.css")
    for url in _serve(project / "_build"):
        yield Site(
            "furo",
            url + "/index.html",
            f"article {TEXT_LINK}",
            dark_by_os=True,
            toggle="[...document.querySelectorAll('button.theme-toggle')].find(b => b.offsetParent !== null).click()",
        )


@pytest.fixture(scope="module")
def notmyidea(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Site]:
    _needs("pelican", "pelican")
    project = tmp_path_factory.mktemp("notmyidea")
    (project / "content").mkdir()
    (project / "content" / "kumo.md").write_text(
        "Title: クモエンジン\nDate: 2024-09-05\nCategory: エンジン\nSlug: kumo\nLang: ja\n"
        "Summary: クモ社は新しいエンジンを発表した。\n\n" + _page("page.md"),
        encoding="utf-8",
    )
    (project / "templates").mkdir()
    (project / "templates" / "article.html").write_text(
        '{% extends "!theme/article.html" %}\n{% block extra_head %}{{ super() }}\n'
        '  <link rel="stylesheet" href="{{ SITEURL }}/assets/claim-evidence.css" />\n{% endblock %}\n',
        encoding="utf-8",
    )
    (project / "pelicanconf.py").write_text(
        'SITENAME = "Engines"\nSITEURL = ""\nPATH = "content"\nTIMEZONE = "UTC"\nDEFAULT_LANG = "ja"\n'
        'THEME_TEMPLATES_OVERRIDES = ["templates"]\nPLUGINS = ["claim_evidence.integrations.pelican"]\n'
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
    (project / "claim-evidence.toml").write_text('stylesheet = "/assets/claim-evidence.css"\n', encoding="utf-8")
    _run(["pelican", "content", "-s", "pelicanconf.py", "-o", "output", "--fatal", "warnings"], project)
    (project / "output" / "assets").mkdir()
    shutil.copyfile(STYLESHEET, project / "output" / "assets" / "claim-evidence.css")
    for url in _serve(project / "output"):
        # notmyidea has one scheme, light: under a dark OS setting the page, and the block, stay light.
        yield Site("notmyidea", url + "/kumo.html", f"#content {TEXT_LINK}", False, None)


@pytest.fixture(scope="module")
def example(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Site]:
    """The hand-written example site as it is in the repository (its stylesheet the packaged one: test_cli)."""
    _require_browser()
    for url in _serve(ROOT / "examples" / "site"):
        yield Site(
            "example",
            url + "/articles/kumo-engine-3.html",
            ".site-header nav a",
            dark_by_os=True,
            toggle=None,
        )


class Overlap(AssertionError):
    """Other content drawn over the block's box: raised apart from the block's other problems."""


SITES = ("material", "furo", "notmyidea", "example")
MODES = ("light", "dark-toggle", "dark-os")  # dark-toggle: the theme's own toggle, with the OS setting light


def _cases() -> Iterator[Any]:
    for site in SITES:
        for mode in MODES:
            for width in WIDTHS:
                if mode == "dark-toggle" and site in ("notmyidea", "example"):
                    continue  # no toggle of their own
                yield pytest.param(site, mode, width, id=f"{site}-{mode}-{width}")


@pytest.fixture(scope="module")
def shots(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.getbasetemp() / "theme-screenshots"
    folder.mkdir(exist_ok=True)
    return folder


def _load(browser: Any, site: Site, mode: str, width: str) -> None:
    """A fresh load of the site's page as the mode asks: the OS setting emulated, the theme's stored choice
    (Material and furo keep it in localStorage) cleared, the dark toggle clicked when the mode says so."""
    wide, high, mobile = WIDTHS[width]
    browser.execute_cdp_cmd(
        "Emulation.setDeviceMetricsOverride", {"width": wide, "height": high, "deviceScaleFactor": 1, "mobile": mobile}
    )
    scheme = "dark" if mode == "dark-os" else "light"
    browser.execute_cdp_cmd(
        "Emulation.setEmulatedMedia", {"features": [{"name": "prefers-color-scheme", "value": scheme}]}
    )
    browser.get(site.url)
    browser.execute_script("localStorage.clear(); sessionStorage.clear()")
    browser.get(site.url)
    _until(browser, "document.readyState === 'complete'", site.name)
    if mode == "dark-toggle":
        assert site.toggle is not None
        browser.execute_script(site.toggle)
    expected = mode == "dark-toggle" or (mode == "dark-os" and site.dark_by_os)
    _until(browser, DARK if expected else f"!({DARK})", f"{site.name} {mode}")
    # Measure the settled page: web fonts loaded (notmyidea's), the schemes' colour transitions over.
    _until(browser, SETTLED, f"{site.name} {mode}")


SETTLED = "document.fonts.status === 'loaded' && document.getAnimations().every(a => a.playState !== 'running')"


# True when the page shows a dark scheme: the body's background (else the root's) is dark. The same test for
# every theme, whatever attribute its toggle sets (Material's data-md-color-scheme, furo's data-theme).
DARK = """(() => {
  const paint = e => getComputedStyle(e).backgroundColor;
  const css = paint(document.body) === 'rgba(0, 0, 0, 0)' ? paint(document.documentElement) : paint(document.body);
  const [r, g, b] = css.match(/[\\d.]+/g).map(Number);
  return 0.2126 * r + 0.7152 * g + 0.0722 * b < 80;
})()"""


def _until(browser: Any, script: str, what: str) -> None:
    WebDriverWait(browser, WAIT).until(
        lambda b: b.execute_script(f"return !!({script})"), f"never true: {script} ({what})"
    )


MEASURE = """
const [selector, outsideLink] = arguments;
const block = document.querySelector(selector);
block.querySelectorAll('details').forEach(d => d.open = true);
block.scrollIntoView({block: 'center'});
const px = v => parseFloat(v) || 0;
const box = e => { const r = e.getBoundingClientRect(); return {left: r.left, right: r.right, top: r.top, bottom: r.bottom}; };
const contentLeft = e => { const s = getComputedStyle(e); return e.getBoundingClientRect().left + px(s.borderLeftWidth) + px(s.paddingLeft); };
const chain = (e, f) => { const out = []; for (; e; e = e.parentElement) out.push(f(getComputedStyle(e))); return out; };
const summary = block.querySelector('summary');
const b = box(block);
const meets = q => q.width > 0 && q.height > 0 && q.left < b.right - 0.5 && q.right > b.left + 0.5 && q.top < b.bottom - 0.5 && q.bottom > b.top + 0.5;
const fixed = e => { for (; e; e = e.parentElement) { const p = getComputedStyle(e).position; if (p === 'fixed' || p === 'sticky') return true; } return false; };
const shown = e => e.checkVisibility({checkOpacity: true, checkVisibilityCSS: true});
const name = e => e.tagName.toLowerCase() + (e.id ? '#' + e.id : '') + (e.className && typeof e.className === 'string' ? '.' + e.className.trim().split(/\\s+/).join('.') : '');
const paint = el => ({text: el.textContent.trim().slice(0, 30), where: name(el), color: getComputedStyle(el).color,
                      opacity: chain(el, s => s.opacity), backgrounds: chain(el, s => s.backgroundColor)});
// Text of the block: each text node's colour, and the opacity and background of it and every ancestor.
const texts = [];
const overlaps = [];
const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
while (walker.nextNode()) {
  const node = walker.currentNode, el = node.parentElement;
  if (!node.textContent.trim() || !shown(el)) continue;
  if (block.contains(node)) {
    texts.push(paint(el));
  } else if (!fixed(el)) {
    const range = document.createRange(); range.selectNodeContents(node);
    if ([...range.getClientRects()].some(meets)) overlaps.push(name(el) + ': ' + node.textContent.trim().slice(0, 30));
  }
}
// Boxes drawn beside the text flow (floats) and replaced content, outside the block and not holding it.
for (const el of document.body.querySelectorAll('*')) {
  if (block.contains(el) || el.contains(block) || !shown(el) || fixed(el)) continue;
  const s = getComputedStyle(el);
  if ((s.float !== 'none' || /^(img|svg|video|iframe|input|button|select|textarea)$/i.test(el.tagName)) && meets(el.getBoundingClientRect()))
    overlaps.push(name(el) + ' (' + (s.float !== 'none' ? 'float' : 'box') + ')');
}
const outside = [...block.querySelectorAll('*')].filter(e => shown(e)).filter(e => {
  const r = e.getBoundingClientRect(); return r.width > 0 && (r.left < b.left - 0.5 || r.right > b.right + 0.5);
}).map(name);
const link = block.querySelector('a'), other = document.querySelector(outsideLink);
const root = document.documentElement;
// The disclosure focused from the keyboard: its own ring, and no theme's shadow around the details.
let focus = null;
if (summary) {
  summary.focus({preventScroll: true});
  focus = {matches: summary.matches(':focus-visible'), outline: getComputedStyle(summary).outlineStyle,
           shadow: getComputedStyle(summary.parentElement).boxShadow};
  summary.blur();
}
return {
  focus: focus,
  block: b,
  content_left: contentLeft(block),
  // Where the text of each heading and paragraph of the block starts (lists and the disclosure have a marker first).
  text_lefts: Object.fromEntries([...block.children].filter(e => shown(e) && !/^(ul|ol|details)$/i.test(e.tagName)).map(e => {
    const range = document.createRange(); range.selectNodeContents(e); return [name(e), range.getClientRects()[0].left];
  })),
  disclosure: summary && {
    summary_left: summary.getBoundingClientRect().left,
    summary_content_left: contentLeft(summary),
    details_left: summary.parentElement.getBoundingClientRect().left,
  },
  link: getComputedStyle(link).color,
  outside_link: other && getComputedStyle(other).color,
  outside_paint: other && paint(other),
  texts: texts,
  overlaps: overlaps,
  outside: outside,
  viewport: root.clientWidth,
  scroll_width: root.scrollWidth,
};
"""


def _rgba(css: str) -> tuple[float, float, float, float]:
    """A computed colour as Chromium serializes it (``rgb()``, ``rgba()``, or ``color(srgb …)`` for a
    ``color-mix()``) as red, green, blue in 0–255 and alpha in 0–1."""
    if css.startswith("color(srgb "):
        values, _, alpha = css[len("color(srgb ") : -1].partition("/")
        red, green, blue = (float(v) * 255 for v in values.split())
        return red, green, blue, float(alpha) if alpha else 1.0
    if css.startswith(("rgb(", "rgba(")):
        parts = [float(v) for v in css[css.index("(") + 1 : -1].replace("/", ",").split(",")]
        return parts[0], parts[1], parts[2], parts[3] if len(parts) == 4 else 1.0
    raise AssertionError(f"a colour this test cannot read: {css!r}")


def _over(top: tuple[float, float, float, float], below: tuple[float, float, float]) -> tuple[float, float, float]:
    red, green, blue, alpha = top
    return (
        red * alpha + below[0] * (1 - alpha),
        green * alpha + below[1] * (1 - alpha),
        blue * alpha + below[2] * (1 - alpha),
    )


def _luminance(rgb: tuple[float, float, float]) -> float:
    linear = [c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4 for c in (v / 255 for v in rgb)]
    return 0.2126 * linear[0] + 0.7152 * linear[1] + 0.0722 * linear[2]


def _contrast(text: dict[str, Any]) -> float:
    """The WCAG contrast of one text node against what is drawn behind it: every background from the root
    down to its element painted over the canvas (white), and its colour over that, made fainter by the
    opacity of its element and every ancestor."""
    behind = (255.0, 255.0, 255.0)
    for background in reversed(text["backgrounds"]):
        behind = _over(_rgba(background), behind)
    red, green, blue, alpha = _rgba(text["color"])
    for opacity in text["opacity"]:
        alpha *= float(opacity)
    lighter, darker = sorted((_luminance(_over((red, green, blue, alpha), behind)), _luminance(behind)), reverse=True)
    return (lighter + 0.05) / (darker + 0.05)


def _press_tab(browser: Any) -> None:
    """A real Tab key press through the DevTools protocol. Chromium shows ``:focus-visible`` for an element
    a script focuses only when the last input came from the keyboard (Chromium 150 no longer does when
    there was no input at all), so MEASURE's focus then reads as a keyboard user's."""
    for kind in ("keyDown", "keyUp"):
        browser.execute_cdp_cmd(
            "Input.dispatchKeyEvent", {"type": kind, "key": "Tab", "code": "Tab", "windowsVirtualKeyCode": 9}
        )


def _problems(found: dict[str, Any]) -> dict[str, Any]:
    """What is wrong with one block as measured, by what it breaks (empty: it fits)."""
    problems: dict[str, Any] = {}
    # The disclosure line starts where the block's text does, not indented by a theme's <summary> padding.
    if found["disclosure"] is not None:
        edges = {k: round(v - found["content_left"], 2) for k, v in found["disclosure"].items()}
        if any(abs(v) >= 0.5 for v in edges.values()):
            problems["disclosure off the block's content edge (px)"] = edges
    # Its headings and paragraphs start there too (furo pads every heading by 0.5rem).
    texts = {k: round(v - found["content_left"], 2) for k, v in found["text_lefts"].items()}
    if any(abs(v) >= 0.5 for v in texts.values()):
        problems["text off the block's content edge (px)"] = texts
    focus = found["focus"]
    if focus is not None and (not focus["matches"] or focus["outline"] == "none" or focus["shadow"] != "none"):
        problems["focused disclosure (Material's details:focus-within draws a shadow)"] = focus
    # A link in the block is a link of the theme: the colour of the theme's links in the text.
    if found["outside_link"] is None or found["link"] != found["outside_link"]:
        problems["link colour (block, text)"] = (found["link"], found["outside_link"])
    # Every text of the block reads against what is behind it, in light and in dark.
    low = [(t["where"], t["text"], round(_contrast(t), 2)) for t in found["texts"] if _contrast(t) < MIN_CONTRAST]
    if low or not found["texts"]:
        theirs = found["outside_paint"] and round(_contrast(found["outside_paint"]), 2)
        problems[f"contrast below {MIN_CONTRAST} (the theme's link outside the block: {theirs})"] = low
    # Nothing sticks out: not out of the block, not out of the viewport (no sideways scrolling at 390 px).
    if found["outside"]:
        problems["out of the block"] = found["outside"]
    if found["block"]["left"] < 0 or found["block"]["right"] > found["viewport"]:
        problems["block out of the viewport"] = (found["block"], found["viewport"])
    if found["scroll_width"] > found["viewport"]:
        problems["page scrolls sideways (scroll width, viewport)"] = (found["scroll_width"], found["viewport"])
    return problems


@pytest.mark.parametrize("site_name, mode, width", list(_cases()))
def test_browser_theme_block_fits(
    browser: Any, request: pytest.FixtureRequest, shots: Path, site_name: str, mode: str, width: str
) -> None:
    """The evidence block and the sources summary of one theme's page, in one scheme, at one width."""
    site: Site = request.getfixturevalue(site_name)
    found, contrast = {}, {}
    try:
        _load(browser, site, mode, width)
        for name, selector in BLOCKS.items():
            _press_tab(browser)  # the last input is the keyboard's: a script's focus then shows as keyboard focus
            found[name] = browser.execute_script(MEASURE, selector, site.outside_link)
            browser.save_screenshot(str(shots / f"{site_name}-{mode}-{width}-{name}.png"))
            if AXE.exists():  # axe-core's own reading of the same contrast, where it is installed
                contrast[name] = _axe(browser, f"document.querySelector({json.dumps(selector)})", AXE_CONTRAST)
    finally:
        browser.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})
        browser.execute_cdp_cmd("Emulation.setEmulatedMedia", {"features": []})
    where = f"{site_name} {mode} {width} (screenshots: {shots}/{site_name}-{mode}-{width}-*.png)"
    problems = {name: _problems(measured) for name, measured in found.items()}
    assert problems == dict.fromkeys(BLOCKS, {}), where
    assert contrast == ({name: [] for name in BLOCKS} if AXE.exists() else {}), where
    # No other content is drawn over a block's box (a floated line beside it, text running under it).
    overlaps = {name: measured["overlaps"] for name, measured in found.items() if measured["overlaps"]}
    if overlaps:
        raise Overlap(f"{overlaps} drawn over the blocks: {where}")
