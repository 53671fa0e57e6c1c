"""The whole news path on fictional data, end to end, into OUT_DIR.

    python examples/news/pipeline.py OUT_DIR

1. load the correction registry (a bad registry stops here);
2. correct the day's items by URL (inputs are never changed);
3. write the day-file and parse it back (a malformed line stops here);
4. render the Top page and the daily page, each with its data.json,
   and the homepage projection, from the PARSED items;
5. compare every derived copy with the registry and print the result.

Deterministic: the date comes from the items file (or --date), never the clock,
so two runs write identical bytes. Seals in corrections.json are literals
recorded once at review time; nothing here computes or refreshes one.
Exit code: 0 when every registered article passes, 1 otherwise, 2 on bad input.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from claim_evidence import ClaimEvidenceError, Diagnostic, exit_code, report
from claim_evidence.news import (
    apply_article_correction,
    check_derived_outputs,
    daily_page_data,
    homepage_projection,
    load_corrections,
    parse_dayfile,
    render_daily_page,
    render_top_page,
    top_page_data,
    write_dayfile,
    write_json,
    write_text,
)

HERE = Path(__file__).resolve().parent
TOP_N = 15


def run(out: Path, items_path: Path, corrections_path: Path, date: str | None) -> int:
    registry = load_corrections(corrections_path)
    source = json.loads(items_path.read_text(encoding="utf-8"))
    day = date or source["date"]
    corrected = [apply_article_correction(item, registry) for item in source["items"]]

    compact = day.replace("-", "_")
    dayfile = out / f"news_{day}.txt"
    top_dir, daily_dir = out / "top15", out / "daily-news"
    for folder in (out, top_dir, daily_dir):
        folder.mkdir(parents=True, exist_ok=True)
    write_dayfile(corrected, dayfile, day)
    parsed = parse_dayfile(dayfile)
    errors = [d for d in parsed["diagnostics"] if d.is_error]
    if errors:
        print("".join(_line(d) for d in errors), end="")
        return 1
    items = parsed["headlines"]

    write_text(top_dir / "index.html", render_top_page(items, date=day, limit=TOP_N))
    top_data = top_page_data(items, date=day, limit=TOP_N)
    write_json(top_dir / "data.json", top_data)
    write_text(daily_dir / f"auto_daily_report_{compact}.html", render_daily_page(items, date=day))
    write_json(daily_dir / "data.json", daily_page_data(items, date=day))
    write_json(out / "homepage.json", homepage_projection(top_data["items"], date=day, limit=5))

    results = check_derived_outputs(
        registry,
        dayfiles=[dayfile],
        data_json=[top_dir / "data.json", daily_dir / "data.json"],
        homepage_json=out / "homepage.json",
        pages=[top_dir / "index.html", daily_dir / f"auto_daily_report_{compact}.html"],
    )
    print(report(results, noun="target", headers=True), end="")  # as `claim-evidence prepublish` prints it
    return exit_code(results)


def _line(d: Diagnostic) -> str:
    where = f"{d.file}:{d.line}" if d.line is not None else f"{d.file or ''}:{d.path}"
    return f"  {where}: {d.code} {d.message}\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("out_dir", type=Path, help="folder to write the day-file, pages and JSON into")
    parser.add_argument("--items", type=Path, default=HERE / "items.json")
    parser.add_argument("--corrections", type=Path, default=HERE / "corrections.json")
    parser.add_argument("--date", help="YYYY-MM-DD; default: the items file's date")
    args = parser.parse_args(argv)
    try:
        return run(args.out_dir, args.items, args.corrections, args.date)
    except ClaimEvidenceError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return exc.exit_code


if __name__ == "__main__":
    sys.exit(main())
