"""The display label ``claim add`` gives each new claim: the element's ``data-claim-label``, else the
nearest heading above it (``--label-from heading``), else none (the default label, この主張 / This claim).

A label is what the evidence block and the sources summary ("Relied on by: …") name a claim by, so two
claims with one label read as one: every claim that falls back to the default label is named in a note,
and so is every label two claims would share. Labels are read once, when the record is made; the record
is what the checker reads afterwards (``claim set --label`` changes it), never the attribute.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from .._core.normalize import normalized_text
from .._html.headings import headings
from .._html.locate import Element
from .._html.text import visible_text
from .._record.authoring import AuthoringError
from .._record.vocabulary import TEXT

LABEL_ATTR = "data-claim-label"
LABEL_FROM = ("attribute", "heading")  # --label-from: where a claim without data-claim-label gets one


@dataclass(frozen=True)
class Labels:
    """The label of each new claim (``None``: the default label), the notes about them, and the claims
    a note already names as showing the default label."""

    chosen: dict[str, str | None]
    notes: tuple[str, ...]
    named: tuple[str, ...] = ()


def element_label(element: Element) -> str | None:
    """``data-claim-label`` with its whitespace folded as in a statement; an empty one is none."""
    return normalized_text(element.attrs.get(LABEL_ATTR, "")) or None


def choose_labels(
    text: str,
    elements: Mapping[str, Element | None],
    *,
    name: str,
    label: str | None = None,
    label_from: str = "attribute",
    lang: str = "ja",
) -> Labels:
    """Labels for the claims ``elements`` maps (in order; ``None``: no element, as for a statement given
    by hand). ``label`` (``--label``, one claim) is refused when the element's own label says otherwise:
    which one the editor meant cannot be guessed."""
    if label_from not in LABEL_FROM:
        raise AuthoringError(f"--label-from must be one of {', '.join(LABEL_FROM)} (found {label_from!r})")
    found = headings(text) if label_from == "heading" else []
    chosen: dict[str, str | None] = {}
    for cid, element in elements.items():
        own = element_label(element) if element is not None else None
        if own is not None and label is not None and own != label:
            raise AuthoringError(
                f'claim {cid}: --label "{label}" and data-claim-label="{own}" on its element in {name} disagree; '
                "drop one of them, then run claim add again"
            )
        if own is None and label is None and label_from == "heading" and element is not None:
            own = _heading_above(text, found, element)
        chosen[cid] = own if own is not None else label
    defaulted = [cid for cid, value in chosen.items() if value is None]
    if not defaulted or (len(elements) == 1 and label_from != "heading"):
        return Labels(chosen, ())
    default = TEXT[lang]["default_label"]
    why = "no heading text (h1–h6) above" if label_from == "heading" else f"no {LABEL_ATTR} on"
    note = (
        f"{why} the element of {_claims(defaulted)}: {'it shows' if len(defaulted) == 1 else 'they show'} the "
        f'default label "{default}"; {"give it one" if len(defaulted) == 1 else "give each its own"}: '
        "claim-evidence claim set FILE --claim ID --label TEXT"
    )
    return Labels(chosen, (note,), tuple(defaulted))


def shared_labels(bundle: Any, new: Sequence[str], lang: str, named: Sequence[str] = ()) -> list[str]:
    """A note for each label that a new claim shares with another claim of the bundle (the default
    label counts): the sources summary's "Relied on by" would name both the same way. Claims that all
    are ``named`` already (by :func:`choose_labels`' note on the default label) get no second note."""
    default = TEXT[lang]["default_label"]
    holders: dict[str, list[str]] = {}
    for claim in bundle.get("claims", []) if isinstance(bundle, dict) else []:
        if isinstance(claim, dict) and isinstance(claim.get("id"), str):
            shown = claim.get("label") if isinstance(claim.get("label"), str) and claim.get("label") else default
            holders.setdefault(str(shown), []).append(claim["id"])
    return [
        f'{_claims(ids)} share the label "{shown}": the sources summary\'s "Relied on by" would repeat it; give '
        "each its own: claim-evidence claim set FILE --claim ID --label TEXT"
        for shown, ids in holders.items()
        if len(ids) > 1 and any(cid in new for cid in ids) and not set(ids) <= set(named)
    ]


def _heading_above(text: str, found: list[Element], element: Element) -> str | None:
    """The visible text of the nearest heading that ends before ``element`` starts. An empty one (an
    image) gives none: the heading before it titles another section."""
    for heading in reversed(found):
        if heading.end <= element.start:
            return visible_text(text, heading) or None
    return None


def _claims(ids: Sequence[str]) -> str:
    return ("claim " if len(ids) == 1 else "claims ") + ", ".join(ids)
