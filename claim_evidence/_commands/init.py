"""``claim-evidence init``: a starter ``claim-evidence.toml`` for a site, guessed from its pages,
or, in a site generator's project, the one that generator's guide gives (``generators.GENERATORS``).

A new user's first step, so it must never destroy anything: an existing config is refused, an
existing stylesheet is left alone, and what is written is proved before it is written (the globs
match exactly the pages found, with the same ``Path.glob`` the checks use; the text parses back).
Everything is derived from the folder's files alone: no clock, no network, the same bytes twice.
A generator's project is set up its guide's way, never the plain way: registering its templates and
putting the stylesheet where the build does not copy it is what a plain ``init`` did to a Hugo site.
"""

from __future__ import annotations

import glob
import json
import os
import tomllib
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

from .._check.options import DEFAULT_STYLESHEET
from .._core.atomic import atomic_write_bytes
from .._core.diagnostics import InputError
from .._core.errors import InitError
from .._core.textio import read_text
from .._html.lang import html_lang, primary_subtag
from .._record.vocabulary import LOCALES
from .._site.config import CONFIG_NAME, Config, expand
from .._site.runner import SKIPPED_DIRS, walk_site  # the gate's own walk: init must not register what it ignores
from .generators import Found, TomlValue, choose

PAGE_SUFFIXES = (".html", ".htm")
# Above this many folders holding pages, one glob per folder is a list nobody reads: use "**".
MAX_FOLDER_GLOBS = 8
STYLESHEET_PATH = ("assets", "claim-evidence.css")
_ONE_LINE = 100  # a pages list longer than this is written one glob per line
REQUIRE_EXAMPLE = ("articles/*.html",)


@dataclass(frozen=True)
class SitePlan:
    """What ``init`` would write for a folder, and why: the globs, the language and its evidence."""

    pages: tuple[str, ...]  # globs relative to the folder, in the order written
    page_count: int  # pages found (hidden folders and tool folders skipped)
    lang: str
    lang_reason: str  # "ja from <html lang> of 3 pages", "ja (default: …)"
    unread: int  # pages skipped for the language guess: not readable as UTF-8
    per_folder_fallback: bool = False  # "**" would have reached into skipped folders


@dataclass(frozen=True)
class InitResult:
    """What ``init`` did, as paths shown the way the user named the folder."""

    plan: SitePlan
    config: str
    stylesheet: str
    stylesheet_state: str  # "written", "up to date", or "left unchanged: …"

    def lines(self) -> list[str]:
        """The report printed on stdout: what was written, then the next steps."""
        plan = self.plan
        pages = ", ".join(plan.pages) if plan.pages else "none found, so pages = []"
        unread = f"; {_count(plan.unread, 'page')} skipped for lang: not readable as UTF-8" if plan.unread else ""
        steps = [
            'mark a sentence: <p data-claim-id="my-claim">…</p>',
            "claim-evidence claim add PAGE --id my-claim --basis reporting (it also links the stylesheet in <head>: "
            f'<link rel="stylesheet" href="{DEFAULT_STYLESHEET}">)',
            "claim-evidence source add PAGE --id src --url URL --publisher P --title T",
            'claim-evidence ref add PAGE --claim my-claim --source src --section S --supports T --quote "passage"',
            "read the source, then: claim-evidence review record PAGE --claim my-claim --status matched --method human_document_review "
            "--checked-at YYYY-MM-DD",
            "static-helper --write, then claim-evidence prepublish",
        ]
        if not plan.pages:
            steps.insert(
                0,
                f'list your pages in {self.config}, e.g. pages = ["*.html"]; until then static-helper and '
                "prepublish stop with SH006 (registers nothing)",
            )
        return [
            f"{self.config}: written (pages: {pages}; lang: {plan.lang_reason}{unread})",
            f"{self.stylesheet}: {self.stylesheet_state}",
            "Next:",
            *(f"  {n}. {step}" for n, step in enumerate(steps, 1)),
        ]


@dataclass(frozen=True)
class GeneratorInitResult:
    """What ``init`` did in a site generator's project: its guide's config and stylesheet."""

    found: Found
    config: str
    stylesheet: str
    stylesheet_state: str
    stray_config: str = ""  # a claim-evidence.toml at the root where the guide keeps it elsewhere

    def lines(self) -> list[str]:
        """The report printed on stdout: what was written, then the guide's next steps."""
        found, generator = self.found, self.found.generator
        record = generator.records
        page = "the page's source file" if record.startswith("a bundle script") else record
        steps = [
            *(found.fill(step) for step in generator.setup),
            'mark a sentence in a page, as raw HTML: <p data-claim-id="my-claim">…</p> and '
            f'<div data-evidence-for="my-claim"></div> after it; its record: {record}',
            f"claim-evidence claim add, source add, ref add on {page}; read the source, then "
            "claim-evidence review record (each command's --help shows its options)",
            f"build: {found.build}",
            f"check: {generator.check}"
            if generator.check
            else f"check: {found.build} fails on a finding, naming the file and line",
        ]
        return [
            f"{self.config}: written for {generator.title} ({found.why}; the recipe: {generator.guide})",
            f"{self.stylesheet}: {self.stylesheet_state}",
            *(
                [
                    f"{self.stray_config}: left unchanged, but {generator.guide} keeps the config in "
                    f"{self.config}; remove this one (from the project root the gate would check the templates too)"
                ]
                if self.stray_config
                else []
            ),
            "Next:",
            *(f"  {n}. {step}" for n, step in enumerate(steps, 1)),
        ]


def init_site(folder: str, generator: str | None = None) -> InitResult | GeneratorInitResult:
    """Write ``claim-evidence.toml`` and the stylesheet into ``folder``; refuse rather than overwrite.

    ``generator`` is a name of ``generators.CHOICES`` (``none``: a plain folder), or ``None`` to
    recognize the project by its marker files. The stylesheet goes first: if the config cannot be
    written afterwards, running ``init`` again still works (the stylesheet is then "up to date"),
    whereas a config written before a failed stylesheet would make the second run refuse.
    """
    if not os.path.isdir(folder):
        raise InitError(f"{folder}: {'not a folder' if os.path.lexists(folder) else 'no such folder'}")
    found = choose(Path(folder), "" if os.path.normpath(folder) == "." else folder, generator)
    if found is not None:
        return init_generator(folder, found)
    config = _shown(folder, CONFIG_NAME)
    if os.path.lexists(os.path.join(folder, CONFIG_NAME)):
        raise InitError(f"{config} exists; edit it instead (init never overwrites)")
    plan = plan_site(folder)
    text = config_text(plan)
    _prove(text, plan)
    stylesheet = _shown(folder, *STYLESHEET_PATH)
    state = copy_stylesheet(Path(folder, *STYLESHEET_PATH), _shown(folder, STYLESHEET_PATH[0]))
    atomic_write_bytes(os.path.join(folder, CONFIG_NAME), text.encode("utf-8"))
    return InitResult(plan, config, stylesheet, state)


def init_generator(folder: str, found: Found) -> GeneratorInitResult:
    """The guide's config and stylesheet, each where that guide puts it (relative to the marker's folder)."""
    generator = found.generator
    config_parts = _parts(found.src, generator.config_dir, CONFIG_NAME)
    config = _shown(folder, *config_parts)
    if os.path.lexists(os.path.join(folder, *config_parts)):
        raise InitError(f"{config} exists; edit it instead (init never overwrites)")
    text = generator_config_text(found)
    _prove_settings(text, dict(generator.settings))
    css_parts = _parts(found.src, generator.stylesheet_dir, STYLESHEET_PATH[-1])
    state = copy_stylesheet(Path(folder, *css_parts), _shown(folder, *css_parts[:-1]))
    target = Path(folder, *config_parts)
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise InitError(
            f"{_shown(folder, *config_parts[:-1])}: cannot create the folder ({exc.strerror or exc}); "
            "the config was not written"
        ) from None
    atomic_write_bytes(target, text.encode("utf-8"))
    stray = _parts(found.src, CONFIG_NAME)
    # A plain init (what init did in a Hugo project before) left one at the root: say so, never remove it.
    stray_config = _shown(folder, *stray) if stray != config_parts and os.path.lexists(Path(folder, *stray)) else ""
    return GeneratorInitResult(found, config, _shown(folder, *css_parts), state, stray_config)


def _parts(*paths: str) -> tuple[str, ...]:
    """``docs``, ``.``, ``claim-evidence.toml`` -> ``("docs", "claim-evidence.toml")``."""
    return tuple(part for path in paths for part in Path(path).parts if part != ".")


def copy_stylesheet(target: Path, shown_folder: str) -> str:
    """Put the packaged ``claim-evidence.css`` at ``target`` unless a file is there: a site's own
    copy may carry its edits, so one that differs is reported, never replaced. Returns the state."""
    data = resources.files("claim_evidence").joinpath("assets/claim-evidence.css").read_bytes()
    if os.path.lexists(target):
        if not target.is_file():
            return "left unchanged: it is not a regular file"
        try:
            if target.read_bytes() == data:
                return "up to date"
        except OSError as exc:
            return f"left unchanged: cannot read it ({exc.strerror or exc})"
        return (
            f"left unchanged: it differs from the packaged stylesheet (init never overwrites; "
            f"claim-evidence assets --out {shown_folder} replaces it)"
        )
    if os.path.lexists(target.parent) and not target.parent.is_dir():
        raise InitError(
            f"{shown_folder} is a file, so the stylesheet cannot go there; move it, then run init again; nothing written"
        )
    try:
        target.parent.mkdir(parents=True, exist_ok=True)  # a guide's folder (static/assets) may be new
    except OSError as exc:
        raise InitError(f"{shown_folder}: cannot create the folder ({exc.strerror or exc}); nothing written") from None
    atomic_write_bytes(target, data)
    return "written"


def plan_site(folder: str | os.PathLike[str]) -> SitePlan:
    """Globs for the pages under ``folder`` and the label language their ``<html lang>`` suggests."""
    root = Path(folder).resolve()
    pages, walked = _find_pages(root)
    by_folder: dict[tuple[str, ...], set[str]] = {}
    for page in pages:
        by_folder.setdefault(page.parent.relative_to(root).parts, set()).add(_suffix(page.name))
    fallback = False
    globs = _folder_globs(by_folder)
    if len(by_folder) > MAX_FOLDER_GLOBS:
        broad = tuple(f"**/*{s}" for s in _ordered(set[str]().union(*by_folder.values())))
        if _matches_exactly(root, broad, pages, walked):
            globs = broad
        else:
            fallback = True
    if not _matches_exactly(root, globs, pages, walked):  # a bug: say so rather than write a config that fails
        raise InitError(f"internal error: the pages globs {list(globs)} do not match the pages found; nothing written")
    lang, reason, unread = guess_lang(pages)
    return SitePlan(globs, len(pages), lang, reason, unread, fallback)


def _find_pages(root: Path) -> tuple[list[Path], set[Path]]:
    """Pages (hidden files skipped, as the gate's walk does) and every folder walked, sorted."""
    pages: list[Path] = []
    walked: set[Path] = set()
    for here, files in walk_site(root):
        walked.add(here)
        for name in files:
            path = here / name
            if _suffix(name) and not name.startswith(".") and path.is_file():
                pages.append(path)
    return pages, walked


def _suffix(name: str) -> str:
    """The page suffix as written (``.HTML`` stays upper case: ``Path.glob`` is case-sensitive), or ''."""
    stem, dot, ext = name.rpartition(".")
    return f".{ext}" if dot and stem and f".{ext.lower()}" in PAGE_SUFFIXES else ""


def _ordered(suffixes: Iterable[str]) -> list[str]:
    """``.html`` before ``.htm``, each in lower case before other spellings: the usual glob reads first."""
    return sorted(suffixes, key=lambda s: (s.lower() != ".html", s.lower(), s != s.lower(), s))


def _folder_globs(by_folder: dict[tuple[str, ...], set[str]]) -> tuple[str, ...]:
    """One glob per folder and suffix, the site root first; folder names escaped for ``Path.glob``."""
    globs: list[str] = []
    for parts in sorted(by_folder):
        prefix = "".join(glob.escape(part) + "/" for part in parts)
        try:
            prefix.encode("utf-8")
        except UnicodeEncodeError:
            raise InitError(
                f"{'/'.join(parts)!r}: the folder name is not UTF-8, so no glob can name it; rename it"
            ) from None
        globs.extend(f"{prefix}*{suffix}" for suffix in _ordered(by_folder[parts]))
    return tuple(globs)


def _matches_exactly(root: Path, globs: tuple[str, ...], pages: list[Path], walked: set[Path]) -> bool:
    """The globs, expanded as the checks expand them, take every page found and nothing from a
    skipped folder (``**`` also walks hidden folders and ``node_modules``)."""
    if not globs:
        return not pages
    try:
        matched = expand(Config(root), globs, "pages")
    except InputError:
        return False
    return set(pages) <= set(matched) and all(p.parent in walked for p in matched)


def guess_lang(pages: list[Path]) -> tuple[str, str, int]:
    """``(lang, reason, unread)``: the most common primary subtag of the pages' ``<html lang>``,
    ties going to ``ja``, then ``en``; a language without labels, or none, gives ``ja``."""
    votes: Counter[str] = Counter()
    read = 0
    for page in pages:
        try:
            text = read_text(page)
        except InputError:
            continue
        read += 1
        tag = primary_subtag(html_lang(text))
        if tag:
            votes[tag] += 1
    unread = len(pages) - read
    if not pages:
        return "ja", "ja (default: no pages yet)", 0
    if not read:
        return "ja", "ja (default: no page could be read as UTF-8)", unread
    if not votes:
        return "ja", f"ja (default: no <html lang> on {_count(read, 'page')})", unread
    rank = {lang: i for i, lang in enumerate(LOCALES)}
    ordered = sorted(votes, key=lambda tag: (-votes[tag], rank.get(tag, len(rank)), tag))
    top, n = ordered[0], votes[ordered[0]]
    of = _count(n, "page") if n == read else f"{n} of {read} pages"
    if top not in rank:
        return (
            "ja",
            f"ja (default: labels exist only in {' and '.join(LOCALES)}, and <html lang> of {of} says {top})",
            unread,
        )
    tied = [tag for tag in ordered[1:] if votes[tag] == n]
    tie = f" (tied with {', '.join(tied)}; ties go to {', then '.join(LOCALES)})" if tied else ""
    return top, f"{top} from <html lang> of {of}{tie}", unread


def config_text(plan: SitePlan) -> str:
    """The starter config, commented for the editor who will change it; the same plan, the same bytes."""
    if plan.pages:
        skipped = ", ".join(sorted(n for n in SKIPPED_DIRS if not n.startswith(".")))
        pages = [
            f"# Guessed from the {_count(plan.page_count, 'HTML page')} found here (hidden folders, {skipped} skipped).",
            "# Every page that carries evidence markup must be listed; a glob that matches no file is an error (SH004).",
        ]
        if plan.per_folder_fallback:
            pages.append(
                '# One glob per folder: "**/*.html" would also take pages under hidden folders or node_modules.'
            )
    else:
        pages = [
            "# No HTML page was found when this file was written: list your pages here,",
            '# e.g. pages = ["*.html", "articles/*.html"]. Until then static-helper and',
            "# claim-evidence prepublish stop with SH006 (registers nothing).",
        ]
    return "\n".join(
        [
            "# claim-evidence.toml: the settings static-helper and `claim-evidence prepublish` read.",
            "# Written by `claim-evidence init` (which never overwrites it): edit it freely.",
            '# Paths and globs are relative to this folder; every key: SCHEMA.md, "Site configuration".',
            "",
            "# The pages to check.",
            *pages,
            _toml_list("pages", plan.pages),
            "",
            *_require_lines(REQUIRE_EXAMPLE),
            "",
            '# The stylesheet every page with evidence must link (SH130): <link rel="stylesheet" href="…">.',
            "# A root-relative href: this folder is taken to be served at the site root. The file is",
            "# assets/claim-evidence.css here (`claim-evidence assets --out assets` copies it again).",
            "# false: the site ships the evidence styles its own way, and the link is not checked.",
            f"stylesheet = {_toml_string(DEFAULT_STYLESHEET)}",
            "",
            f"# Language of the evidence block labels: {' or '.join(LOCALES)}.",
            f"# Guessed: {plan.lang_reason}.",
            f"lang = {_toml_string(plan.lang)}",
            "",
            "# true: a matched or partial claim whose statement has numbers must quote the passage they come",
            "# from (quote.exact in its source_refs): without a quote that is an error (CE905), not a warning.",
            '# Figures the quotes do not have are reported either way. See SCHEMA.md, "The number check".',
            "# require_quotes = true",
            "",
            "# The news path (correction registry, day-files, list pages) is an optional [news] table: see SCHEMA.md.",
            "",
        ]
    )


def _require_lines(example: tuple[str, ...]) -> list[str]:
    """The commented ``require``: the one setting that makes a page fail when the build loses its markup."""
    return [
        "# Pages that must carry evidence markup: each fails on its own when the build drops it (SH160),",
        "# where otherwise a page without markup passes. Each glob must match a page that is checked",
        "# (SH004, SH008). For example:",
        f"# {_toml_list('require', example)}",
    ]


_SETTING_COMMENTS = {
    "pages": "# The built pages to check (globs relative to this file's folder, like every path here).",
    "web_root": "# The folder the site is served from: the stylesheet href is resolved from there.",
    "stylesheet": '# The stylesheet every page with evidence must link (SH130): <link rel="stylesheet" href="…">.',
    "lang": "# Language of the evidence block labels: " + " or ".join(LOCALES) + ".",
    "sources": "# Where a finding's markup is written: relative to this file's folder, like pages.",
}


def generator_config_text(found: Found) -> str:
    """The guide's ``claim-evidence.toml``, commented, with ``require`` shown but left to the editor."""
    generator = found.generator
    body: list[str] = []
    for key, value in generator.settings:
        body += [_SETTING_COMMENTS[key], _toml_value(key, value), ""]
        if key == "pages" or (key == "stylesheet" and "pages" not in dict(generator.settings)):
            body += [*_require_lines(generator.require_example), ""]
    return "\n".join(
        [
            f"# claim-evidence.toml for a site built with {generator.title}, as {generator.guide} sets it up.",
            "# Written by `claim-evidence init` (which never overwrites it): edit it freely.",
            f"# {generator.where}",
            '# Every key: SCHEMA.md, "Site configuration".',
            "",
            *body,
            "# true: a matched or partial claim whose statement has numbers must quote the passage they come",
            "# from (quote.exact in its source_refs): without a quote that is an error (CE905), not a warning.",
            "# require_quotes = true",
            "",
        ]
    )


def _toml_value(key: str, value: TomlValue) -> str:
    return f"{key} = {_toml_string(value)}" if isinstance(value, str) else _toml_list(key, value)


def _toml_list(key: str, values: tuple[str, ...]) -> str:
    items = [_toml_string(v) for v in values]
    line = f"{key} = [{', '.join(items)}]"
    if len(line) <= _ONE_LINE:
        return line
    return "\n".join([f"{key} = [", *(f"    {item}," for item in items), "]"])


def _toml_string(value: str) -> str:
    """A TOML basic string: JSON's escapes are TOML's, except that TOML also forbids a raw DEL."""
    return json.dumps(value, ensure_ascii=False).replace("\x7f", "\\u007f")


def _prove(text: str, plan: SitePlan) -> None:
    """Parse the text back: a config ``init`` writes must load, with the values planned."""
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise InitError(f"internal error: the config text does not parse ({exc}); nothing written") from None
    if data != {"pages": list(plan.pages), "stylesheet": DEFAULT_STYLESHEET, "lang": plan.lang}:
        raise InitError(f"internal error: the config text reads back as {data!r}; nothing written")


def _prove_settings(text: str, settings: dict[str, TomlValue]) -> None:
    """Parse the text back: it must hold exactly the guide's settings (``require`` stays a comment)."""
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise InitError(f"internal error: the config text does not parse ({exc}); nothing written") from None
    want = {k: list(v) if isinstance(v, tuple) else v for k, v in settings.items()}
    if data != want:
        raise InitError(f"internal error: the config text reads back as {data!r}; nothing written")


def _shown(folder: str, *names: str) -> str:
    """A path as the user named the folder: ``site/claim-evidence.toml``, or the bare name for ``.``."""
    return "/".join(names) if os.path.normpath(folder) == "." else os.path.join(folder, *names)


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}{'' if n == 1 else 's'}"
