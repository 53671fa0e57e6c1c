"""Trading advice and predictions: the issue's examples caught, the near misses let through, exactly."""

from __future__ import annotations

import pytest

from claim_evidence._answer.advice import advice_hits


@pytest.mark.parametrize(
    ("text", "hits"),
    [
        (
            "クモ社の株は今が買い時です。早めに買うのがよいでしょう。",
            [("CE751", "クモ社の株は今が買い時です。"), ("CE751", "早めに買うのがよいでしょう。")],
        ),
        ("来週には介入するでしょう", [("CE752", "来週には介入するでしょう")]),
        ("来週には介入します。", [("CE752", "来週には介入します。")]),
        ("円相場は上昇するとみられます。", [("CE752", "円相場は上昇するとみられます。")]),
        ("料金は今後も続く見通しです。", [("CE752", "料金は今後も続く見通しです。")]),
        ("損切りの目安は資料にない。", [("CE751", "損切りの目安は資料にない。")]),
        ("投資すべきです。", [("CE751", "投資すべきです。")]),
        (
            "アナリストは買い推奨と発表した。",
            [("CE751", "アナリストは買い推奨と発表した。")],
        ),  # advice in anyone's voice
        ("You should buy now.", [("CE751", "you should buy now.")]),
        ("Set a stop-loss at the low.", [("CE751", "set a stop-loss at the low.")]),
        ("The price will rise next week.", [("CE752", "the price will rise next week.")]),
        ("Prices are expected to fall.", [("CE752", "prices are expected to fall.")]),
        ("The launch will happen soon.", [("CE752", "the launch will happen soon.")]),
        ("Next week the bank will act.", [("CE752", "next week the bank will act.")]),
    ],
)
def test_advice_catches_advice_and_predictions(text: str, hits: list[tuple[str, str]]) -> None:
    assert advice_hits(text) == hits


@pytest.mark.parametrize(
    "text",
    [
        "政府は 8 月 22 日に介入した。",  # a past event
        "架空ホシ新聞によると、クモエンジン 3 は 8 月 22 日に企業向けの提供が始まった。",
        "架空クモ社は来期に黒字化すると予想している。",  # a forecast attributed to its source
        "クモエンジン 3 は前版より推論が 1.8 倍速いと架空クモ社は公表した。",
        "資料からは確認できないでしょう。",  # a hedge, not a prediction
        "資料の原文を確認するとよいでしょう。",  # a suggestion to read the source
        "近くの店舗で販売する。",  # 近く "nearby" is no future time word
        "この資料からは確認できません。",
        "エントリーは締め切られた。",
        "The company said prices will rise.",
        "Prices rose in August.",
        "介入が近い。",  # a noun phrase: not caught (docs/chat.md says so)
        "The plugin will fail the build on an error.",  # "will" describing behaviour
        "Register the plugin's entry point, then the process should exit.",
    ],
)
def test_advice_lets_past_events_attributed_forecasts_and_hedges_pass(text: str) -> None:
    assert advice_hits(text) == []


def test_advice_a_site_adds_phrases_and_cannot_remove_the_defaults() -> None:
    assert advice_hits("これは要チェック銘柄です。") == []
    assert advice_hits("これは要チェック銘柄です。", advice_extra=["要チェック銘柄"]) == [
        ("CE751", "これは要チェック銘柄です。")
    ]
    assert advice_hits("反発は時間の問題だ。", prediction_extra=["時間の問題"]) == [("CE752", "反発は時間の問題だ。")]
    assert advice_hits("今が買い時です。", advice_extra=[]) == [("CE751", "今が買い時です。")]
