"""Retractions: the user says an earlier conclusion / decision / estimate / finding no longer holds,
without giving a replacement ("that conclusion is invalid", "那个结论作废了").

The command matches `knowledge.decision.<topic>` when the sentence names a decision topic the way
the decision family slugs it ("the database decision no longer holds"), else every `knowledge.*`
attribute; `latest` retracts only the most recently observed live record among them.
"""

from __future__ import annotations

import re

from .decision import decision_attribute
from .text import rx, zh

# What can be retracted: a piece of project knowledge the user (or the team) arrived at.
_OBJECT_EN = r"""
    (?:conclusions?|decisions?|estimates?|estimations?|analys[ie]s|findings?|results?|assumptions?|
    hypothes[ie]s|diagnos[ie]s|assessments?|recommendations?|plan|verdicts?|root\ cause|
    numbers|figures|forecasts?|projections?|calculations?|inferences?|judge?ments?|premises?|
    predictions?|proposals?|theory|theories|guess|guesses|takeaways?|call|deadline|timeline|
    numbers|data|agreement|approach|claim|premise)
"""
# a determiner or a qualifier that makes it a specific earlier one ("that", "the previous", "our")
_DET_EN = r"""
    (?:that|this|those|these|the|our|my|your|its|their)\s+
    (?:(?:earlier|previous|prior|original|old|initial|first|last|latest|current|whole|same|
    [\w\-]+(?:\s+[\w\-]+){0,2})\s+)?
"""
# ... no longer holds, is invalid, was wrong, needs redoing (the predicate carries the retraction)
_INVALID_EN = rx(
    r"""
    \b(?:no\ longer\ (?:holds?|stands?|applies|valid|true|accurate|correct|relevant|the\ plan|
    happening|on|in\ place|reliable|realistic|feasible|viable|achievable|doable|on\ track|applicable|usable)|
    (?:doesn'?t|does\ not|don'?t|do\ not|won'?t|can'?t|cannot)\s+(?:hold|stand|apply)(?:\s+up)?
    (?:\s+any\s?more)?|
    (?:is|are|was|were|'s|'re|has\ been|have\ been|got|gets?|turned\ out\ to\ be|turns\ out\ to\ be|
    proved|proven\ to\ be|is\ now|are\ now)\s+(?:(?:now|all|totally|completely|clearly|actually|officially|definitely|
    probably|way|pretty|quite|a\ bit|so|very|really|badly|just|simply|also)\s+)*(?:invalid|invalidated|void|
    null\ and\ void|
    obsolete|outdated|out\ of\ date|moot|dead|wrong|incorrect|inaccurate|mistaken|bogus|off(?!\s+by\b)|
    off\ the\ table|cancell?ed|reversed|overturned|retracted|withdrawn|scrapped|scratched|dropped|
    rescinded|revoked|debunked|disproven|disproved|a\ red\ herring|a\ mistake|an?\ error|pulled|abandoned|shelved|
    nixed|killed|premature|flawed|unfounded|baseless|misguided|off[- ]base|wrong-headed|garbage|junk|useless|worthless|
    meaningless|unrealistic|not\ realistic|
    not\ (?:valid|accurate|correct|right|true|reliable)|no\ good|unreliable|stale|superseded|
    overruled|thrown\ out)|
    (?:isn'?t|aren'?t|is\ not|are\ not|wasn'?t|weren'?t)\s+(?:valid|accurate|correct|right|true|
    reliable|the\ plan)(?:\s+any\s?more)?|
    can'?t\s+be\s+(?:trusted|relied\s+(?:on|upon)|used)|cannot\s+be\s+(?:trusted|relied\s+(?:on|upon)|used)|
    shouldn'?t\s+be\s+(?:used|trusted|relied\ on)|
    should\s+(?:not|n'?t)\s+be\s+(?:used|trusted)|
    needs?\s+(?:to\s+be\s+)?(?:recalculat|redo|redone|re-?do|rework|revisit|recomput|
    re-?estimat|re-?evaluat|reassess|re-?assess|re-?examin)\w*|
    (?:has|have)\s+(?:been\s+)?(?:changed|fallen\ through|collapsed)|
    is\ out|are\ out|fell\ apart|fell\ through|went\ out\ the\ window|
    (?:didn'?t|did\ not|doesn'?t|does\ not|won'?t)\s+(?:pan\ out|hold\ up|add\ up|check\ out|work\ out|stand\ up)|
    fell\ flat|(?:was|were|got|has\ been|have\ been)\s+(?:disproven|disproved|debunked|ruled\ out|refuted|falsified))
    """
)
# scrap that estimate / disregard the earlier diagnosis / we're retracting the recommendation
_RETRACT_VERB_EN = rx(
    r"""
    (?:^|\b(?:please|let'?s|we'?re|we\ are|we'?ve|we\ have|I'?m|I\ am|I'?ve|I\ have|I|we|just|so|
    (?:we|you|I)\s+(?:can|could|should|may|might|need\ to|have\ to|must))\s+)(?:going\ to\s+)?(?:scrap|scrapping|
    scrapped|scratch|scratching|
    disregard|disregarding|ignore|discard|discarding|throw\ out|toss|tossing|withdraw|withdrawing|
    retract|retracting|retracted|revoke|revoking|rescind|rescinding|take\ back|taking\ back|
    invalidate|invalidating|void|voiding|drop|dropping|overturn|overturning|reverse|reversing|throw\ away|
    throwing\ away|
    toss\ out|bin|trash|junk|ditch|ditching|shelve|shelving|shelved|abandon|abandoned|abandoning|nix|nixed|kill|killed|
    ditched|trashed|binned|pulled|
    reversed|withdrew)\s+
    """
)
_OBJECT_REF_EN = rx(r"\b(?:" + _DET_EN + r")?" + _OBJECT_EN + r"\b")
# "what we decided (at the last meeting)", "the thing we agreed on"
_DECIDED_CLAUSE_EN = rx(
    r"^(?:what|everything|whatever|the\ (?:thing|stuff)s?)\s+(?:we|I|the\ team)\s+(?:decided|agreed|concluded|esti"
    r"mated|found|figured)\b"
)
# wording that gives a replacement: a correction, not a retraction
_REPLACEMENT_EN = rx(
    r"""
    \b(?:instead|rather|now\ (?:it'?s|we'?re|we\ will|we'll|the\ answer)|it'?s\ actually|
    actually\ it'?s|should\ (?:be|read)|the\ (?:real|right|correct|actual)\ (?:one|answer|value|
    cause|number)\s+is|replaced\ (?:by|with)|switch(?:ing|ed)?\ to|going\ with|we'?ll\ use|
    we\ will\ use|we'?re\ using|changed\ to)\b
    """
)
# a statement about someone else's work is not the user's retraction
_OTHERS_EN = rx(r"^(?:my\s+(?:friend|brother|sister|cousin|colleague|coworker|boss|mom|dad)|he|she|they)\b")

_OBJECT_ZH = r"""
    (?:结论|判断|估算|估计|预估|估值|估时|估期|预计|预期|测算|计算|分析|发现|结果|假设|推论|推断|推测|猜测|诊断|评估|建议|
    方案|计划|决定|决策|定论|数字|数据|预测|根因|原因|工期|时间线|排期|截止日期|截止时间|提案|说法|
    论断|判定|共识|定的(?:东西|事|那些)?|估的(?:时间|工期|那个)?|结论性意见|看法|观点|报价)
"""
_INVALID_ZH = zh(
    r"""
    作废|不成立|不算数|不算了|不作数|失效|无效|不准(?:了|确)?|不可信|靠不住|不靠谱了|撤回|收回|
    撤销|推翻|误判|(?:是|被证明是|证明是|其实是|原来是)?错(?:的|了)|搞错了|不对了?|过时了?|
    不再(?:适用|成立|有效|准确)|没用了|用不了了|不能用了|不能再用|别再用|取消了?|被否(?:了|决了?)|
    否掉了?|翻篇了?|要?重新(?:算|估|做|评估|计算|测算|分析|来|定)|得重新|要重做|需要重做|不用管了|
    站不住(?:脚)?|不成立了|白做了|没有参考价值|不能参考|有误|有错|出错了|不准确|别用了?|不要用了?|
    先不要用|先别用|不能用|不能信|(?:你)?(?:就)?当(?:我)?没(?:听过|说过|说|讲过)|忽略(?:掉)?|(?:别|不要|不用)当真|放弃了?|弃用|别信了?|不要信了?|(?:别|不用|不要|
    不必)(?:再)?(?:参考|管|看)了?
    """
)
_REPLACEMENT_ZH = zh(r"改成|改为|换成|改用|换用|应该是|其实是(?!错|误)|而是|实际上是|正确的是|现在是|现在用|改回")
_OTHERS_ZH = zh(r"^(?:我)?(?:朋友|同事|哥|姐|弟|妹|爸|妈|老板|领导|他|她|他们|她们|别人|人家)")
_OBJECT_REF_ZH = zh(_OBJECT_ZH)
# "团队一致决定放弃…": 决定 as a verb, the decision itself
_VERB_USE_ZH = zh(r"(?:一致|最终|最后|已经|刚刚|共同|集体|我们|团队|大家|我|就|都)$")


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
        \bdecision\s+(?:about|on|for|regarding|concerning|over|around)\s+(?P<t>.+?)
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


_DONT_RELY_EN = rx(
    r"\b(?:don'?t|do\s+not|stop|no\s+longer)\s+(?:rely(?:ing)?\s+on|us(?:e|ing)|trust(?:ing)?|count(?:ing)?\s+on|go(?:ing)?\s+by)\s+"
    + _DET_EN
    + _OBJECT_EN
)
_CONSIDER_EN = rx(
    r"\b(?:consider|treat|mark|call)\s+"
    + _DET_EN
    + _OBJECT_EN
    + r"\s+(?:as\s+)?(?:void|invalid|dead|scrapped|withdrawn|"
    r"cancell?ed|retracted|null|obsolete|outdated|wrong)\b"
)


def retract_target(text: str) -> str | None:
    """The match attribute of a retraction stated in `text`, or None when it is not one."""
    if re.search(r"[\u4e00-\u9fff]", text):
        if _OTHERS_ZH.match(text) or _REPLACEMENT_ZH.search(text):
            return None
        obj = next((o for o in _OBJECT_REF_ZH.finditer(text) if not _VERB_USE_ZH.search(text[: o.start()])), None)
        if not obj:
            return None
        if not _INVALID_ZH.search(text, obj.start()):
            return None
        return _topic_zh(text)
    if _OTHERS_EN.match(text) or _REPLACEMENT_EN.search(text):
        return None
    obj = _OBJECT_REF_EN.search(text)
    decided = _DECIDED_CLAUSE_EN.match(text)
    if not obj and not decided:
        return None
    if _CONSIDER_EN.search(text) or _DONT_RELY_EN.search(text):
        return _topic_en(text)
    verb = _RETRACT_VERB_EN.search(text)
    if verb and obj and obj.start() >= verb.end() - 1 and obj.start() - verb.end() < 30:
        return _topic_en(text)
    start = obj.end() if obj else 0
    if _INVALID_EN.search(text, start if not decided else 0):
        return _topic_en(text)
    return None
