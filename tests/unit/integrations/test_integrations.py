"""The generator plugins, in real builds: MkDocs, Sphinx and Pelican each build a small site (a Japanese page
with a sealed claim, an English page without evidence) through their own command line, as users run them.

Each build runs in a subprocess: the generators' logging set-up (Pelican's fatal logger class above all)
must not leak into this test session, nor the session's into the build.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import textwrap
from importlib.util import find_spec
from pathlib import Path
from typing import Any

import pytest

from claim_evidence import claim_fingerprint, dumps_for_script, render_evidence
from claim_evidence._check.reviewsign import sign_claim
from claim_evidence._site.config import load_config

from ...signing_support import Keys
from ...signing_support import site as signing_site

DATA = Path(__file__).parents[2] / "data" / "generators"
CLAIM = "KUMO-SPEED"
STATEMENT = "クモエンジンは前世代より処理速度が大幅に向上した。"
EDITED = "クモエンジンは前世代より処理速度が飛躍的に向上した。"
EMPTY_SLOT = f'<div data-evidence-for="{CLAIM}"></div>'
BUILD_DATE = re.compile(r"Build Date UTC : [^\n]*")


def _needs(module: str, extra: str) -> None:
    if find_spec(module) is None:
        pytest.skip(f"{module} is not installed (pip install -e '.[{extra}]')")


def sealed_bundle() -> dict[str, Any]:
    bundle = json.loads((DATA / "bundle.json").read_text(encoding="utf-8"))
    for claim in bundle["claims"]:
        claim["verification"]["fingerprint"] = claim_fingerprint(claim, bundle["sources"])
    return bundle


def _site(
    tmp_path: Path, generator: str, *, edited: bool = False, bundle: dict[str, Any] | None = None
) -> tuple[Path, dict[str, Any]]:
    """The generator's fixture site in ``tmp_path``, its ``@BUNDLE@`` replaced by the sealed records
    (reST indents them under ``.. raw:: html``), or by ``bundle``. ``edited``: the statement changed
    after sealing, on the page and in its record alike, so only the seal is broken."""
    site = tmp_path / generator
    shutil.copytree(DATA / generator, site)
    bundle = bundle or sealed_bundle()
    for page in site.rglob("kumo.*"):
        text = page.read_text(encoding="utf-8")
        indent = text[: text.index("@BUNDLE@")].rpartition("\n")[2]
        text = text.replace(indent + "@BUNDLE@", textwrap.indent(dumps_for_script(bundle), indent))
        if edited:
            assert text.count(STATEMENT) == 2  # the claim element and its record
            text = text.replace(STATEMENT, EDITED)
        page.write_text(text, encoding="utf-8")
    return site, bundle


SIGNER = "編集部"
REVIEWS = '\n[reviews]\nallowed_signers = "allowed_signers"\nshow_signer = true\nrequire_signature = "error"\n'


def _signed_site(keys: Keys, tmp_path: Path, generator: str) -> Path:
    """The generator's fixture site with its claim's review signed by a real key of 編集部, whom the site's
    ``allowed_signers`` trusts; ``[reviews]`` requires signatures and shows the signer."""
    key = keys.make("reviewer")
    allowed = keys.line(SIGNER, key)
    reviews = load_config(signing_site(tmp_path / "signing", allowed)).options.policy.reviews
    signed = sign_claim(sealed_bundle(), 0, str(key), SIGNER, reviews, None)
    site, _ = _site(tmp_path, generator, bundle=signed)
    (site / "allowed_signers").write_text(allowed, encoding="utf-8")
    config = site / "claim-evidence.toml"
    config.write_text(config.read_text(encoding="utf-8") + REVIEWS, encoding="utf-8")
    return site


def _tamper_status(source: Path) -> None:
    """The review's status edited after signing (matched → partial): only the signature is broken."""
    text = source.read_text(encoding="utf-8")
    assert '"status": "matched"' in text
    source.write_text(text.replace('"status": "matched"', '"status": "partial"', 1), encoding="utf-8")


def _run(args: list[str], cwd: Path, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        # NO_COLOR: generators colour their logs when they think a CI log can show it (Sphinx does under CI=true)
        [sys.executable, "-m", *args],
        cwd=cwd,
        env={**os.environ, "NO_COLOR": "1", **(env or {})},
        capture_output=True,
        text=True,
        check=False,
        timeout=120,
    )


def _line_of(source: Path, needle: str) -> int:
    return next(i for i, line in enumerate(source.read_text(encoding="utf-8").splitlines(), 1) if needle in line)


def _filled(plain: str, bundle: dict[str, Any]) -> str:
    """The page the generator built without the plugin, with only the slot filled."""
    assert plain.count(EMPTY_SLOT) == 1
    return plain.replace(EMPTY_SLOT, f'<div data-evidence-for="{CLAIM}">{render_evidence(bundle, [CLAIM])}</div>')


# --- MkDocs ---------------------------------------------------------------------------------------


def _mkdocs(
    site: Path, plugin: str | None, *, strict: bool = False, out: str = "site"
) -> subprocess.CompletedProcess[str]:
    plugins = "plugins: []" if plugin is None else f"plugins:\n  - {plugin}"
    (site / "mkdocs.yml").write_text(
        "site_name: Engines\n"
        "theme:\n  name: mkdocs\n  locale: ja\n"
        "extra_css:\n  - assets/claim-evidence.css\n"
        f"{plugins}\n",
        encoding="utf-8",
    )
    return _run(["mkdocs", "build", "-f", "mkdocs.yml", "-d", out, *(["--strict"] if strict else [])], site)


def _assert_unverified(page: Path) -> None:
    """A broken review never leaves the built page an empty slot: the claim shows 未確認 with the warning."""
    text = page.read_text(encoding="utf-8")
    assert EMPTY_SLOT not in text
    assert '<span class="claim-evidence-status">未確認・根拠未登録</span>' in text
    assert "本文・条件または根拠記録に不整合があるため、照合状態を再確認してください。" in text


def _warnings(done: subprocess.CompletedProcess[str]) -> list[str]:
    return [line for line in done.stderr.splitlines() if not line.startswith("INFO ")]


def test_mkdocs_clean_build_fills_the_slot_and_changes_nothing_else(tmp_path: Path) -> None:
    _needs("mkdocs", "mkdocs")
    site, bundle = _site(tmp_path, "mkdocs")
    plain = _mkdocs(site, None, out="plain")
    assert plain.returncode == 0, plain.stderr
    checked = _mkdocs(site, "claim-evidence", strict=True)
    assert (checked.returncode, _warnings(checked)) == (0, [])
    built = (site / "site" / "kumo" / "index.html").read_text(encoding="utf-8")
    assert built == _filled((site / "plain" / "kumo" / "index.html").read_text(encoding="utf-8"), bundle)
    # the home page ends with MkDocs' build time, the one difference between two builds
    home, plain_home = ((site / out / "index.html").read_text(encoding="utf-8") for out in ("site", "plain"))
    assert BUILD_DATE.sub("", home) == BUILD_DATE.sub("", plain_home)


def test_mkdocs_broken_seal_fails_the_strict_build_naming_the_markdown_line(tmp_path: Path) -> None:
    _needs("mkdocs", "mkdocs")
    site, _ = _site(tmp_path, "mkdocs", edited=True)
    done = _mkdocs(site, "claim-evidence", strict=True)
    assert done.returncode == 1
    line = _line_of(site / "docs" / "kumo.md", '"fingerprint"')  # the record's finding at its JSON line
    assert (
        f"WARNING -  claim-evidence: docs/kumo.md:{line}: CE403 [{CLAIM}] review fingerprint does not match"
        in done.stderr
    )
    assert len(_warnings(done)) == 1  # CE403 alone: the slot was filled (no SH140), nothing refused (no SH150)
    assert "Aborted with 1 warnings in strict mode!" in done.stdout
    _assert_unverified(site / "site" / "kumo" / "index.html")


def test_mkdocs_write_false_leaves_the_slot_empty_and_reports_it_stale(tmp_path: Path) -> None:
    _needs("mkdocs", "mkdocs")
    site, _ = _site(tmp_path, "mkdocs")
    done = _mkdocs(site, "claim-evidence:\n      write: false")
    assert done.returncode == 0, done.stderr  # not --strict: MkDocs reports the warning and builds
    line = _line_of(site / "docs" / "kumo.md", f'data-claim-id="{CLAIM}"')
    assert _warnings(done) == [
        f"WARNING -  claim-evidence: docs/kumo.md:{line}: SH140 [{CLAIM}] evidence display is stale (run --write after reviewing source data)"
    ]
    assert EMPTY_SLOT in (site / "site" / "kumo" / "index.html").read_text(encoding="utf-8")


def test_mkdocs_broken_site_config_stops_the_build_before_it_starts(tmp_path: Path) -> None:
    _needs("mkdocs", "mkdocs")
    site, _ = _site(tmp_path, "mkdocs")
    (site / "claim-evidence.toml").write_text(
        'stylesheet = "/assets/claim-evidence.css"\nlangs = "ja"\n', encoding="utf-8"
    )
    done = _mkdocs(site, "claim-evidence")
    assert done.returncode == 1
    assert "claim-evidence: " in done.stderr and "SH002 unknown key 'langs' (did you mean 'lang'?)" in done.stderr
    assert not (site / "site").exists()


# --- Sphinx ---------------------------------------------------------------------------------------


def _sphinx(
    site: Path, extension: bool, *, strict: bool = False, out: str = "_build", write: bool = True
) -> subprocess.CompletedProcess[str]:
    conf = [
        'project = "Engines"',
        'language = "ja"',
        'html_theme = "alabaster"',
        'html_css_files = ["/assets/claim-evidence.css"]',
    ]
    if extension:
        conf += [
            'extensions = ["claim_evidence.integrations.sphinx"]',
            'claim_evidence_config = "claim-evidence.toml"',
            f"claim_evidence_write = {write}",
        ]
    (site / "conf.py").write_text("\n".join(conf) + "\n", encoding="utf-8")
    return _run(["sphinx", "-q", "-b", "html", *(["-W"] if strict else []), ".", out], site)


def test_sphinx_clean_build_fills_the_slot_and_changes_nothing_else(tmp_path: Path) -> None:
    _needs("sphinx", "sphinx")
    site, bundle = _site(tmp_path, "sphinx")
    plain = _sphinx(site, False, out="_plain")
    assert plain.returncode == 0, plain.stderr
    checked = _sphinx(site, True, strict=True)
    assert (checked.returncode, checked.stderr) == (0, "")
    built = (site / "_build" / "kumo.html").read_text(encoding="utf-8")
    assert built == _filled((site / "_plain" / "kumo.html").read_text(encoding="utf-8"), bundle)
    assert (site / "_build" / "index.html").read_bytes() == (site / "_plain" / "index.html").read_bytes()


def test_sphinx_broken_seal_fails_the_W_build_at_the_rest_line(tmp_path: Path) -> None:
    _needs("sphinx", "sphinx")
    site, _ = _site(tmp_path, "sphinx", edited=True)
    done = _sphinx(site, True, strict=True)
    assert done.returncode == 1
    source = site / "kumo.rst"
    line = _line_of(source, '"fingerprint"')  # the record's finding at its JSON line
    expected = f"{source}:{line}: WARNING: claim-evidence: CE403 [{CLAIM}] review fingerprint does not match current statement/conditions/sources; "
    (warning,) = [w for w in done.stderr.splitlines() if w.startswith(expected)]
    # the slot shows 未確認 and its finding is gone: the CE403 says what to type, on the file as the build names it
    assert f"`claim-evidence review record kumo.rst --claim {CLAIM} --method … --checked-at …`" in warning
    assert warning.endswith(" [claim_evidence.CE403]")
    assert "SH150" not in done.stderr and "SH140" not in done.stderr
    _assert_unverified(site / "_build" / "kumo.html")


def test_sphinx_write_false_leaves_the_slot_empty_and_reports_it_stale(tmp_path: Path) -> None:
    _needs("sphinx", "sphinx")
    site, _ = _site(tmp_path, "sphinx")
    done = _sphinx(site, True, write=False)
    assert done.returncode == 0, done.stderr  # without -W a warning does not fail the build
    source = site / "kumo.rst"
    line = _line_of(source, f'data-claim-id="{CLAIM}"')
    assert done.stderr.splitlines() == [
        f"{source}:{line}: WARNING: claim-evidence: SH140 [{CLAIM}] evidence display is stale (run --write after reviewing source data) [claim_evidence.SH140]"
    ]
    assert EMPTY_SLOT in (site / "_build" / "kumo.html").read_text(encoding="utf-8")


# --- Pelican --------------------------------------------------------------------------------------


def _pelican(
    site: Path, plugin: bool, *, fatal: bool = False, out: str = "output", write: bool = True
) -> subprocess.CompletedProcess[str]:
    conf = [
        'SITENAME = "Engines"',
        'SITEURL = ""',
        'PATH = "content"',
        'TIMEZONE = "UTC"',
        'DEFAULT_LANG = "en"',
        'THEME_TEMPLATES_OVERRIDES = ["templates"]',
        *(
            f"{feed} = None"
            for feed in (
                "FEED_ALL_ATOM",
                "CATEGORY_FEED_ATOM",
                "TRANSLATION_FEED_ATOM",
                "AUTHOR_FEED_ATOM",
                "AUTHOR_FEED_RSS",
            )
        ),
    ]
    if plugin:
        conf += ['PLUGINS = ["claim_evidence.integrations.pelican"]', f"CLAIM_EVIDENCE_WRITE = {write!r}"]
    (site / "pelicanconf.py").write_text("\n".join(conf) + "\n", encoding="utf-8")
    args = ["pelican", "content", "-s", "pelicanconf.py", "-o", out, *(["--fatal", "warnings"] if fatal else [])]
    return _run(args, site, {"COLUMNS": "1000"})  # Pelican's console wraps at the terminal width


def _pages(folder: Path) -> dict[str, bytes]:
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*.html"))}


def test_pelican_clean_build_fills_the_article_and_strips_the_listing_pages_copies(tmp_path: Path) -> None:
    _needs("pelican", "pelican")
    site, bundle = _site(tmp_path, "pelican")
    plain = _pelican(site, False, out="plain")
    assert plain.returncode == 0, plain.stdout + plain.stderr
    checked = _pelican(site, True, fatal=True)
    assert checked.returncode == 0, checked.stdout + checked.stderr
    built, before = _pages(site / "output"), _pages(site / "plain")
    assert built.keys() == before.keys()
    assert built.pop("kumo-ja.html").decode("utf-8") == _filled(before.pop("kumo-ja.html").decode("utf-8"), bundle)
    # index.html and category/misc.html show the newest article in full: its markup is taken out there
    # (test_pelican_listings.py has the whole story), every other page is left as Pelican wrote it
    for listing in ("index.html", "category/misc.html"):
        assert EMPTY_SLOT.encode() in before.pop(listing)
        assert b"data-evidence-for" not in built.pop(listing)
    assert built == before


def test_pelican_broken_seal_fails_the_fatal_warnings_build_naming_the_source(tmp_path: Path) -> None:
    _needs("pelican", "pelican")
    site, _ = _site(tmp_path, "pelican", edited=True)
    done = _pelican(site, True, fatal=True)
    assert done.returncode == 1
    log = " ".join((done.stdout + done.stderr).split())  # Pelican's console wraps long lines
    line = _line_of(site / "content" / "kumo.md", '"fingerprint"')  # the record's finding at its JSON line
    assert f"claim-evidence: content/kumo.md:{line}: CE403 [{CLAIM}] review fingerprint does not match" in log
    assert "SH150" not in log and "SH140" not in log
    _assert_unverified(site / "output" / "kumo-ja.html")


def test_pelican_write_false_leaves_the_slot_empty_and_reports_it_stale(tmp_path: Path) -> None:
    _needs("pelican", "pelican")
    site, _ = _site(tmp_path, "pelican")
    done = _pelican(site, True, write=False)
    assert done.returncode == 0, done.stdout + done.stderr  # without --fatal a warning does not fail the build
    log = " ".join((done.stdout + done.stderr).split())
    line = _line_of(site / "content" / "kumo.md", f'data-claim-id="{CLAIM}"')
    assert f"claim-evidence: content/kumo.md:{line}: SH140 [{CLAIM}] evidence display is stale" in log
    assert EMPTY_SLOT in (site / "output" / "kumo-ja.html").read_text(encoding="utf-8")


def test_pelican_setting_of_the_wrong_type_stops_the_build_before_it_writes(tmp_path: Path) -> None:
    _needs("pelican", "pelican")
    site, _ = _site(tmp_path, "pelican")
    done = _pelican(site, True, write="yes")  # type: ignore[arg-type]
    assert done.returncode == 1
    assert "claim-evidence: CLAIM_EVIDENCE_WRITE must be True or False (found 'yes')" in " ".join(
        done.stdout.split() + done.stderr.split()
    )
    assert not (site / "output").exists()


# --- the core stays free of them ------------------------------------------------------------------


def test_integrations_importing_claim_evidence_loads_no_generator() -> None:
    code = (
        "import sys, claim_evidence, claim_evidence.integrations, claim_evidence.cli, static_helper\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] in ('mkdocs', 'sphinx', 'pelican', 'docutils', 'markdown')))\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)
    assert (done.returncode, done.stdout, done.stderr) == (0, "[]\n", "")
