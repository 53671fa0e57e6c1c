"""``claim add`` on a Markdown or reST source: the record from the element the file marks, and the bundle
script when the file has none yet.

The page's counterpart is :mod:`.scaffold`; a source is not a page, so nothing here checks it as one: the
generator builds the page, and its plugin or recipe checks that. The statement is the marked element's text
as the page check reads the built element (raw HTML passes through Markdown and ``.. raw:: html`` as
written), so a fresh claim matches its sentence. The only markup written is the bundle script, at the end
of a file that has none: raw HTML in Markdown, a ``.. raw:: html`` directive in reST, where the generators'
guides put it. The element and its slot are the editor's to write, where the sentence is.
"""

from __future__ import annotations

import os
from typing import Any

from .._core.jsonio import dumps_for_script
from .._core.splice import newline_style, with_newlines
from .._html.locate import BUNDLE_ID, CLAIM_ATTR, SLOT_ATTR, Element, locate
from .._html.text import visible_text
from .._record.authoring import AuthoringError, Change, add_claim, start_bundle
from .documents import MARKDOWN_SUFFIXES, REST_SUFFIXES
from .labels import choose_labels, shared_labels
from .page import read_page_bundle

OPEN_TAG = f'<script type="application/json" id="{BUNDLE_ID}">'


def add_source_claims(
    text: str,
    name: str,
    bundle: Any,
    claim_ids: list[str] | None,
    statement: str | None = None,
    lang: str = "ja",
    **fields: str | None,
) -> Change:
    """``bundle`` (``None``: the file has no script yet) with a claim for each id (``None``: every element the
    file marks without a record), its statement the element's text unless ``statement`` is given; ``fields``
    are :func:`add_claim`'s ``label``, ``basis`` and ``evidence_label``. A label is the element's
    ``data-claim-label`` when it has one (:mod:`.labels`); ``lang`` is the built pages' (the default label's)."""
    located = locate(text)
    marked: dict[str, list[Element]] = {}
    for element in located.claims:
        marked.setdefault(str(element.attrs[CLAIM_ATTR]), []).append(element)
    change = Change(start_bundle(bundle))
    if claim_ids is None:
        known = {c.get("id") for c in change.bundle["claims"] if isinstance(c, dict)}
        claim_ids = [cid for cid in marked if cid not in known]
        if not claim_ids:
            return Change(change.bundle, ("every element with data-claim-id already has a record",))
    for cid in claim_ids:
        found = marked.get(cid, [])
        if statement is None and len(found) != 1:
            where = "no element" if not found else f"{len(found)} elements"
            raise AuthoringError(
                f"{name}: {where} with data-claim-id={cid!r} in this file to read the statement from; "
                f'mark the sentence in raw HTML (<p data-claim-id="{cid}">…</p>), or give --statement TEXT'
            )
    elements = {cid: marked[cid][0] if len(marked.get(cid, [])) == 1 else None for cid in claim_ids}
    labels = choose_labels(text, elements, name=name, label=fields.pop("label", None), lang=lang)
    slots = {str(e.attrs[SLOT_ATTR]) for e in located.slots}
    notes: list[str] = list(labels.notes)
    for cid in claim_ids:
        bound = elements[cid]
        read = statement if statement is not None or bound is None else visible_text(text, bound)
        change = add_claim(change.bundle, cid, read or "", label=labels.chosen[cid], **fields)  # type: ignore[arg-type]
        notes.extend(change.notes)
        if cid not in slots:
            notes.append(
                f'write its evidence slot after the sentence, in raw HTML: <div data-evidence-for="{cid}"></div>'
            )
    notes.extend(shared_labels(change.bundle, claim_ids, lang, labels.named))
    return Change(change.bundle, tuple(notes))


def has_bundle_script(text: str) -> bool:
    """Whether ``text`` holds a bundle script (one or more: :func:`.page.read_page_bundle` refuses two)."""
    return bool(locate(text).scripts)


def with_bundle_script(text: str, name: str, bundle: Any) -> str:
    """``text`` with a bundle script holding ``bundle`` added at its end, every other byte as it was: raw
    HTML in Markdown, inside ``.. raw:: html`` (every line indented 3 spaces) in reST. Any other kind of
    file is refused: where a script may go there (MDX reads ``{`` as code) is for its guide to say."""
    lower = os.fspath(name).lower()
    json_text = dumps_for_script(bundle)
    if lower.endswith(MARKDOWN_SUFFIXES):
        block = f"{OPEN_TAG}\n{json_text}\n</script>\n"
    elif lower.endswith(REST_SUFFIXES):
        inner = f"{OPEN_TAG}\n{json_text}\n</script>".replace("\n", "\n   ")
        block = f".. raw:: html\n\n   {inner}\n"
    else:
        raise AuthoringError(
            f"{name} holds no evidence bundle, and claim add writes one only into Markdown (.md) or reST (.rst): "
            f'write the script where the guide says: {OPEN_TAG}{{"version": 1, "sources": [], "claims": []}}</script>'
        )
    newline = newline_style(text)
    gap = "" if not text else newline if text.endswith(("\n", "\r")) else newline * 2
    new = text + gap + with_newlines(block, newline)
    if read_page_bundle(new, name).loaded.value != bundle:  # the script must read back as written
        raise AuthoringError(f"{name}: the bundle script added at its end would not read back; write it by hand")
    return new
