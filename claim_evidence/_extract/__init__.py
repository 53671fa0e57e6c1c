"""Structured extraction from untrusted Japanese requests (見積依頼, 注文, 変更, 取消): the output contract
and its checker, the decimal normalizer over the one number reader, the prompt, the case set, a rule-based
baseline extractor and the scorer. May import :mod:`claim_evidence._core` and :mod:`claim_evidence._record`
only; asking a model is the command's (:mod:`claim_evidence._commands.extract`).
"""
