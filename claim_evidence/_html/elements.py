"""The element categories of the HTML standard's tree construction, and the keys of the open-elements index.

The sets say which elements are void, raw text or RCDATA, special, formatting, scope boundaries,
implicitly ended, closed by a table part and so on. They are one module because the tokenizer
(:mod:`.tokenizer`), the tree builder (:mod:`.treebuilder`) and the fast scan (:mod:`.fastscan`) ask the
same questions of them, and the tests hold the fast scan to the builder through them.
"""

from __future__ import annotations

VOID = frozenset(
    "area base basefont bgsound br col embed frame hr img input keygen link meta param source track wbr".split()
)
RAWTEXT = frozenset("script style xmp iframe noembed noframes".split())
RCDATA = frozenset("textarea title".split())
HEADINGS = frozenset("h1 h2 h3 h4 h5 h6".split())
CLOSES_P = frozenset(
    "address article aside blockquote center details dialog dir div dl fieldset figcaption figure footer form "
    "header hgroup hr main menu nav ol p pre listing search section summary table ul li dd dt plaintext xmp "
    "h1 h2 h3 h4 h5 h6".split()
)
SPECIAL = frozenset(
    "address applet area article aside base basefont bgsound blockquote body br button caption center col "
    "colgroup dd details dir div dl dt embed fieldset figcaption figure footer form frame frameset h1 h2 h3 h4 "
    "h5 h6 head header hgroup hr html iframe img input keygen li link listing main marquee menu meta nav "
    "noembed noframes noscript object ol p param plaintext pre script search section select source style "
    "summary table tbody td template textarea tfoot th thead title tr track ul wbr xmp "
    "svg:foreignobject svg:desc svg:title math:mi math:mo math:mn math:ms math:mtext math:annotation-xml".split()
)
IMPLIED_END = frozenset("dd dt li optgroup option p rb rp rt rtc".split())
FORMATTING = frozenset("a b big code em font i nobr s small strike strong tt u".split())
_INTEGRATION = frozenset(
    "svg:foreignobject svg:desc svg:title math:mi math:mo math:mn math:ms math:mtext math:annotation-xml".split()
)
_MATH_TEXT = frozenset("math:mi math:mo math:mn math:ms math:mtext".split())  # mglyph/malignmark stay MathML there
SCOPE = frozenset("applet caption html table td th marquee object template".split()) | _INTEGRATION
TABLE_SCOPE = frozenset("html table template".split())
_BUTTON_SCOPE = SCOPE | {"button"}
_LIST_SCOPE = SCOPE | {"ol", "ul"}
# End tags that close only when an element of that name is in scope (else ignored).
_SCOPED_END: dict[str, frozenset[str]] = {
    name: SCOPE
    for name in (
        "address article aside blockquote button center details dialog dir div dl fieldset figcaption figure "
        "footer header hgroup listing main menu nav ol pre search section summary ul form dd dt applet marquee "
        "object select"
    ).split()
}
_SCOPED_END.update({"p": _BUTTON_SCOPE, "li": _LIST_SCOPE})
_SCOPED_END.update({name: TABLE_SCOPE for name in "table tbody tfoot thead tr td th caption colgroup".split()})
_TABLE_CLOSES: dict[str, frozenset[str]] = {
    "td": frozenset({"td", "th"}),
    "th": frozenset({"td", "th"}),
    "tr": frozenset({"td", "th", "tr"}),
    "tbody": frozenset({"td", "th", "tr", "tbody", "thead", "tfoot"}),
    "thead": frozenset({"td", "th", "tr", "tbody", "thead", "tfoot"}),
    "tfoot": frozenset({"td", "th", "tr", "tbody", "thead", "tfoot"}),
    "caption": frozenset({"td", "th", "tr", "tbody", "thead", "tfoot", "caption", "colgroup"}),
    "colgroup": frozenset({"td", "th", "tr", "tbody", "thead", "tfoot", "caption", "colgroup"}),
}
_BREAKOUT = frozenset(
    "b big blockquote body br center code dd div dl dt em embed h1 h2 h3 h4 h5 h6 head hr i img li listing "
    "menu meta nobr ol p pre ruby s small span strong strike sub sup table tt u ul var".split()
)
_IGNORED_END = frozenset({"body", "html", "br", "head"})
_TABLE_PARTS = frozenset("caption table tbody tfoot thead tr td th".split())
_CLOSES_SELECT = frozenset({"select", "input", "textarea"}) | _TABLE_PARTS
# The list of active formatting elements gets a marker when one of these is pushed, and is cleared back to
# the last marker when a cell, caption or template is closed, or an applet, marquee or object by its own end
# tag (else its marker stays); only <a> entries are kept between markers (the block's links meet them).
MARKERS = frozenset("applet caption marquee object td th template".split())
_OWN_END_CLEARS = frozenset({"applet", "marquee", "object"})
_TRACKED = MARKERS | {"a", "math:annotation-xml"}

# The stack of open elements is indexed so that every question the builder asks of it ("is an X in scope",
# "the nearest special element", "the lowest cell above the table") is answered from the tops of a few
# lists instead of a walk down the stack: a walk per tag made nested pages quadratic (25,000 nested <div>
# took 9 s). Each open element at stack position p >= 1 is listed under its name and under every class it
# belongs to ("#scope" …; no tag name starts with "#"); position 0, the context, is never listed (no
# search ever looked at it).
_CLASSES: tuple[tuple[str, frozenset[str]], ...] = (
    ("#scope", SCOPE),
    ("#table", TABLE_SCOPE),
    ("#button", _BUTTON_SCOPE),
    ("#list", _LIST_SCOPE),
    ("#special", SPECIAL),
    ("#listop", SPECIAL - {"address", "div", "p"}),  # where the search for an open li, dd or dt stops
    ("#heading", HEADINGS),
)
_BOUNDARY_KEYS: dict[frozenset[str], str] = {
    SCOPE: "#scope",
    TABLE_SCOPE: "#table",
    _BUTTON_SCOPE: "#button",
    _LIST_SCOPE: "#list",
}
_SCOPED_END_KEY: dict[str, str] = {name: _BOUNDARY_KEYS[boundary] for name, boundary in _SCOPED_END.items()}
_KEYS: dict[str, tuple[str, ...]] = {}
_KEYS_MAX = 4096


def index_keys(name: str) -> tuple[str, ...]:
    """The keys an open element named ``name`` is listed under: its name, its classes, ``#foreign`` (SVG
    and MathML elements) or ``#html``, and ``#colon`` for any name with a colon."""
    keys = _KEYS.get(name)
    if keys is None:
        found = [name, *(key for key, members in _CLASSES if name in members)]
        found.append("#foreign" if name.startswith(("svg:", "math:")) else "#html")
        if ":" in name:
            found.append("#colon")
        if len(_KEYS) >= _KEYS_MAX:
            _KEYS.clear()
        keys = _KEYS[name] = tuple(found)
    return keys
