"""Trading advice and predictions, stopped on the server whatever the model was told (CE751, CE752).

The prompt asks the model for neither; a prompt is a request, not a guarantee. So the guard
reads the answer and every item for them itself, with fixed defaults in Japanese and English
that no config can remove, plus the phrases a site adds (``[chat] advice_extra``,
``prediction_extra``). A hit turns the reply into a refusal (the guard's fixed *advice* text),
keeping the items that pass grounding: what can be confirmed, instead of the advice.

What the defaults catch, and what they do not (docs/chat.md says the same):

- *Advice*: buy / sell / hold wording (買い時, 買うのがよい, 売るべき, 損切り, 利確, ナンピン,
  "should buy", "stop-loss", "good time to sell" …) and timing (今のうちに買う, "buy now"). Advice
  is refused even when attributed to someone: the site gives no advice, in anyone's voice.
- *Prediction*: a future event, its timing, direction or size in the answer's own voice — a
  verb in the plain form before a conjecture (介入するでしょう, 上昇するだろう, 下がるはずです,
  減るとみられます, 続く見通し; not a negation or an adjective alone: 確認できないでしょう,
  よいでしょう), or a future time word (来週, 来月, 今後, 近いうちに, 年内 …)
  with a verb of the same sentence (来週には介入します); in English "will", "is going to",
  "is likely/expected/set to" before a word of change or occurrence (rise, fall, happen …) or
  with a future time (next week, tomorrow, soon): "the plugin will fail the build" describes,
  it does not predict. A past event (8 月 22 日に介入した) is not a prediction.
- A forecast *attributed* in the same sentence (…と発表した, …と予想している, …によると,
  "said", "according to") is reported, not made, and passes; its figures must still be in the
  material. A prediction worded otherwise (a noun phrase, 介入が近い; a conditional) passes too:
  these are patterns, not understanding.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import lru_cache

from .._core.normalize import folded_phrase
from .text import banned_pattern

ADVICE = "CE751"
PREDICTION = "CE752"

_BUY_SELL = "(?:買|売|購入|売却|投資|空売り)"
_ADVICE_JA = (
    r"(?:買い|売り)(?:時|どき|場|推奨|増し|向かい|抜け|サイン|シグナル|チャンス|目線)",
    rf"{_BUY_SELL}(?:う|る|する|す|し)?(?:べき|のが(?:よい|良い|いい|得策|賢明|おすすめ)|と(?:よい|良い|いい)|ましょう)",
    rf"{_BUY_SELL}(?:っ|し)?た(?:方|ほう)が(?:よい|良い|いい|得)",
    r"(?:買い|売り)ましょう|買うな|売るな",
    r"(?:買い|売り|購入|売却|投資)を(?:推奨|おすすめ|お勧め|勧め)",
    r"(?:今のうちに|早めに|今すぐ|いますぐ)(?:買|売|仕込|投資|購入|売却)",
    r"今が(?:買い|売り|チャンス|仕込み)",
    r"損切り|利確|利益確定|押し目買い|ナンピン|逆指値|指値を|ストップロス|仕込み時|狙い目",
    r"(?:保有|ホールド)(?:すべき|し続けるべき|を続けるべき)",
)
_ADVICE_EN = (
    r"\b(?:buy|sell|short)(?:ing)? (?:now|today|it now|the (?:stock|shares|dip))\b",
    r"\b(?:should|must|ought to) (?:buy|sell|short|invest)\b",
    r"\b(?:stop[- ]?loss|take[- ]profit|buy the dip)\b",
    r"\b(?:good|right|best|great) (?:time|moment) to (?:buy|sell|invest|enter|exit)\b",
    r"\b(?:i|we) (?:recommend|suggest|advise) (?:buying|selling|shorting|holding|investing)\b",
    r"\b(?:strong )?(?:buy|sell) (?:signal|recommendation)\b",
)
_FUTURE_JA = (
    r"(?:来週|来月|来年|来期|来春|来夏|来秋|来冬|今後|近いうちに|近々|年内|月内|週内|明日|あす|明後日|数日中|将来)"
)
# A verb in the plain form: ない before でしょう is a hedge (確認できないでしょう), and an adjective alone
# (よいでしょう, 難しいでしょう) as often a judgement of now as of the future, so neither counts.
_PLAIN_VERB = "[うくすつぬむぶぐる]"
_CONJECTURE = r"(?:でしょう|だろう|はずです|はずだ|に違いない|と(?:予想|予測|推測)され|と見込まれ|とみられ|見通し|見込みです|可能性が高い)"
_PREDICTION_JA = (
    rf"{_PLAIN_VERB}{_CONJECTURE}",
    rf"{_FUTURE_JA}[^。！？!?]*?(?:する|します|される|されます|なる|なります|上がる|上がります|下がる|下がります|起こる|起きる|始まる|続く|増える|減る)(?=[。、！？!?]|$)",
)
# English "will" describes how software behaves as often as it predicts, so it counts only with a
# word of change or occurrence after it, or with a future time in the same sentence.
_FUTURE_EN = r"(?:will|won't|(?:is|are) (?:going|likely|expected|set) to)"
_PREDICTION_EN = (
    rf"\b{_FUTURE_EN}(?: \w+){{0,3}}? (?:rise|fall|increase|decrease|grow|drop|decline|climb|surge|plunge|jump|soar"
    r"|slump|rebound|recover|crash|collapse|happen|occur|intervene|go up|go down)\b",
    rf"\b{_FUTURE_EN}\b.*\b(?:next (?:week|month|year|quarter)|tomorrow|soon|later this (?:week|month|year)|by the end of)\b",
    rf"\b(?:next (?:week|month|year|quarter)|tomorrow|soon|later this (?:week|month|year))\b.*\b{_FUTURE_EN}\b",
)
# The same sentence names who says it: a forecast reported, not made.
_ATTRIBUTED = re.compile(
    r"によると|によれば|と(?:発表|公表|報道|述べ|説明|伝え|予想|予測|見込|示|明らかに)し|と(?:報じ|伝え|述べ)(?:た|て|られ)"
    r"|と(?:発表|公表|報道)され"
    r"|\b(?:said|says|say|announced|announces|reported|reports|stated|states|according to|forecasts?|forecast that"
    r"|predicted|predicts|expects|expected that|projects|projected)\b"
)
_SENTENCE = re.compile(r"[^。！？!?]+[。！？!?]?|[。！？!?]")
_ADVICE_RE = re.compile("|".join(_ADVICE_JA + _ADVICE_EN))
_PREDICTION_RE = re.compile("|".join(_PREDICTION_JA + _PREDICTION_EN))


def advice_hits(
    text: str, advice_extra: Sequence[str] = (), prediction_extra: Sequence[str] = ()
) -> list[tuple[str, str]]:
    """``(code, sentence)`` for each sentence of ``text`` (NFKC, case folded) that gives advice (CE751)
    or predicts (CE752); one per sentence, advice first."""
    extra_advice, extra_prediction = _extra(tuple(advice_extra)), _extra(tuple(prediction_extra))
    hits = []
    for sentence in _SENTENCE.findall(folded_phrase(text)):
        advice = _ADVICE_RE.search(sentence) or (extra_advice.search(sentence) if extra_advice else None)
        if advice:
            hits.append((ADVICE, sentence.strip()))
            continue
        if _ATTRIBUTED.search(sentence):
            continue
        prediction = _PREDICTION_RE.search(sentence) or (
            extra_prediction.search(sentence) if extra_prediction else None
        )
        if prediction:
            hits.append((PREDICTION, sentence.strip()))
    return hits


@lru_cache(maxsize=32)
def _extra(phrases: tuple[str, ...]) -> re.Pattern[str] | None:
    return banned_pattern(tuple(p for p in phrases if isinstance(p, str)))
