"""The [chat] table's guard keys: banned phrases kept unless named, advice and prediction phrases added."""

from __future__ import annotations

import pytest

from claim_evidence._answer.config import DEFAULT_BANNED, chat_config
from claim_evidence._core.diagnostics import InputError


def test_config_banned_defaults_include_the_spec_phrases() -> None:
    assert {"介入確定", "弾切れ", "確実に", "絶対", "崩壊"} <= set(chat_config({}, "c.toml").banned)
    assert chat_config({}, "c.toml").banned == DEFAULT_BANNED


def test_config_banned_extra_adds_and_banned_drop_removes_by_name() -> None:
    config = chat_config({"banned_extra": ["おすすめ"], "banned_drop": ["絶対"]}, "c.toml")
    assert config.banned == tuple(p for p in DEFAULT_BANNED if p != "絶対") + ("おすすめ",)
    legacy = chat_config({"banned": [*DEFAULT_BANNED, "おすすめ"]}, "c.toml")  # banned that keeps the defaults
    assert legacy.banned == (*DEFAULT_BANNED, "おすすめ")


@pytest.mark.parametrize(
    ("chat", "message"),
    [
        (
            {"banned": ["おすすめ"]},
            "c.toml: SH003 chat.banned leaves out default phrases (" + ", ".join(DEFAULT_BANNED) + ") and would drop "
            "them: put your own phrases in banned_extra = [...] instead (added to the defaults), and name any default "
            "to drop in banned_drop = [...]",
        ),
        (
            {"banned_drop": ["絶対値"]},
            "c.toml: SH003 chat.banned_drop names '絶対値', not a default phrase; the defaults are "
            + ", ".join(DEFAULT_BANNED),
        ),
        (
            {"banned_extra": "おすすめ"},
            'c.toml: SH003 chat.banned_extra must be a list of phrases, e.g. banned_extra = ["おすすめ", "recommended"] (found \'おすすめ\')',
        ),
        (
            {"advice_extra": [" "]},
            'c.toml: SH003 chat.advice_extra must be a list of phrases, e.g. advice_extra = ["おすすめ", "recommended"] (found [\' \'])',
        ),
    ],
)
def test_config_guard_phrases_refused_with_the_fix(chat: dict[str, object], message: str) -> None:
    with pytest.raises(InputError) as caught:
        chat_config(chat, "c.toml")
    assert str(caught.value) == message


def test_config_advice_and_prediction_phrases_are_read() -> None:
    config = chat_config({"advice_extra": ["要チェック銘柄"], "prediction_extra": ["時間の問題"]}, "c.toml")
    assert (config.advice, config.prediction) == (("要チェック銘柄",), ("時間の問題",))
