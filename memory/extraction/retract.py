"""Retractions: the user says an earlier conclusion / decision / estimate / finding no longer holds,
without giving a replacement ("that conclusion is invalid", "那个结论作废了").

What the command matches:
- the conclusion's own content, when the sentence quotes it or says it ("our previous conclusion
  'X' was based on incorrect information", "the conclusion that X turned out to be false",
  `之前"X"的结论是基于错误数据得出的`, "说X的那个结论是错的"): `knowledge` (family) with `value` X,
  so reconciliation retracts the record holding that value, whatever was observed after it;
- else a decision topic, when the sentence names one the way the decision family slugs it ("the
  database decision no longer holds"): `knowledge.decision.<topic>`, the latest live record;
- else every `knowledge.*` attribute, the latest live record.

The shapes: an earlier piece of knowledge (determiner or qualifier + a noun such as conclusion,
estimate, finding, plan, 结论, 估算, 判断; or "what we concluded", "我之前说的") and either a
predicate that takes it back (no longer holds, was wrong, turned out to be false, was based on bad
data, can't be reproduced, 作废, 不成立, 站不住, 是误判, 基于错误数据) or a verb that does (scrap,
disregard, take back, withdraw, we can no longer stand behind, 收回, 撤回, 忽略, 推翻) in any tense,
with or without a subject. A sentence that also gives the replacement is a correction; someone
else's conclusion, a question and a hypothetical retract nothing.

The patterns and word lists are in `memory/data/families/retract.toml`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from .decision import decision_attribute
from .prefilter import one_of
from .spec import Spec

SPEC = Spec("retract")
# ... no longer holds, is invalid, was wrong, needs redoing (the predicate carries the retraction)
_INVALID_EN = SPEC.expressions["invalid_en"]
# scrap that estimate / disregard the earlier diagnosis / we're retracting the recommendation
_RETRACT_VERB_EN = SPEC.expressions["retract_verb_en"]
_OBJECT_REF_EN = SPEC.expressions["object_ref_en"]
# "what we decided (at the last meeting)", "the thing we agreed on", "what I said about the deadline"
_DECIDED_CLAUSE_EN = SPEC.expressions["decided_clause_en"]
# wording that gives a replacement: a correction, not a retraction
_REPLACEMENT_EN = SPEC.expressions["replacement_en"]
# a statement about someone else's work is not the user's retraction
_OTHERS_EN = SPEC.expressions["others_en"]
# a preference or a fact about the user is not project knowledge ("ignore what I said about my timezone")
_PERSONAL_EN = SPEC.expressions["personal_en"]

_INVALID_ZH = SPEC.expressions["invalid_zh"]
_REPLACEMENT_ZH = SPEC.expressions["replacement_zh"]
_OTHERS_ZH = SPEC.expressions["others_zh"]
# "我收回之前的估算", "请忽略我今天早上说的结论", "上次的建议我们撤回": a verb that takes it back
_RETRACT_VERB_ZH = SPEC.expressions["retract_verb_zh"]
_OBJECT_REF_ZH = SPEC.expressions["object_ref_zh"]
# "团队一致决定放弃…": 决定 as a verb, the decision itself
_VERB_USE_ZH = SPEC.expressions["verb_use_zh"]
# words that are verbs as often as nouns (决定, 估计, 建议, 分析): a noun only when what follows is a
# predicate about it ("决定被推翻", "估计作废"), not the verb's object ("决定取消耳机孔", "估计明天能好")
_AMBIGUOUS_ZH = frozenset(SPEC.words["ambiguous_zh"])
_NOUN_NEXT_ZH = SPEC.expressions["noun_next_zh"]
# "他的分析错了": someone else's
_THEIRS_ZH = SPEC.expressions["theirs_zh"]


@dataclass(frozen=True, slots=True)
class RetractTarget:
    """What a retraction matches: an attribute (a family match), and the record's value when the
    sentence names the conclusion itself (then not only the latest record)."""

    attribute: str
    value: str | None = None

    def match(self) -> dict[str, object]:
        m: dict[str, object] = {"attribute": self.attribute, "family": True}
        if self.value is not None:
            m["value"] = self.value
        return m

    @property
    def latest(self) -> bool:
        return self.value is None


def _topic_en(text: str) -> str:
    """The decision's topic, as the decision family would slug it, else the knowledge family."""
    m = re.search(
        r"""(?ix)
        \b(?:the|that|this|our|my)\s+(?:earlier\s+|previous\s+|original\s+|old\s+|last\s+)?
        (?P<t>[\w\-]+(?:\s+[\w\-]+){0,2}?)\s+decision\b
        """,
        text,
    )
    if m and m.group("t").casefold() not in ("earlier", "previous", "original", "old", "last", "final", "big", "whole"):
        return decision_attribute(None, m.group("t"))
    m = re.search(
        r"""(?ix)
        \bdecision\s+(?:about|on|for|regarding|concerning|over|around)\s+(?:the\s+|our\s+)?(?P<t>.+?)
        (?=\s+(?:is|was|are|were|has|have|had|no\ longer|doesn'?t|does|don'?t|isn'?t|wasn'?t|
        can'?t|should|needs?|turned|got|won'?t)\b|[,;:.!]|$)
        """,
        text,
    )
    if m:
        return decision_attribute(None, m.group("t"))
    m = re.search(
        r"""(?ix)
        \bdecision\s+to\s+(?:go\s+with|use|adopt|pick|choose|switch\s+to|move\s+to)\s+(?P<v>.+?)
        (?=\s+(?:is|was|are|were|has|have|had|no\ longer|doesn'?t|does|don'?t|isn'?t|wasn'?t|
        can'?t|should|needs?|turned|got|won'?t)\b|[,;:.!]|$)
        """,
        text,
    )
    if m:
        return decision_attribute(m.group("v"), None)
    return "knowledge"


def _topic_zh(text: str) -> str:
    m = re.search(
        r"(?:关于)?(?P<t>[\u4e00-\u9fffA-Za-z0-9]{2,8}?)(?:方面|这块)?(?:的|那个|这个)?(?:决定|决策|选型)", text
    )
    if m:
        t = re.sub(r"^(?:关于|之前|上次|上周|以前|原来|我们|那个|这个|当初|最初|我)+", "", m.group("t"))
        t = re.sub(r"(?:定的|做的|那个|这个|的)$", "", t)
        if len(t) >= 2 and not re.fullmatch(r"(?:开会|会上|大家|团队|一起|最后|最终|刚才|刚刚|昨天|今天|上次)", t):
            return decision_attribute(None, t)
    return "knowledge"


_DONT_RELY_EN = SPEC.expressions["dont_rely_en"]
# "treat that estimate as void", "…, so treat it as invalid"
_CONSIDER_EN = SPEC.expressions["consider_en"]

# --- the conclusion's own content: quoted, or a "that"-clause / 说…的结论 ---------------------------
_QUOTE_AFTER_EN = SPEC.expressions["quote_after_en"]
_QUOTE_BEFORE_EN = SPEC.expressions["quote_before_en"]
_THAT_CLAUSE_EN = SPEC.expressions["that_clause_en"]
# "the conclusion that we reached": a relative clause, not the content
_RELATIVE_EN = SPEC.expressions["relative_en"]
_QUOTE_ZH = SPEC.expressions["quote_zh"]
_QUOTE_ZH_AFTER = SPEC.expressions["quote_zh_after"]
_SAID_ZH = SPEC.expressions["said_zh"]


def _quoted(m: re.Match[str]) -> str | None:
    for g in ("q1", "q2", "q3", "q4", "q5", "q6"):
        v = m.group(g)
        if v and v.strip():
            return v.strip()
    return None


def _content_en(text: str, predicate_at: int | None) -> str | None:
    """The conclusion's content when the sentence quotes it or gives it as a "that"-clause."""
    m = _QUOTE_AFTER_EN.search(text) or _QUOTE_BEFORE_EN.search(text)
    if m:
        return _quoted(m)
    m = _THAT_CLAUSE_EN.search(text)
    if not m or _RELATIVE_EN.match(m.group("v")):
        return None
    end = len(text)
    if predicate_at is not None and predicate_at > m.start("v"):
        end = predicate_at
    value = text[m.start("v") : end]
    value = re.split(r"\s*[,;:—–]\s+|\s+-\s+", value)[0] if predicate_at is None else value
    value = value.strip(" ,;:.!?'\"")
    return value if len(value) >= 3 else None


def _content_zh(text: str) -> str | None:
    m = _QUOTE_ZH.search(text) or _QUOTE_ZH_AFTER.search(text)
    if m:
        return _quoted(m)
    m = _SAID_ZH.search(text)
    if m:
        v = re.sub(r"^(?:的是|是)", "", m.group("v")).strip()
        return v if len(v) >= 2 else None
    return None


def _noun_use_zh(text: str, o: re.Match[str]) -> bool:
    """Whether an object word is a noun here (the thing retracted), not a verb or someone's action."""
    before = text[: o.start()]
    if _VERB_USE_ZH.search(before) or _THEIRS_ZH.search(before):
        return False
    if o.group(0) not in _AMBIGUOUS_ZH or _RETRACT_VERB_ZH.search(before):
        return True  # "收回之前的估计"
    return bool(_NOUN_NEXT_ZH.match(text[o.end() :]))


def _retract_zh(text: str) -> RetractTarget | None:
    if _OTHERS_ZH.search(text) or _REPLACEMENT_ZH.search(text):
        return None
    objs = [o for o in _OBJECT_REF_ZH.finditer(text) if _noun_use_zh(text, o)]
    if not objs:
        return None
    # a predicate after the object ("…作废了"), or a verb before it ("我收回之前的估算")
    taken_back = any(_INVALID_ZH.search(text, o.start()) for o in objs) or any(
        (v := _RETRACT_VERB_ZH.search(text)) is not None and v.end() <= o.start() and o.start() - v.end() <= 16
        for o in objs
    )
    if not taken_back:
        return None
    value = _content_zh(text)
    if value is not None:
        return RetractTarget("knowledge", value)
    return RetractTarget(_topic_zh(text))


def _retract_en(text: str) -> RetractTarget | None:
    if _OTHERS_EN.search(text) or _REPLACEMENT_EN.search(text):
        return None
    obj = _OBJECT_REF_EN.search(text)
    said = _DECIDED_CLAUSE_EN.search(text)
    if not obj and not said:
        return None
    if said and not obj and _PERSONAL_EN.search(text, said.end()):
        return None  # "ignore what I said about my timezone": a preference, not project knowledge
    predicate_at: int | None = None
    found = False
    if _CONSIDER_EN.search(text) or _DONT_RELY_EN.search(text):
        found = True
    if not found:
        for verb in _RETRACT_VERB_EN.finditer(text):
            for ref in (obj, said):
                if ref and ref.start() >= verb.end() - 1 and ref.start() - verb.end() < 40:
                    found = True
            if found:
                break
    if not found:
        starts = [r.start() if r is said else r.end() for r in (obj, said) if r]
        inv = _INVALID_EN.search(text, min(starts))
        if inv:
            found, predicate_at = True, inv.start()
    if not found:
        return None
    value = _content_en(text, predicate_at)
    if value is not None:
        return RetractTarget("knowledge", value)
    return RetractTarget(_topic_en(text))


# what the family cannot fire without (the prefilter's look): a retraction names what it takes back
# and says it is taken back (`_retract_en` stops without an object or a "what we decided" clause, or
# without a word that takes it back; `_retract_zh` without an object, or without a predicate or a verb)
RETRACT_REQUIRES = one_of(
    *(
        (named, taken_back)
        for named in (_OBJECT_REF_EN, _DECIDED_CLAUSE_EN)
        for taken_back in (_CONSIDER_EN, _DONT_RELY_EN, _RETRACT_VERB_EN, _INVALID_EN)
    ),
    (_OBJECT_REF_ZH, _INVALID_ZH),
    (_OBJECT_REF_ZH, _RETRACT_VERB_ZH),
)


def retract_match(text: str) -> RetractTarget | None:
    """The retraction stated in `text` (what it matches), or None when it is not one."""
    if re.search(r"[\u4e00-\u9fff]", text):
        return _retract_zh(text)
    return _retract_en(text)


def retract_target(text: str) -> str | None:
    """The match attribute of a retraction stated in `text`, or None when it is not one."""
    found = retract_match(text)
    return found.attribute if found else None
