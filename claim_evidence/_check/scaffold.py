"""``claim add`` on a page: the record from the marked element, and the markup it needs.

The statement is the element's visible text exactly as the page check reads it,
so a fresh claim can never meet SH120; its label comes from the element
(:mod:`.labels`). When the page lacks them, an empty slot is put right after
the element, the bundle script before ``</body>`` and the stylesheet link
before ``</head>`` (:mod:`.headlink`); every other byte stays as it was, and
the result is checked before anything is written: an insertion the check would
reject (a slot inside a paragraph or a link) is refused with what to write by
hand instead.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from .._core.diagnostics import Diagnostic, InputError
from .._core.splice import newline_style, splice
from .._html.locate import BUNDLE_ID, CLAIM_ATTR, SLOT_ATTR, Element, locate
from .._html.text import visible_text
from .._record.authoring import AuthoringError, Change, add_claim, start_bundle
from .headlink import stylesheet_link
from .labels import choose_labels, shared_labels
from .lang import page_lang
from .newfindings import added_errors
from .page import PageOptions, read_page_bundle, replace_bundle

# Findings a new, unreviewed claim is expected to have: its slot is empty until
# `static-helper --write`, it may lack a basis, and other marked elements may
# still wait for their records (SH112). SH130 only where the check and the link
# put in (headlink) could disagree, which the link's own proof rules out: then
# the note says so. Any other new finding refuses the edit.
_EXPECTED = {"SH140", "CE303", "SH130", "SH112"}


# Elements a <div> may directly follow without changing the page's structure: a slot
# after a <span> inside a <p> would close the paragraph early, after an <li> it would sit in the list.
_BLOCKS = frozenset(
    "address article aside blockquote details dialog div dl figure footer h1 h2 h3 h4 h5 h6 header hgroup main "
    "nav ol p pre section table ul".split()
)


@dataclass(frozen=True)
class PageChange:
    """The page text after ``claim add``, the bundle edit, and what was inserted."""

    text: str
    change: Change
    added: tuple[str, ...]


def add_page_claims(
    text: str,
    name: str,
    claim_ids: list[str] | None,
    *,
    label: str | None = None,
    label_from: str = "attribute",
    basis: str | None = None,
    evidence_label: str | None = None,
    options: PageOptions | None = None,
) -> PageChange:
    """Add a record for each claim id (``None``: every bound element without one). ``options``: the
    site's settings for this page (where it is served, the stylesheet href), as ``static-helper`` checks it."""
    options = options or PageOptions()
    located = locate(text)
    bundle = read_page_bundle(text, name).loaded.value if located.scripts else None
    current = start_bundle(bundle)
    registered = {c.get("id") for c in current["claims"] if isinstance(c, dict)}
    bodies: dict[str, list[Element]] = {}
    for element in located.claims:
        bodies.setdefault(element.attrs[CLAIM_ATTR], []).append(element)
    if claim_ids is None:
        claim_ids = [cid for cid in bodies if cid not in registered]
        if not claim_ids:
            return PageChange(text, Change(current, ("every element with data-claim-id already has a record",)), ())
    elif len(claim_ids) == 1 and claim_ids[0] in registered:
        raise AuthoringError(
            f"claim {claim_ids[0]!r} already has a record in {name}; change it with claim-evidence claim set {name} "
            f"--claim {claim_ids[0]} --from-page (its statement read from the element again), or --label, --basis …"
        )
    slots = {e.attrs[SLOT_ATTR] for e in located.slots}
    newline = newline_style(text)
    edits: list[tuple[int, int, str]] = []
    for cid in claim_ids:
        if len(bodies.get(cid, [])) != 1:
            raise AuthoringError(_marking_advice(name, cid, len(bodies.get(cid, []))))
    lang = page_lang(text, options.lang)
    labels = choose_labels(
        text, {cid: bodies[cid][0] for cid in claim_ids}, name=name, label=label, label_from=label_from, lang=lang
    )
    notes: list[str] = list(labels.notes)
    for cid in claim_ids:
        element = bodies[cid][0]
        statement = visible_text(text, element)
        if not statement:
            raise AuthoringError(
                f'the element with data-claim-id="{cid}" in {name} has no visible text to record as the statement'
            )
        change = add_claim(
            current, cid, statement, label=labels.chosen[cid], basis=basis, evidence_label=evidence_label
        )
        current = change.bundle
        notes.extend(n.replace("FILE", name) for n in change.notes)
        if cid not in slots:
            if element.name not in _BLOCKS:
                raise AuthoringError(
                    f'the element with data-claim-id="{cid}" in {name} is a <{element.name}>: a slot right after it would '
                    "change the page's structure (split a paragraph, or stand inside a list or table). Add "
                    f'<div {SLOT_ATTR}="{cid}"></div> by hand where the evidence block may stand (e.g. after the '
                    "paragraph or list), then run claim add again"
                )
            edits.append(
                (element.end, element.end, newline + _indent(text, element.start) + f'<div {SLOT_ATTR}="{cid}"></div>')
            )
    if not located.scripts:
        at = _body_end(text)
        edits.append(
            (at, at, f'<script type="application/json" id="{BUNDLE_ID}">{newline}{{}}{newline}</script>{newline}')
        )
    inserted = bool(edits)  # (every edit so far inserts a slot or the script)
    linked = stylesheet_link(text, located, options, name)
    if linked is not None:
        edits.append(linked[0])
    try:
        new = replace_bundle(splice(text, sorted(edits)), current)
    except InputError:  # the </body> found was inside a comment or script: no single bundle script
        raise AuthoringError(
            f'could not place the bundle script in {name}; add <script type="application/json" id="{BUNDLE_ID}">{{}}'
            "</script> before </body> by hand, then run claim add again"
        ) from None
    findings = _refuse_new_findings(text, new, name, claim_ids, options)
    notes.extend(shared_labels(current, claim_ids, lang, labels.named))
    if linked is not None:
        notes.append(
            f"the evidence stylesheet is linked now, before </head>: {linked[1]}"
            + (
                ""
                if options.stylesheet_configured
                else ' (the default href: set stylesheet = "…" in claim-evidence.toml for your site\'s path)'
            )
        )
    notes.extend(f"the page check will report: {d.message}" for d in findings if d.code == "SH130")
    if inserted:
        notes.append(f"the evidence slot is empty until you run: static-helper --write {name}")
    waiting = [cid for cid in bodies if cid not in registered and cid not in claim_ids]
    if waiting:
        notes.append(
            f"marked elements without a record yet: {', '.join(waiting)} (claim-evidence claim add {name} --all)"
        )
    return PageChange(new, Change(current, tuple(dict.fromkeys(notes))), tuple(claim_ids))


def _marking_advice(name: str, cid: str, found: int) -> str:
    if found == 0:
        return (
            f'{name} has no element with data-claim-id="{cid}": mark the sentence first, '
            f'e.g. <p data-claim-id="{cid}">…</p>, then run claim add again'
        )
    return f'{name} has {found} elements with data-claim-id="{cid}"; a claim binds exactly one: give the others their own ids'


_LINE_INDENT = re.compile(r"[ \t]*")


def _indent(text: str, offset: int) -> str:
    """The indentation of the line ``offset`` is on, so the slot lines up with its element."""
    line_start = max(text.rfind("\n", 0, offset), text.rfind("\r", 0, offset)) + 1
    match = _LINE_INDENT.match(text, line_start)
    return match.group() if match else ""


_END_TAG = {name: re.compile(rf"</{name}[\s/>]", re.IGNORECASE) for name in ("body", "html")}


def _body_end(text: str) -> int:
    """Where the bundle script goes: before the last ``</body>``, else ``</html>``, else at the end.

    HTML parsers ignore where ``</body>`` stands, so the tokenizer does not report
    it; the written tag is found as text, and a tag inside a comment or a script
    is caught afterwards: the page must then locate exactly one bundle script.
    """
    for pattern in _END_TAG.values():
        found = [m.start() for m in pattern.finditer(text)]
        if found:
            return found[-1]
    return len(text)


def _refuse_new_findings(
    before: str, after: str, name: str, claim_ids: list[str], options: PageOptions
) -> list[Diagnostic]:
    """The inserted markup must not cause a finding the page did not have (beyond a new claim's own);
    returns the findings of the page as it will be."""
    # Only where the page is served and its stylesheet come from the site: the rest of the site's policy
    # (quotes, snapshots, review age) is for the review and the gate, not for the markup added here.
    options = PageOptions(
        options.stylesheet, options.lang, options.stylesheet_configured, site=options.site, page=options.page
    )
    added, new = added_errors(before, after, name, options, _EXPECTED)
    if added:
        first = added[0]
        hint = f'<div {SLOT_ATTR}="{claim_ids[0]}"></div>' if len(claim_ids) == 1 else "the slots"
        raise AuthoringError(
            f"adding the markup would make the page fail the check ({first.code} {first.message}); nothing was "
            f"written. Put {hint} by hand where the evidence block may stand (after the paragraph, outside links), "
            "then run claim add again"
        )
    return new
