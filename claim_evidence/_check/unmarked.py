"""A page without evidence markup: what its check reports, read without the checker.

Such a page passes unless ``require`` names it (SH160) or its generator left a trace of raw HTML it
dropped, where evidence markup written in Markdown would have been (SH161). The page check reports this
(:func:`.page.check_located`), and so does a run for a page whose text holds no evidence keyword at all
(``_site.runner``): most pages of a site, which need neither the tree builder nor the checker loaded.
"""

from __future__ import annotations

from dataclasses import dataclass

from .._core.diagnostics import Diagnostic, Severity
from .._html.locate import Located
from .options import STRIPPED, PageOptions

REQUIRED = "SH160"
REQUIRED_MARKUP = (
    "this page must carry evidence markup (require in claim-evidence.toml names it) but has none: no claim element, "
    "evidence slot or bundle script; restore it (did the site generator drop it?), or take the page out of require"
)


@dataclass(frozen=True)
class StrippedMarker:
    """What a site generator writes where it dropped raw HTML, and the setting that keeps it."""

    text: str
    generator: str
    fix: str


# Markers of raw HTML a generator left out of a page (evidence markup written in Markdown is raw HTML).
STRIPPED_MARKERS = (
    StrippedMarker(
        "<!-- raw HTML omitted -->",
        "Hugo",
        "set markup.goldmark.renderer.unsafe = true in Hugo's config ([markup.goldmark.renderer] unsafe = true in "
        "hugo.toml), rebuild the site and check again",
    ),
)


def unmarked_findings(located: Located, name: str | None, options: PageOptions) -> list[Diagnostic]:
    """The findings of a page without evidence markup (``located``: its location, which found none): a
    failure when ``require`` names it, and a generator's trace of raw HTML it dropped (an error on a
    required page, else a warning: the page may need none)."""
    found = []
    required = options.required
    if required:
        found.append(Diagnostic(REQUIRED, REQUIRED_MARKUP, subject="page", file=name))
    text = located.text
    for marker in STRIPPED_MARKERS:
        at = text.find(marker.text)
        if at < 0:
            continue
        count = text.count(marker.text)
        times = "once" if count == 1 else f"{count} times"
        message = (
            f"the site generator dropped raw HTML from this page: {marker.text} ({times} here) is what {marker.generator} "
            "writes in place of HTML written in Markdown, so evidence markup written there never reaches the page; "
            + marker.fix
        )
        severity: Severity = "error" if required else "warning"
        line, column = located.position(at)
        found.append(
            Diagnostic(STRIPPED, message, severity=severity, subject="page", file=name, line=line, column=column)
        )
    return found
