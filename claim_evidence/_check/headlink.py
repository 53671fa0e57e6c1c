"""``claim add``'s stylesheet link: put in ``<head>`` when the page links no evidence stylesheet, so the
first ``static-helper --write`` after it does not stop at SH130.

Whether the page links one is the page check's own decision (:func:`.stylesheet.links_stylesheet`), and
the href is one that check accepts for this page (:func:`.stylesheet.stylesheet_href`); a page that links
a file of that name elsewhere is refused (SH130 names it), not given a second link. The link goes just
before ``</head>``, on a line of its own indented like the line above when ``</head>`` starts its line;
a page that writes no ``</head>`` (the tag is optional in HTML) is refused with the line to write: where
the head ends there is for the parser to imply, and a guess could put the link in the body.
"""

from __future__ import annotations

import re
from html import escape

from .._core.splice import Edit, newline_style
from .._html.locate import Located, locate
from .._record.authoring import AuthoringError
from .options import PageOptions
from .stylesheet import links_relatively, links_stylesheet, misplaced_stylesheet, stylesheet_href

_HEAD_END = re.compile(r"</head[\s/>]", re.IGNORECASE)
_LINE_INDENT = re.compile(r"[ \t]*")


def stylesheet_link(text: str, located: Located, options: PageOptions, name: str) -> tuple[Edit, str] | None:
    """The edit that links the stylesheet, and the link written; None when the page needs none.

    ``</head>`` is found as text (the tokenizer does not report end tags); one written inside a comment
    or a script is passed over: the link placed before it must be a ``<link>`` the check then finds.
    """
    if links_stylesheet(located.links, options):
        return None
    href = stylesheet_href(options, links_relatively(located))
    assert href is not None  # (links_stylesheet is True when the site checks no link)
    misplaced = misplaced_stylesheet(located, options)
    if misplaced is not None:  # a second link would hide the broken one, or a base_url that is wrong
        element, written, served = misplaced
        raise AuthoringError(
            f'{name} links the evidence stylesheet at line {located.position(element.start)[0]} as href="{written}", '
            f"which points to {served}, not to {stylesheet_href(options, False)}; nothing was written. Fix that href "
            "(or base_url in claim-evidence.toml, if the site is served elsewhere), then run claim add again"
        )
    link = f'<link rel="stylesheet" href="{escape(href)}">'
    found = list(_HEAD_END.finditer(text))
    for match in found:
        edit = _before(text, match.start(), link)
        at, _, inserted = edit
        if links_stylesheet(locate(text[:at] + inserted + text[at:]).links, options):
            return edit, link
    where = "the </head> found is inside a comment or a script" if found else "the page has no </head>"
    raise AuthoringError(
        f"{name} links no evidence stylesheet and {where}, so claim add cannot place the link; nothing was "
        f"written. Write {link} inside the page's <head> (or set stylesheet = false in claim-evidence.toml when "
        "the site ships the evidence CSS in its own stylesheet), then run claim add again"
    )


def _before(text: str, end_tag: int, link: str) -> Edit:
    """``link`` before the ``</head>`` at ``end_tag``: on a line of its own when the tag starts its line."""
    line_start = max(text.rfind("\n", 0, end_tag), text.rfind("\r", 0, end_tag)) + 1
    if text[line_start:end_tag].strip(" \t"):
        return end_tag, end_tag, link
    return line_start, line_start, _indent_above(text, line_start) + link + newline_style(text)


def _indent_above(text: str, line_start: int) -> str:
    """The indentation of the nearest non-blank line above ``line_start`` (the head's last line)."""
    end = line_start
    while end > 0:
        end -= 1
        if text[end] == "\n" and end > 0 and text[end - 1] == "\r":
            end -= 1
        start = max(text.rfind("\n", 0, end), text.rfind("\r", 0, end)) + 1
        if text[start:end].strip():
            match = _LINE_INDENT.match(text, start)
            return match.group() if match else ""
        end = start
    return ""
