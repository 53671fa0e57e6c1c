"""The ``[chat]`` table of ``claim-evidence.toml``: what the knowledge base holds and how the answer guard words things.

An AI answer may claim no more than the records behind it, so the mapping from a record to an
evidence *state* is written down here once, with defaults a site can override only where an
override cannot promote an unreviewed record. Checked when the config is read (``_site.config``), so
``prepublish`` and ``static-helper`` refuse a typo in ``[chat]`` as they refuse one anywhere else.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .._core.tomltable import check_keys, config_error, table

# Strongest first. FACT and CONFIRMED come only from reviewed, valid records; an answer as a whole
# may never carry them (see guard.ANSWER_STATES).
STATES = ("FACT", "CONFIRMED", "ESTIMATE", "HYPOTHESIS", "UNVERIFIED")
UNVERIFIED = "UNVERIFIED"
STATE_RANK = {state: len(STATES) - 1 - i for i, state in enumerate(STATES)}  # UNVERIFIED 0 … FACT 4

# The rule that picked a record's state (stored in each chunk as ``state_rule``), and its default state.
DEFAULT_STATES: dict[str, str] = {
    "fact": "FACT",  # status matched, an evidence label meaning Fact, the record valid
    "matched": "CONFIRMED",
    "partial": "ESTIMATE",
    "conflict": "HYPOTHESIS",
    "expired": UNVERIFIED,  # a valid review the site's [freshness] policy says has expired (CE601)
    "unverified": UNVERIFIED,  # fixed: nobody reviewed it
    "invalid": UNVERIFIED,  # fixed: any error in the record, an unsealed or broken seal, page and record disagreeing
    "extra": UNVERIFIED,  # text from chat.extra files: set with extra_state
}
# Rules a site may remap: an unreviewed or broken record stays UNVERIFIED whatever the config says.
OVERRIDABLE_STATES = ("fact", "matched", "partial", "conflict", "expired")
FACT_LABELS = ("Fact", "Fact-A", "Fact-B", "Fact-C")
DEFAULT_MAX_CHUNK_CHARS = 800
MIN_CHUNK_CHARS = 100
DEFAULT_COPY_PREFIX = "【AI生成・未検証】証拠状態: {state}（会則第14条）"
# Assertive or sensational wording that no evidence state licenses (SCHEMA.md "Answer guard"). Bare 確定
# is left out on purpose: it would strike 未確定 ("not settled"), exactly the hedge an answer should make.
DEFAULT_BANNED = (
    "確定的",
    "確実に",
    "間違いなく",
    "絶対",
    "必ず儲かる",
    "必ず上がる",
    "暴落確実",
    "崩壊",
    "100%保証",
    "保証します",
    "断言します",
    "介入確定",
    "弾切れ",
    "必至",
    "guaranteed",
    "definitely",
    "will certainly",
    "without a doubt",
    "risk-free",
    "collapse",
    "crash is certain",
    "100% sure",
    "inevitable",
)
CHAT_KEYS = (
    "extra",
    "max_chunk_chars",
    "extra_state",
    "states",
    "fact_labels",
    "banned",
    "banned_extra",
    "banned_drop",
    "advice_extra",
    "prediction_extra",
    "copy_prefix",
    "system_prompt",
)
# The one variable of a site's own system prompt ([chat] system_prompt): the answer's language code,
# ja or en. Nothing else in the file is read as a placeholder, so it may hold JSON examples with braces.
LANG_VARIABLE = "{lang}"
MAX_SYSTEM_PROMPT_CHARS = 20_000


@dataclass(frozen=True)
class ChatConfig:
    """The settings of ``kb build`` and the guard; tuples only, like every other config value."""

    extra: tuple[str, ...] = ()  # globs of Markdown/text files under the site root, split into chunks
    max_chunk_chars: int = DEFAULT_MAX_CHUNK_CHARS
    extra_state: str = UNVERIFIED
    states: tuple[tuple[str, str], ...] = tuple(DEFAULT_STATES.items())
    fact_labels: tuple[str, ...] = FACT_LABELS
    banned: tuple[str, ...] = DEFAULT_BANNED  # the defaults, less banned_drop, plus banned_extra
    copy_prefix: str = DEFAULT_COPY_PREFIX
    advice: tuple[str, ...] = ()  # phrases added to the guard's fixed advice check (CE751)
    prediction: tuple[str, ...] = ()  # phrases added to its fixed prediction check (CE752)
    system_prompt: str | None = None  # a site's own prompt file, relative to the config's folder

    def prompt_path(self, config_dir: Path) -> Path | None:
        return config_dir / self.system_prompt if self.system_prompt else None

    def state_for(self, rule: str) -> str:
        return dict(self.states)[rule]

    def state_map(self) -> dict[str, str]:
        return dict(self.states)


def chat_config(data: Any, name: str | None) -> ChatConfig:
    """Read and check the ``[chat]`` table; any problem is an :class:`InputError` naming the file."""
    data = table(data, "chat", CHAT_KEYS, name)
    extra = data.get("extra", [])
    if isinstance(extra, str) and extra:
        extra = [extra]
    if not isinstance(extra, list) or not all(isinstance(p, str) and p for p in extra):
        raise config_error(
            "SH003",
            f'chat.extra must be a list of globs of Markdown or text files, e.g. extra = ["docs/*.md"] (found {extra!r})',
            name,
        )
    size = data.get("max_chunk_chars", DEFAULT_MAX_CHUNK_CHARS)
    if type(size) is not int or size < MIN_CHUNK_CHARS:
        raise config_error(
            "SH003",
            f"chat.max_chunk_chars must be a whole number of characters, {MIN_CHUNK_CHARS} or more (found {size!r})",
            name,
        )
    extra_state = _state(data.get("extra_state", UNVERIFIED), "chat.extra_state", name)
    states = data.get("states", {})
    if not isinstance(states, dict):
        raise config_error("SH003", 'chat.states must be a table, e.g. [chat.states] partial = "HYPOTHESIS"', name)
    check_keys(states, OVERRIDABLE_STATES, name, "chat.states.")
    mapping = DEFAULT_STATES | {rule: _state(value, f"chat.states.{rule}", name) for rule, value in states.items()}
    mapping["extra"] = extra_state
    labels = data.get("fact_labels", list(FACT_LABELS))
    if not isinstance(labels, list) or not all(isinstance(label, str) and label for label in labels):
        raise config_error(
            "SH003",
            f'chat.fact_labels must be a list of evidence labels, e.g. fact_labels = ["Fact"] (found {labels!r})',
            name,
        )
    banned = _banned(data, name)
    advice, prediction = (
        _phrases(data.get(key, []), f"chat.{key}", name) for key in ("advice_extra", "prediction_extra")
    )
    prefix = data.get("copy_prefix", DEFAULT_COPY_PREFIX)
    if not isinstance(prefix, str) or "{state}" not in prefix:
        raise config_error(
            "SH003",
            f'chat.copy_prefix must be text with a {{state}} placeholder, e.g. copy_prefix = "{DEFAULT_COPY_PREFIX}" (found {prefix!r})',
            name,
        )
    prompt = data.get("system_prompt")
    if prompt is not None and (not isinstance(prompt, str) or not prompt.strip()):
        raise config_error(
            "SH003",
            f'chat.system_prompt must be the path of a text file, relative to the config, e.g. system_prompt = "chat-prompt.txt" (found {prompt!r})',
            name,
        )
    return ChatConfig(
        tuple(extra),
        size,
        extra_state,
        tuple(mapping.items()),
        tuple(labels),
        banned,
        prefix,
        advice,
        prediction,
        prompt,
    )


def site_prompt(text: str, name: str) -> str:
    """A site's own system prompt as read from ``name``: it must hold :data:`LANG_VARIABLE` (so an answer
    in English is asked for in English) and stay within :data:`MAX_SYSTEM_PROMPT_CHARS`; else SH003."""
    if LANG_VARIABLE not in text:
        raise config_error(
            "SH003",
            f"chat.system_prompt file has no {LANG_VARIABLE} variable: write it where the answer's language goes, "
            f'e.g. "Write the answer in the language {LANG_VARIABLE}." (it becomes ja or en)',
            name,
        )
    if len(text) > MAX_SYSTEM_PROMPT_CHARS:
        raise config_error(
            "SH003",
            f"chat.system_prompt file is {len(text)} characters, over the limit of {MAX_SYSTEM_PROMPT_CHARS}",
            name,
        )
    return text


def _banned(data: dict[str, Any], name: str | None) -> tuple[str, ...]:
    """The banned phrases: the defaults less ``banned_drop``, plus ``banned_extra``.

    ``banned`` (the one key before ``banned_extra``) replaced the defaults, so a site that listed its
    own phrases there lost 確実に and the rest without a word. It is still read, but only as a list
    that keeps every default not in ``banned_drop``: a default goes only when it is named.
    """
    drop = _phrases(data.get("banned_drop", []), "chat.banned_drop", name)
    unknown = [p for p in drop if p not in DEFAULT_BANNED]
    if unknown:
        raise config_error(
            "SH003",
            f"chat.banned_drop names {', '.join(map(repr, unknown))}, not a default phrase; the defaults are {', '.join(DEFAULT_BANNED)}",
            name,
        )
    extra = _phrases(data.get("banned_extra", []), "chat.banned_extra", name)
    listed = _phrases(data["banned"], "chat.banned", name) if "banned" in data else DEFAULT_BANNED
    lost = [p for p in DEFAULT_BANNED if p not in listed and p not in drop]
    if lost:
        raise config_error(
            "SH003",
            f"chat.banned leaves out default phrases ({', '.join(lost)}) and would drop them: put your own phrases in "
            f"banned_extra = [...] instead (added to the defaults), and name any default to drop in banned_drop = [...]",
            name,
        )
    return tuple(dict.fromkeys(p for p in (*listed, *extra) if p not in drop))


def _phrases(value: Any, key: str, name: str | None) -> tuple[str, ...]:
    if not isinstance(value, list) or not all(isinstance(p, str) and p.strip() for p in value):
        raise config_error(
            "SH003",
            f'{key} must be a list of phrases, e.g. {key.split(".")[-1]} = ["おすすめ", "recommended"] (found {value!r})',
            name,
        )
    return tuple(value)


def state_or_none(value: Any) -> str | None:
    """``value`` when it is a word of the state vocabulary, else None (never assumes it is hashable)."""
    return value if isinstance(value, str) and value in STATE_RANK else None


def _state(value: Any, key: str, name: str | None) -> str:
    if state_or_none(value) is None:
        raise config_error("SH003", f"{key} must be one of {', '.join(STATES)} (found {value!r})", name)
    assert isinstance(value, str)
    return value
