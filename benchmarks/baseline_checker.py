"""The existing site's approach to checking its pages: the baseline of issue 17 ("≥ 3× faster").

    .venv/bin/python benchmarks/baseline_checker.py SITE [GLOB]

A straightforward checker as a site would write it with the standard library:
``html.parser`` finds the claim elements, the evidence slots and the bundle script
(offsets from ``getpos``), then each page's bundle is validated with
``validate_bundle``, each claim's visible text compared with its statement and
each slot's content with ``render_evidence``'s block for the claim. It prints
``path: message`` for every problem and exits 1 if there was any, else 0. Not a
reference: it knows nothing of the HTML standard's tree construction (implied
end tags, raw text, templates, foreign content); it is only timed.
"""

from __future__ import annotations

import json
import sys
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

from claim_evidence import normalized_text, render_evidence, validate_bundle

VOID = frozenset("area base br col embed hr img input link meta source track wbr".split())
BUNDLE_ID = "claim-evidence-data"
LANGS = ("ja", "en")


class _Found(HTMLParser):
    """Claim elements (their text), slots (their raw content) and the bundle script (its raw JSON)."""

    def __init__(self, text: str) -> None:
        super().__init__(convert_charrefs=True)
        self.text = text
        self.starts = [0]
        for line in text.splitlines(keepends=True):
            self.starts.append(self.starts[-1] + len(line))
        self.stack: list[tuple[str, int, str, str, list[str]]] = []  # (tag, content start, kind, id, text)
        self.claims: dict[str, list[str]] = {}
        self.slots: dict[str, list[str]] = {}
        self.bundles: list[str] = []
        self.stylesheets: list[str] = []
        self.lang = ""

    def _offset(self) -> int:
        line, column = self.getpos()
        return self.starts[line - 1] + column

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        values = {name: value or "" for name, value in attrs}
        if tag == "html" and not self.lang:
            self.lang = values.get("lang", "")
        if tag == "link" and "stylesheet" in values.get("rel", "").split():
            self.stylesheets.append(values.get("href", ""))
        if tag in VOID:
            return
        start = self._offset() + len(self.get_starttag_text() or "")
        if "data-claim-id" in values:
            kind, cid = "claim", values["data-claim-id"]
        elif "data-evidence-for" in values:
            kind, cid = "slot", values["data-evidence-for"]
        elif tag == "script" and values.get("id") == BUNDLE_ID:
            kind, cid = "bundle", ""
        else:
            kind, cid = "", ""
        self.stack.append((tag, start, kind, cid, []))

    def handle_endtag(self, tag: str) -> None:
        for depth in range(len(self.stack) - 1, -1, -1):
            if self.stack[depth][0] == tag:
                _, start, kind, cid, parts = self.stack[depth]
                if kind == "claim":
                    self.claims.setdefault(cid, []).append("".join(parts))
                elif kind == "slot":
                    self.slots.setdefault(cid, []).append(self.text[start : self._offset()])
                elif kind == "bundle":
                    self.bundles.append(self.text[start : self._offset()])
                del self.stack[depth:]
                return

    def handle_data(self, data: str) -> None:
        if self.stack and self.stack[-1][0] in ("script", "style"):
            return
        for entry in self.stack:
            if entry[2] == "claim":
                entry[4].append(data)


def check_page(text: str, stylesheet: str | None = "/assets/claim-evidence.css") -> list[str]:
    found = _Found(text)
    found.feed(text)
    found.close()
    if not (found.claims or found.slots or found.bundles):
        return []
    if len(found.bundles) != 1:
        return [f"expected one script#{BUNDLE_ID}, found {len(found.bundles)}"]
    try:
        bundle: Any = json.loads(found.bundles[0])
    except ValueError as exc:
        return [f"bundle is not JSON: {exc}"]
    problems = list(validate_bundle(bundle))
    if stylesheet is not None and stylesheet not in found.stylesheets:
        problems.append(f"missing <link rel=stylesheet href={stylesheet}>")
    lang = found.lang.split("-")[0].lower()
    lang = lang if lang in LANGS else "ja"
    for claim in bundle.get("claims", []) if isinstance(bundle, dict) else []:
        cid = claim.get("id") if isinstance(claim, dict) else None
        if not isinstance(cid, str):
            continue
        bodies, slots = found.claims.get(cid, []), found.slots.get(cid, [])
        if len(bodies) != 1 or len(slots) != 1:
            problems.append(
                f"claim {cid}: {len(bodies)} claim elements and {len(slots)} evidence slots, expected one each"
            )
            continue
        if normalized_text(bodies[0]) != normalized_text(claim.get("statement")):
            problems.append(f"claim {cid}: the page's text differs from the statement")
        if slots[0] != render_evidence(bundle, [cid], lang=lang):
            problems.append(f"claim {cid}: evidence display is stale")
    return problems


def main(argv: list[str]) -> int:
    root = Path(argv[0])
    pattern = argv[1] if len(argv) > 1 else "**/*.html"
    failed = False
    for path in sorted(root.glob(pattern)):
        for problem in check_page(path.read_text(encoding="utf-8")):
            print(f"{path}: {problem}")
            failed = True
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
