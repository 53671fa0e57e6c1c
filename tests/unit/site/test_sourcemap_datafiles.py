"""The record of a Hugo or Jekyll page lives in a data file (``data/evidence/NAME.json``, ``_data/evidence/…``):
with the recipe's ``sources``, a broken seal is placed there and SH140's command names it, the command run as
printed seals that file, and the rebuilt site passes. The real ``hugo`` and ``jekyll`` over the recipes' test
sites (``tests/data/recipes/``)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from ...acceptance.test_recipes import (
    CLAIM,
    ELEVENTY,
    ELEVENTY_PAGE,
    HUGO_PAGE,
    JEKYLL_PAGE,
    TOOLS,
    assert_passes,
    check,
    edit,
    eleventy_site,  # noqa: F401 - the fixture
    hugo_build,
    hugo_site,  # noqa: F401 - the fixture
    jekyll_site,  # noqa: F401 - the fixture
    placed,
    run,
)

DATA = "data/evidence/about.json"
SECTION = ('"section": "結果"', '"section": "結果の表"')  # a covered field: the seal breaks
HINT = re.compile(r"`claim-evidence review record (\S+) --claim (\S+) --method … --checked-at …`")


def test_sourcemap_hugo_broken_seal_names_the_data_file_and_review_there_passes(hugo_site: Path) -> None:  # noqa: F811
    edit(hugo_site / DATA, *SECTION)
    hugo_build(hugo_site)
    fingerprint = _line_of(hugo_site / DATA, '"fingerprint"')
    helper, gate = check(hugo_site, "public")
    for report in (helper, gate):
        assert report.returncode == 1, report.stdout + report.stderr
        at, written = placed(report.stdout, f"CE403 [{CLAIM}] ")
        assert at.startswith(f"public/{HUGO_PAGE}:") and written == f"    written at {DATA}:{fingerprint}", (
            report.stdout
        )
        assert HINT.findall(report.stdout) == [(DATA, CLAIM)], report.stdout
        assert "review record public/" not in report.stdout
    recorded = run(
        [TOOLS / "claim-evidence", "review", "record", DATA, "--claim", CLAIM]
        + ["--method", "human_document_review", "--checked-at", "2026-09-03"],
        hugo_site,
    )
    assert recorded.returncode == 0, recorded.stderr
    assert recorded.stdout.endswith(f"\n{DATA}: review of {CLAIM} recorded\n"), recorded.stdout  # after its diff
    hugo_build(hugo_site)
    assert_passes(hugo_site, "public", HUGO_PAGE)


def _line_of(path: Path, needle: str) -> int:
    return next(n for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1) if needle in line)


@pytest.mark.parametrize(
    ("fixture", "build", "page"),
    [("jekyll_site", ["jekyll", "build"], JEKYLL_PAGE), ("eleventy_site", [ELEVENTY], ELEVENTY_PAGE)],
)
def test_sourcemap_broken_seal_names_the_data_file_from_the_build_and_the_gate(
    request: pytest.FixtureRequest, fixture: str, build: list[str | Path], page: str
) -> None:
    """The build's own check (Jekyll's post_write hook, Eleventy's eleventy.after) runs in _site/ and names
    the data file from there; the gate, from the root. `review record` on it, and the rebuilt site passes."""
    root: Path = request.getfixturevalue(fixture)
    data = "_data/evidence/about.json"
    edit(root / data, *SECTION)
    fingerprint = _line_of(root / data, '"fingerprint"')
    built = run(build, root)
    assert built.returncode == 1, built.stdout + built.stderr
    assert placed(built.stdout, f"CE403 [{CLAIM}] ")[1] == f"    written at ../{data}:{fingerprint}", built.stdout
    assert HINT.findall(built.stdout) == [(f"../{data}", CLAIM)], built.stdout
    helper, gate = check(root, "_site")
    for report in (helper, gate):
        assert placed(report.stdout, f"CE403 [{CLAIM}] ")[1] == f"    written at {data}:{fingerprint}"
        assert HINT.findall(report.stdout) == [(data, CLAIM)], report.stdout
    recorded = run(
        [TOOLS / "claim-evidence", "review", "record", data, "--claim", CLAIM]
        + ["--method", "human_document_review", "--checked-at", "2026-09-03"],
        root,
    )
    assert recorded.returncode == 0, recorded.stderr
    rebuilt = run(build, root)
    assert rebuilt.returncode == 0, rebuilt.stdout + rebuilt.stderr
    assert_passes(root, "_site", page)
