"""The pages a generator built, checked as ``static-helper`` checks them, and what only the whole build can tell.

What the three plugins share and no generator is needed for: the site's settings, read once per build
(:func:`load_site`: ``claim-evidence.toml``, with the generator's own base URL where the file sets none);
each page's check and the optional re-rendering (``static-helper --write``'s rule: only a page whose one
problem is stale slots is rewritten); the site-level checks of a configured run (:class:`Gate`: SH007,
and each page ``require`` names checked as required, SH160), and the one-line form of a finding. The line
in the source file where a finding's markup was written is the command lines' too:
:func:`claim_evidence._site.sourcemap.source_line`.

A plugin sees the pages one by one as the build writes them, before some of them exist on disk, so the
``pages`` and ``require`` globs are matched against each page's paths (its built file and its source)
rather than expanded over the folder as the command lines expand them.
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Iterable
from dataclasses import dataclass, field
from fnmatch import fnmatchcase
from pathlib import Path
from urllib.parse import urlsplit

from .._check.options import STRIPPED, PageOptions, SiteLayout
from .._check.page import Page
from .._check.rewrite import rewrite, write_findings
from .._core.diagnostics import Diagnostic
from .._core.report import finding_line
from .._record.freshness import at_build
from .._site.config import CONFIG_NAME, at_build_date, load_config, site_path
from .._site.runner import no_evidence

__all__ = ["CONFIG_NAME", "Built", "Gate", "Site", "check_built", "describe", "display_path", "load_site"]


@dataclass
class Built:
    """What the check of one built page came to: the text to publish and every finding to report."""

    page: Page
    text: str  # the page re-rendered when ``write`` allowed it, else exactly as the generator built it
    findings: list[Diagnostic] = field(default_factory=list)
    rewritten: int = 0  # evidence slots re-rendered
    # A write left slots that do not show their records (empty in a fresh build, or out of date): the
    # page must not be published as it is, whatever the build's strictness.
    left_stale: bool = False


def check_built(text: str, name: str, options: PageOptions, write: bool) -> Built:
    """Check ``text`` (a built page) and, with ``write``, re-render its stale slots exactly when
    ``static-helper --write`` would: the page has no other error. Otherwise the page stays as built
    and its findings say why (``SH150`` names the errors to fix first). The rule is the command line's
    (:mod:`claim_evidence._check.rewrite`); only a failed proof differs: the page is published as built,
    with SH009 among its findings, where the command line fails the page."""
    done = rewrite(text, name, options, write)
    found = write_findings(done.page, name, done.rewritten, write)
    if done.failure is not None:  # the rewrite failed its own proof: a bug, reported, nothing written
        found.append(Diagnostic("SH009", str(done.failure), file=name))
    left_stale = write and done.left_stale  # without write the plugin only checks: its slots stay as built
    return Built(done.page, text if done.text is None else done.text, found, done.rewritten, left_stale)


@dataclass(frozen=True)
class Site:
    """A build's settings, read once before its first page: the page options (the generator's base URL
    applied), the folder the globs are relative to, and the config as site-level findings name it."""

    options: PageOptions
    root: Path  # claim-evidence.toml's folder, else the generator's project folder
    config: str  # claim-evidence.toml as shown (relative to the working folder), else the generator's config
    pages: tuple[str, ...] = ()  # globs of the pages that count as registered (SH007); none: every page
    require: tuple[str, ...] = ()  # globs of the pages that must carry evidence markup (SH160)
    exclude: tuple[str, ...] = ()  # globs of the files (or folders) that are no page of the site: never checked


def load_site(
    path: str | os.PathLike[str] | None, project: str | os.PathLike[str], base: str | None, generator_config: str
) -> Site:
    """The site of the ``claim-evidence.toml`` at ``path`` (:class:`InputError` when it does not load), or
    the defaults without one (``project``: the generator's folder; ``generator_config`` names its config
    file). ``base``: the generator's own URL of the site (MkDocs ``site_url``, Sphinx ``html_baseurl``,
    Pelican ``SITEURL``): its path is where the site is served, unless the file sets ``base_url``, which
    wins. A ``[freshness]`` policy is dated as a build dates it: ``SOURCE_DATE_EPOCH``, else the clock
    (generators have no ``--today``; they honour ``SOURCE_DATE_EPOCH`` too)."""
    served = served_path(base)
    if path is None:
        options = PageOptions(freshness=at_build(None, None))
        root = Path(os.path.abspath(project))
        if served != "/":  # relative hrefs resolve from the pages' places under it, as in a configured site
            options = dataclasses.replace(options, site=SiteLayout(os.fspath(root), base_url=served))
        return Site(options, root, generator_config)
    config = at_build_date(load_config(path), None)
    options = config.options
    if "base_url" not in config.keys and options.site is not None:
        options = dataclasses.replace(options, site=dataclasses.replace(options.site, base_url=served))
    shown = display_path(config.path or path, os.getcwd())
    return Site(options, config.root, shown, config.pages, config.require, config.exclude)


def served_path(url: str | None) -> str:
    """The path part of a generator's site URL, ending in ``/`` (``https://example.com/sub`` → ``/sub/``);
    ``/`` for none, or for a relative one (Pelican's ``SITEURL = ""`` or ``"."``)."""
    try:
        path = urlsplit(url or "").path
    except ValueError:  # a URL urllib cannot read: the generator's own checks say so
        return "/"
    return path.rstrip("/") + "/" if path.startswith("/") else "/"


class Gate:
    """One build's pages, checked as the build writes them, and what only the whole build can tell.

    :meth:`check` checks a page, required when a ``require`` glob matches its built file or its source,
    and leaves alone a page an ``exclude`` glob matches (exclude wins, as in a configured run);
    :meth:`findings` is what a run over a config's pages adds at its end: each glob that matched no page
    of the build, or only excluded ones (SH004), each required page that ``pages`` does not register
    (SH008) and, when no registered page carried evidence markup, SH007. :attr:`left_stale` names the
    pages a write left with slots that do not show their records."""

    def __init__(self, site: Site, write: bool) -> None:
        self.site = site
        self.write = write
        self.checked = 0  # registered pages checked
        self.marked = 0  # of them, pages with evidence markup
        self.stripped = 0  # of them, pages without it that show a generator's trace of dropped raw HTML
        self.left_stale: list[str] = []
        self._patterns = {key: [(p, _parts(p)) for p in getattr(site, key)] for key in ("pages", "require")}
        self._exclude = [_parts(p) for p in site.exclude]
        self._matched: set[tuple[str, str]] = set()
        self._loose: list[tuple[str, str]] = []  # (page, require glob) of required pages pages does not register

    def check(self, text: str, name: str, served: str, files: Iterable[str | os.PathLike[str]]) -> Built:
        """Check the page ``text`` (``name``: as findings name it; ``served``: its path under the output
        folder, POSIX, from which relative stylesheet hrefs resolve), built from ``files`` (its built file
        and its sources: any of them may be what a glob names)."""
        patterns = self._patterns["pages"] or self._patterns["require"] or self._exclude
        names = [n for n in (site_path(self.site.root, Path(f)) for f in files) if n is not None] if patterns else []
        if any(_excluded(parts, tuple(n.split("/"))) for parts in self._exclude for n in names):
            return Built(check_built(text, name, self.site.options, False).page, text)  # no page of the site
        required = self._matches("require", names)
        registered = self._matches("pages", names) if self.site.pages else True
        if required and not registered:
            self._loose.append((name, next(p for p, parts in self._patterns["require"] if _any_match(parts, names))))
        built = check_built(
            text, name, dataclasses.replace(self.site.options, page=served, required=required), self.write
        )
        if registered:
            self.checked += 1
            if built.page.has_markup:
                self.marked += 1
            elif any(d.code == STRIPPED for d in built.page.diagnostics):
                self.stripped += 1
        if built.left_stale:
            self.left_stale.append(name)
        return built

    def _matches(self, key: str, names: list[str]) -> bool:
        found = False
        for pattern, parts in self._patterns[key]:
            if _any_match(parts, names):
                self._matched.add((key, pattern))
                found = True
        return found

    def findings(self) -> list[Diagnostic]:
        """The build's own findings, on the config: a ``pages`` or ``require`` glob that matched no page
        (a mistyped glob must not turn the check off), a required page that ``pages`` leaves out (it would
        escape SH007's count), and SH007 when the registered pages carry no evidence markup at all."""
        found = [
            Diagnostic(
                "SH004",
                f"{key} glob {pattern!r} matches no page of this build that exclude keeps (neither its built file "
                f"nor its source, relative to {self.site.root}): correct the glob, or take it out of {CONFIG_NAME}",
                subject="config",
                file=self.site.config,
            )
            for key, patterns in self._patterns.items()
            for pattern, _ in patterns
            if (key, pattern) not in self._matched
        ]
        if self._loose:
            page, pattern = self._loose[0]
            more = f" (and {len(self._loose) - 1} more)" if len(self._loose) > 1 else ""
            found.append(
                Diagnostic(
                    "SH008",
                    f"require glob {pattern!r} matches {page}{more}, which pages does not register: a page that must "
                    "carry evidence must be checked as a registered page; add it to pages",
                    subject="config",
                    file=self.site.config,
                )
            )
        if self.checked and not self.marked:
            found.append(no_evidence(self.site.config, self.checked, self.stripped))
        return found

    def refusal(self) -> str | None:
        """Why the build must stop, in one paragraph, when a page would be published with slots that do not
        show their records; None when none would."""
        if not self.left_stale:
            return None
        count = len(self.left_stale)
        pages = f"{count} page{'' if count == 1 else 's'} ({', '.join(self.left_stale)})"
        return (
            f"claim-evidence: the build failed: {pages} came out with evidence slots that do not show their records "
            "(empty, or out of date); published, they would show readers a claim without its evidence. The findings "
            "above say why the slots were not filled (SH150 names the errors to fix first): fix them and build again"
        )


def _parts(pattern: str) -> tuple[str, ...]:
    return tuple(p for p in pattern.replace("\\", "/").split("/") if p not in ("", "."))


def _any_match(pattern: tuple[str, ...], names: list[str]) -> bool:
    return any(_glob_matches(pattern, tuple(n.split("/"))) for n in names)


def _excluded(pattern: tuple[str, ...], path: tuple[str, ...]) -> bool:
    """An ``exclude`` glob matches the path or a folder it lies in (``layouts`` and ``layouts/**`` alike),
    as :class:`claim_evidence._site.config.GlobMatch` reads it for a configured run."""
    return any(_glob_matches(pattern, path[:i]) for i in range(1, len(path) + 1))


def _glob_matches(pattern: tuple[str, ...], path: tuple[str, ...]) -> bool:
    """``path`` (its parts) matched by a glob's parts as ``pathlib`` globs it: ``*``, ``?`` and ``[…]``
    within one name, ``**`` any number of folders."""
    if not pattern:
        return not path
    if pattern[0] == "**":
        return any(_glob_matches(pattern[1:], path[i:]) for i in range(len(path) + 1))
    return bool(path) and fnmatchcase(path[0], pattern[0]) and _glob_matches(pattern[1:], path[1:])


def display_path(path: str | os.PathLike[str], base: str | os.PathLike[str]) -> str:
    """``path`` relative to ``base`` when it lies inside it (POSIX separators), else as given."""
    try:
        return Path(os.path.abspath(path)).relative_to(os.path.abspath(base)).as_posix()
    except ValueError:
        return os.fspath(path)


def describe(d: Diagnostic, where: str | None = None) -> str:
    """``claim-evidence: WHERE: CODE [ID] message``, worded as ``static-helper`` words a finding
    (a warning or note says so at the end); without ``where`` when the generator places it."""
    return f"claim-evidence: {finding_line(d, where)}"
