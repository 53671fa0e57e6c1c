"""What an edit to a page's markup newly breaks: counted by code and subject, so a finding that only
moved to another line is not new, and the codes the edit explains never count."""

from __future__ import annotations

from claim_evidence._check.newfindings import added_errors
from claim_evidence._check.page import PageOptions, check_text

BUNDLE = '<script type="application/json" id="claim-evidence-data">{"version": 1, "sources": [], "claims": []}</script>'
PAGE = (
    '<!DOCTYPE html><html><body>\n<p data-claim-id="x">x</p><div data-evidence-for="x"></div>\n'
    f"{BUNDLE}\n</body></html>"
)


def _errors(text: str) -> list[tuple[str, str, str]]:
    return [(d.code, d.subject, d.message) for d in check_text(text, "p.html", PageOptions()).diagnostics if d.is_error]


def test_newfindings_a_finding_whose_words_changed_is_not_new() -> None:
    """The same finding on the same subject with other words (a message may quote the text, name a line) is
    the one the page had: only a new code or subject counts."""
    record = '{"version": 1, "sources": [], "claims": [{"id": "x", "statement": "The sky is blue."}]}'
    before = PAGE.replace('{"version": 1, "sources": [], "claims": []}', record).replace(
        ">x</p>", ">The sky is red.</p>"
    )
    after = before.replace("red", "green")
    old, new = (sorted(e for e in _errors(t) if e[0] == "SH120") for t in (before, after))
    assert [e[:2] for e in old] == [e[:2] for e in new] == [("SH120", "claim x")] and old != new
    added, found = added_errors(before, after, "p.html", PageOptions(), ())
    assert added == []
    assert found == check_text(after, "p.html", PageOptions()).diagnostics


def test_newfindings_a_new_error_counts_unless_expected() -> None:
    broken = PAGE.replace('<div data-evidence-for="x"></div>', '<a href="/"><div data-evidence-for="x"></div>')
    added, _ = added_errors(PAGE, broken, "p.html", PageOptions(), ())
    assert [d.code for d in added] == ["SH116"]
    assert added_errors(PAGE, broken, "p.html", PageOptions(), {"SH116"})[0] == []
