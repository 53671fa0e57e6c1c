"""Where ``--write`` may write: inside the site, never through a link that leaves it, even in a race.

The policy (README "Where --write writes"): the site is the config's folder, else the folder given, else
the named page's own folder. A page that is a symlink (or lies in a linked folder) resolving inside the
site is written through, the link kept; one resolving outside is checked but never written (CE011, exit 2).
``pages`` globs that leave the config's folder are a config error (SH003).
"""

from __future__ import annotations

import os
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from claim_evidence._check.options import PageOptions
from claim_evidence._core.atomic import REPLACED, atomic_write_bytes, pin
from claim_evidence._core.diagnostics import InputError
from static_helper._write import write_page

ROOT = Path(__file__).resolve().parents[3]
DATA = ROOT / "tests" / "data" / "static"
BEFORE = (DATA / "basic_before.html").read_bytes()
AFTER = (DATA / "basic_after.html").read_bytes()
VICTIM = b"the victim's own bytes\n"


@pytest.fixture
def site(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = tmp_path / "site"
    root.mkdir()
    (tmp_path / "outside").mkdir()
    monkeypatch.chdir(root)
    return root


def _config(site: Path, pages: str = '["*.html", "linked/*.html"]') -> None:
    (site / "claim-evidence.toml").write_text(f"pages = {pages}\nstylesheet = false\n", encoding="utf-8")


def test_write_policy_link_inside_the_site_is_written_through(run_static: Any, site: Path) -> None:
    (site / "real.html").write_bytes(BEFORE)
    (site / "basic.html").symlink_to("real.html")
    code, out, _ = run_static(".", "--write")
    assert code == 0, out
    assert (site / "basic.html").is_symlink() and (site / "real.html").read_bytes() == AFTER


def test_write_policy_link_leaving_the_folder_given_is_refused(run_static: Any, site: Path) -> None:
    victim = site.parent / "outside" / "page.html"
    victim.write_bytes(BEFORE)
    (site / "basic.html").symlink_to(victim)
    code, out, _ = run_static(".", "--write")
    assert code == 2
    assert (
        f"basic.html: CE011 not written: the file lies outside the site ({site}) (it is a symbolic link, or lies in a linked folder, that resolves to {victim})"
        in out
    )
    assert victim.read_bytes() == BEFORE and (site / "basic.html").is_symlink()


def test_write_policy_link_leaving_the_folder_of_a_named_page_is_refused(run_static: Any, site: Path) -> None:
    victim = site.parent / "outside" / "page.html"
    victim.write_bytes(BEFORE)
    (site / "basic.html").symlink_to(victim)
    code, out, _ = run_static("basic.html", "--write")
    assert code == 2 and "CE011 not written" in out
    assert victim.read_bytes() == BEFORE


def test_write_policy_linked_folder_leaving_the_config_folder_is_refused(run_static: Any, site: Path) -> None:
    outside = site.parent / "outside"
    (outside / "basic.html").write_bytes(BEFORE)
    (site / "linked").symlink_to(outside, target_is_directory=True)
    (site / "index.html").write_bytes(BEFORE)
    _config(site)
    code, out, _ = run_static("--write")
    assert code == 2
    assert "linked/basic.html: CE011 not written: the file lies outside the site" in out
    assert (outside / "basic.html").read_bytes() == BEFORE
    assert (site / "index.html").read_bytes() == AFTER  # the rest of the site is written as usual


def test_write_policy_a_link_outside_is_still_checked(run_static: Any, site: Path) -> None:
    """Checking reads, which is harmless: a page served through a link is checked like any other."""
    victim = site.parent / "outside" / "page.html"
    victim.write_bytes(AFTER)
    (site / "basic.html").symlink_to(victim)
    code, out, _ = run_static(".")
    assert code == 0 and out.startswith("PASS basic.html")


@pytest.mark.parametrize("glob", ["../*.html", "../outside/*.html", "a/../../*.html"])
def test_write_policy_pages_glob_leaving_the_config_folder_is_a_config_error(
    run_static: Any, site: Path, glob: str
) -> None:
    (site.parent / "outside" / "page.html").write_bytes(BEFORE)
    _config(site, f'["{glob}"]')
    code, out, err = run_static()
    assert code == 2
    assert f"SH003 pages glob {glob!r} leaves the config's folder ({site})" in out + err


# --- the race: a page swapped for a symlink between the check and the replace -------------------


def test_write_policy_pinned_file_is_not_written_through_a_swapped_link(tmp_path: Path) -> None:
    page = tmp_path / "page.html"
    page.write_bytes(b"old")
    victim = tmp_path / "victim.html"
    victim.write_bytes(VICTIM)
    with pin(page, tmp_path) as pinned:
        assert pinned.read() == b"old"
        page.unlink()
        page.symlink_to(victim)
        with pytest.raises(InputError) as caught:
            pinned.replace(b"attacker text")
    assert caught.value.diagnostic.message == REPLACED
    assert victim.read_bytes() == VICTIM and page.is_symlink()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["page.html", "victim.html"]


def test_write_policy_pinned_folder_is_not_left_when_swapped_for_a_link(tmp_path: Path) -> None:
    site = tmp_path / "site"
    (site / "a").mkdir(parents=True)
    (site / "a" / "page.html").write_bytes(b"old")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "page.html").write_bytes(VICTIM)
    with pin(site / "a" / "page.html", site) as pinned:
        (site / "a").rename(site / "moved")
        (site / "a").symlink_to(elsewhere, target_is_directory=True)
        pinned.replace(b"new")  # into the folder that was pinned, wherever it is now
    assert (elsewhere / "page.html").read_bytes() == VICTIM
    assert (site / "moved" / "page.html").read_bytes() == b"new"


def test_write_policy_pin_refuses_a_folder_link_on_the_way_down(tmp_path: Path) -> None:
    site = tmp_path / "site"
    site.mkdir()
    (tmp_path / "elsewhere").mkdir()
    (tmp_path / "elsewhere" / "page.html").write_bytes(VICTIM)
    (site / "linked").symlink_to(tmp_path / "elsewhere", target_is_directory=True)
    with pytest.raises(InputError) as caught:
        atomic_write_bytes(site / "linked" / "page.html", b"x", root=site)
    assert caught.value.diagnostic.code == "CE011"
    assert (tmp_path / "elsewhere" / "page.html").read_bytes() == VICTIM


def test_write_policy_race_a_swapper_never_gets_a_victim_overwritten(tmp_path: Path) -> None:
    """A thread swaps the page for a symlink to a victim outside the site and back, as fast as it can,
    while ``write_page`` writes the page over and over: the victim is never written (bounded: 4 s)."""
    site = tmp_path / "site"
    site.mkdir()
    page = site / "basic.html"
    victim = tmp_path / "victim.html"
    victim.write_bytes(VICTIM)
    link = site / ".link"
    stop = threading.Event()
    swaps = 0

    def swapper() -> None:
        nonlocal swaps
        while not stop.is_set():
            try:
                os.symlink(victim, link)
                os.replace(link, page)  # the page is now a link to the victim
                time.sleep(0)
                page.unlink()
                page.write_bytes(BEFORE)  # and a page again, with a stale slot to write
                swaps += 1
            except OSError:
                pass

    page.write_bytes(BEFORE)
    thread = threading.Thread(target=swapper, daemon=True)
    thread.start()
    writes = refused = 0
    deadline = time.monotonic() + 4.0
    try:
        while time.monotonic() < deadline and writes + refused < 5000:
            try:
                _, rewritten = write_page(os.fspath(page), PageOptions(stylesheet=None), "basic.html", os.fspath(site))
                writes += bool(rewritten)
            except InputError:
                refused += 1
            assert victim.read_bytes() == VICTIM
    finally:
        stop.set()
        thread.join(5)
    assert swaps > 10 and writes + refused > 10
    assert victim.read_bytes() == VICTIM
    assert not [p for p in site.iterdir() if p.name.startswith(".claim-evidence-tmp-")]
