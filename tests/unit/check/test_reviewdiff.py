"""``review diff``'s pieces: the character diff, and each field's lines (the command: tests/unit/cli/test_review.py)."""

from __future__ import annotations

from claim_evidence._check.reviewdiff import CHANGED, ReviewDiff, char_diff, diff_lines
from claim_evidence._check.sealdiff import FieldChange


def test_reviewdiff_char_diff_marks_deleted_and_inserted_characters() -> None:
    assert char_diff("達成率72.6%", "達成率72.7%") == "達成率72.[-6-]{+7+}%"
    assert char_diff("結果", "結果と付録") == "結果{+と付録+}"
    assert char_diff("abc", "") == "[-abc-]"
    assert char_diff("same", "same") == "same"


def test_reviewdiff_char_diff_joins_changes_split_by_a_letter_or_two() -> None:
    assert char_diff("fictional-report", "moved") == "[-fictional-report-]{+moved+}"
    assert char_diff("the old value here", "the new value here") == "the [-old-]{+new+} value here"


def test_reviewdiff_lines_escape_what_a_terminal_would_act_on() -> None:
    change = FieldChange("uncertainty", "a", "a\x1b[31m")
    [head, title, old, new, diff, then] = diff_lines(ReviewDiff("b.json", "c", CHANGED, (change,), "commit 0"))
    assert (title, old, new) == ("  uncertainty:", '    - "a"', '    + "a\\u001b[31m"')
    assert diff == '    ~ "a{+\\u001b[31m+}"' and "\x1b" not in "".join([head, diff, then])
