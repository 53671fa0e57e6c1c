"""The record of a Hugo page lives in ``data/evidence/NAME.json``: with the recipe's ``sources``, a broken seal
is placed there and SH140's command names it, the command run as printed seals that file, and the rebuilt
site passes. The real ``hugo`` over the recipe's test site (``tests/data/recipes/hugo``)."""

from __future__ import annotations

import re
from pathlib import Path

from ...acceptance.test_recipes import (
    CLAIM,
    HUGO_PAGE,
    TOOLS,
    assert_passes,
    check,
    edit,
    hugo_build,
    hugo_site,  # noqa: F401 - the fixture
    placed,
    run,
)

DATA = "data/evidence/about.json"
HINT = re.compile(r"`claim-evidence review record (\S+) --claim (\S+) --method … --checked-at …`")


def test_sourcemap_hugo_broken_seal_names_the_data_file_and_review_there_passes(hugo_site: Path) -> None:  # noqa: F811
    edit(hugo_site / DATA, '"section": "結果"', '"section": "結果の表"')  # a covered field: the seal breaks
    hugo_build(hugo_site)
    fingerprint = next(
        n
        for n, line in enumerate((hugo_site / DATA).read_text(encoding="utf-8").splitlines(), 1)
        if '"fingerprint"' in line
    )
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
    assert (recorded.returncode, recorded.stdout) == (0, f"{DATA}: review of {CLAIM} recorded\n"), recorded.stderr
    hugo_build(hugo_site)
    assert_passes(hugo_site, "public", HUGO_PAGE)
