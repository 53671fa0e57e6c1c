"""The package's own evidence templates escape in ``finalize`` alone (no autoescape): the bytes must be
autoescape's, which a site's ``template_dir`` holding the same templates still renders with."""

from __future__ import annotations

import copy
import random
from pathlib import Path
from typing import Any

import pytest

from claim_evidence import render_evidence
from claim_evidence._render.summary import render_summary
from claim_evidence._render.templating import _escape_output, template_environment

PACKAGED = str(Path(__import__("claim_evidence").__file__).parent / "templates")
# Values a record may hold where the templates print text: markup, quotes, entities, bidi controls and
# right-to-left text (the isolate filter), and values of the wrong type (printed as the legacy renderer did).
HOSTILE: list[Any] = [
    "<script>alert('x')</script>",
    "a \"quoted\" & <b>bold</b> 'single'",
    "&amp; &lt; already escaped",
    "\u202eevil override",
    "עברית <i>",
    "مرحبا & 1",
    "plain",
    "",
    0,
    1,
    12.5,
    True,
    False,
    None,
    [],
    ["<a>"],
    {"k": "<v>"},
]
FIELDS = [
    ("claims", "label"),
    ("claims", "statement"),
    ("claims", "evidence_label"),
    ("claims", "uncertainty"),
    ("claims", "as_of"),
    ("claims", "id"),
    ("sources", "publisher"),
    ("sources", "title"),
    ("sources", "url"),
    ("sources", "published_at"),
]


def _both(bundle: dict[str, Any], lang: str = "ja") -> tuple[str, str]:
    return render_evidence(bundle, lang=lang), render_evidence(bundle, lang=lang, template_dir=PACKAGED)


def test_escape_output_packaged_environment_has_no_autoescape() -> None:
    assert template_environment(None).autoescape is False
    assert template_environment(PACKAGED).autoescape is True
    assert template_environment(None, compact=False).autoescape is True


@pytest.mark.parametrize("value", HOSTILE, ids=repr)
@pytest.mark.parametrize(("where", "field"), FIELDS)
def test_escape_output_same_bytes_as_autoescape(bundle: dict[str, Any], where: str, field: str, value: Any) -> None:
    bundle[where][0][field] = copy.deepcopy(value)
    fast, reference = _both(bundle)
    assert fast == reference


def test_escape_output_random_records_same_bytes(bundle: dict[str, Any]) -> None:
    rng = random.Random(32)
    alphabet = "<>&\"' aあ\u202e\u2067ש\u0627\n\t;=/#"
    for _ in range(60):
        case = copy.deepcopy(bundle)
        for where, field in rng.sample(FIELDS, 4):
            case[where][0][field] = "".join(rng.choice(alphabet) for _ in range(rng.randrange(12)))
        case["claims"][0]["conditions"] = ["".join(rng.choice(alphabet) for _ in range(5)), rng.choice(HOSTILE)]
        for lang in ("ja", "en"):
            fast, reference = _both(case, lang)
            assert fast == reference
            order = [c["id"] for c in case["claims"] if isinstance(c.get("id"), str)]
            assert render_summary(case, order, invalid=False, lang=lang) == render_summary(
                case, order, invalid=False, lang=lang, template_dir=PACKAGED
            )


def test_escape_output_malformed_block_same_bytes() -> None:
    assert render_evidence([1]) == render_evidence([1], template_dir=PACKAGED)


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("<a href='x'>&", "&lt;a href=&#x27;x&#x27;&gt;&amp;"),
        ('"', "&quot;"),
        (None, "None"),
        (3, "3"),
        (["<a>"], "[&#39;&lt;a&gt;&#39;]"),  # as autoescape spells what is not a string
    ],
)
def test_escape_output_spelling(value: Any, expected: str) -> None:
    assert str(_escape_output(value)) == expected
