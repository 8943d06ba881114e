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
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from .decision import decision_attribute
from .prefilter import one_of
from .text import rx, zh

# What can be retracted: a piece of project knowledge the user (or the team) arrived at.
_OBJECT_EN = r"""
    (?:conclusions?|decisions?|estimates?|estimations?|analys[ie]s|findings?|results?|assumptions?|
    hypothes[ie]s|diagnos[ie]s|assessments?|recommendations?|plans?|verdicts?|root\ cause|
    numbers|figures|forecasts?|projections?|calculations?|inferences?|judge?ments?|premises?|
    predictions?|proposals?|theory|theories|guess|guesses|takeaways?|call|deadline|timeline|
    data|agreement|approach|claims?|interpretations?|hunch|
    stats|statistics|metrics|benchmarks?|measurements?|quote|reasoning|ETA|schedule|roadmap|
    diagnostic|evaluation|appraisal|valuation|baseline|story\ points)
"""
# a determiner or a qualifier that makes it a specific earlier one ("that", "the previous", "our")
_DET_EN = r"""
    (?:that|this|those|these|the|our|my|your|its|their)\s+
    (?:(?:earlier|previous|prior|original|old|initial|first|last|latest|current|whole|same|
    [\w\-]+(?:\s+[\w\-]+){0,2})\s+)?
"""
# "was based on incorrect information", "came from a broken setup"
_BAD_BASIS_EN = r"""
    (?:based|built|relied|founded|resting)\s+on\s+(?:(?:a|an|the|some|our|my)\s+)?(?:(?:really|completely|totally|
    partly|partially)\s+)?(?:wrong|incorrect|bad|faulty|flawed|outdated|stale|bogus|inaccurate|false|broken|
    corrupt(?:ed)?|mistaken|misleading|erroneous|invalid|incomplete|old|dirty|buggy|garbage)\b
"""
# ... no longer holds, is invalid, was wrong, needs redoing (the predicate carries the retraction)
_INVALID_EN = rx(
    r"""
    \b(?:no\ longer\ (?:holds?|stands?|applies|valid|true|accurate|correct|relevant|the\ plan|
    happening|on|in\ place|reliable|realistic|feasible|viable|achievable|doable|on\ track|applicable|usable|
    stand(?:s)?\ up|makes?\ sense)|
    (?:doesn'?t|does\ not|don'?t|do\ not|won'?t|can'?t|cannot)\s+(?:hold|stand|apply)
    (?!\s+(?:back|on|off|by|your|my|me))(?:\s+up)?
    (?:\s+any\s?more)?|
    (?:is|are|was|were|'s|'re|has\ been|have\ been|'s\ been|'ve\ been|had\ been|got|gets?|turned\ out\ to\ be|
    turns\ out\ to\ be|
    proved|proven\ to\ be|is\ now|are\ now|seems?\ to\ be|looks?)\s+(?:(?:now|all|totally|completely|clearly|
    actually|officially|definitely|probably|way|pretty|quite|a\ bit|so|very|really|badly|just|simply|also|
    entirely|plain|dead|flat[- ]out|likely|apparently)\s+)*(?:invalid|invalidated|void|
    null\ and\ void|
    obsolete|outdated|out\ of\ date|moot|dead|wrong|incorrect|inaccurate|mistaken|bogus|off(?!\s+by\b)|
    off\ the\ table|cancell?ed|reversed|overturned|retracted|withdrawn|scrapped|scratched|dropped|
    rescinded|revoked|debunked|disproven|disproved|a\ red\ herring|a\ mistake|an?\ error|pulled|abandoned|shelved|
    nixed|killed|premature|flawed|unfounded|baseless|misguided|off[- ]base|wrong-headed|garbage|junk|useless|worthless|
    meaningless|unrealistic|not\ realistic|false|untrue|not\ true|not\ the\ case|fiction|fantasy|
    a\ (?:false\ (?:alarm|positive|lead)|fluke|misread(?:ing)?|misunderstanding|coincidence|mirage|dead\ end|
    measurement\ error|bug\ in\ (?:the|our)\ \w+)|
    not\ (?:valid|accurate|correct|right|true|reliable|reproducible|trustworthy)|no\ good|unreliable|stale|superseded|
    overruled|thrown\ out|ruled\ out|refuted|contradicted|irrelevant|unusable|not\ usable|not\ reproducible|
    irreproducible|unreproducible|"""
    + _BAD_BASIS_EN
    + r""")|
    (?:isn'?t|aren'?t|is\ not|are\ not|wasn'?t|weren'?t)\s+(?:(?:really|actually|even)\s+)?(?:valid|accurate|correct|
    right|true|reliable|the\ plan|the\ case|reproducible|trustworthy)(?:\s+any\s?more)?|
    can'?t\s+be\s+(?:trusted|relied\s+(?:on|upon)|used|reproduced|replicated|confirmed)|
    cannot\s+be\s+(?:trusted|relied\s+(?:on|upon)|used|reproduced|replicated|confirmed)|
    (?:couldn'?t|could\ not)\s+be\s+(?:reproduced|replicated|confirmed)|
    (?:doesn'?t|does\ not|don'?t|do\ not|didn'?t|did\ not)\s+(?:reproduce|replicate)|
    shouldn'?t\s+be\s+(?:used|trusted|relied\ on)|
    should\s+(?:not|n'?t)\s+be\s+(?:used|trusted)|
    needs?\s+(?:to\s+be\s+)?(?:recalculat|redo|redone|re-?do|rework|revisit|recomput|
    re-?estimat|re-?evaluat|reassess|re-?assess|re-?examin|re-?run|re-?check|re-?verif)\w*|
    (?:has|have)\s+(?:been\s+)?(?:changed|fallen\ through|collapsed|fallen\ apart)|
    is\ out|are\ out|fell\ apart|fell\ through|went\ out\ the\ window|(?:is|are)\ out\ the\ window|
    (?:didn'?t|did\ not|doesn'?t|does\ not|won'?t)\s+(?:pan\ out|hold\ up|add\ up|check\ out|work\ out|stand\ up)|
    fell\ flat|(?:was|were|got|has\ been|have\ been)\s+(?:disproven|disproved|debunked|ruled\ out|refuted|falsified|
    contradicted|invalidated|thrown\ out|scrapped|withdrawn|retracted|dropped|cancell?ed|reversed|overturned))
    """
)
# scrap that estimate / disregard the earlier diagnosis / we're retracting the recommendation
_RETRACT_VERB_EN = rx(
    r"""
    (?:^|\b(?:please|let'?s|let\s+us|just|so|and|(?:I|we|you)(?:'ve|'re|'m|'ll|'d|\s+have|\s+are|\s+am|\s+will|
    \s+had|\s+would)?)\s+)(?:(?:can|could|should|must|need\s+to|have\s+to|want\s+to|would\s+like\s+to|like\s+to|
    going\s+to|officially|formally|hereby|now|also|just|fully|have|had|will|completely|totally|basically)\s+)*
    (?:scrap|scraps|scrapped|scrapping|scratch|scratched|scratching|disregard|disregarded|disregarding|
    ignore|ignored|ignoring|discard|discarded|discarding|throw\ out|threw\ out|thrown\ out|throwing\ out|
    toss|tossed|tossing|toss\ out|tossed\ out|withdraw|withdraws|withdrawing|withdrew|withdrawn|
    retract|retracts|retracting|retracted|revoke|revoked|revoking|rescind|rescinded|rescinding|
    take\ back|takes\ back|took\ back|taken\ back|taking\ back|invalidate|invalidated|invalidating|
    void|voided|voiding|drop|dropped|dropping|overturn|overturned|overturning|reverse|reversed|reversing|
    throw\ away|threw\ away|thrown\ away|throwing\ away|bin|binned|trash|trashed|junk|junked|
    ditch|ditched|ditching|shelve|shelved|shelving|abandon|abandoned|abandoning|nix|nixed|kill|killed|
    walk\ back|walked\ back|walking\ back|dismiss|dismissed|reject|rejected|cancel|cancell?ed|forget\ about|
    no\ longer\ stand\ (?:by|behind)|can\ no\ longer\ stand\ (?:by|behind)|can'?t\ stand\ (?:by|behind)|
    (?:don'?t|do\ not)\ stand\ (?:by|behind)|stop\ using|stop\ relying\ on|back\ away\ from|backing\ away\ from)
    \s+
    """
)
_OBJECT_REF_EN = rx(r"\b(?:" + _DET_EN + r")?" + _OBJECT_EN + r"\b")
# "what we decided (at the last meeting)", "the thing we agreed on", "what I said about the deadline"
_DECIDED_CLAUSE_EN = rx(
    r"""
    \b(?:what|everything|whatever|anything|the\ (?:thing|stuff|part|bit)s?)\s+(?:I|we|the\ team|you\ and\ I)\s+
    (?:(?:had|have|'ve|just|originally|initially|first)\s+)*(?:decided|agreed(?:\ on)?|concluded|estimated|found|
    figured(?:\ out)?|said|claimed|assumed|told\ you|reported|guessed|predicted|calculated|worked\ out|
    came\ up\ with|settled\ on|worked\ out|wrote|suggested|recommended|proposed)\b
    """
)
# wording that gives a replacement: a correction, not a retraction
_REPLACEMENT_EN = rx(
    r"""
    \b(?:instead|rather|now\ (?:it'?s|we'?re|we\ will|we'll|the\ answer)|it'?s\ actually|
    actually\ it'?s|should\ (?:be|read)|the\ (?:real|right|correct|actual|new)\ (?:one|answer|value|
    cause|number|estimate|figure|date)\s+is|replaced\ (?:by|with)|switch(?:ing|ed)?\ to|going\ with|we'?ll\ use|
    we\ will\ use|we'?re\ using|changed\ to)\b
    """
)
# a statement about someone else's work is not the user's retraction
_OTHERS_EN = rx(
    r"""
    ^(?:my\s+(?:friend|brother|sister|cousin|colleague|coworker|boss|mom|dad)|he|she|they|his|her|their)\b|
    \b(?:the\ )?(?:doctor|doctor's|dentist|weather|mechanic|plumber|lawyer|media|news|press|government|
    (?!(?:Let|It|That|What|Here|There|Who|This|Where|How|Monday|Tuesday|Wednesday|Thursday|Friday|Saturday|Sunday|
    Today|Yesterday|Tomorrow|January|February|March|April|May|June|July|August|September|October|November|
    December)'s)(?-i:[A-Z][a-z]+)'s|(?:client|customer|vendor|contractor|consultant|agency|auditor|analyst|professor|
    teacher|landlord|competitor|other\ team|partner)'s)\b
    """
)
# a preference or a fact about the user is not project knowledge ("ignore what I said about my timezone")
_PERSONAL_EN = rx(
    r"\b(?:timezone|time\s+zone|language|city|where\s+I\s+live|answers?|replies|format|length|style|name|age|"
    r"birthday|address|goal|priorit(?:y|ies)|expertise|level)\b"
)

_OBJECT_ZH = r"""
    (?:结论|判断|估算|估计|预估|估值|估时|估期|预计|预期|测算|计算|分析|发现|结果|假设|推论|推断|推测|猜测|猜想|诊断|
    评估|建议|方案|计划|决定|决策|定论|数字|数据|预测|根因|原因|工期|时间线|排期|截止日期|截止时间|提案|说法|
    论断|判定|共识|定的(?:东西|事|那些)?|估的(?:时间|工期|那个)?|结论性意见|看法|观点|报价|定性|认定|理论|解读|
    推理|论点|想法|意见|研判|统计|指标|基准|测试结果|路线图|提议|判读|结论和建议|上线日期|发布日期|交付日期|日期|
    (?:之前|刚才|上次|先前|此前|早上|昨天|前面)(?:我|我们)?(?:说|讲|提|给|报|发|定)的(?:那个|那些|那句|话)?)
"""
_BAD_BASIS_ZH = (
    r"(?:基于|建立在|依据|根据|用的是|来自)(?:了)?(?:一些|一份|一批|一个|一套|一组)?(?:错误|有问题|过时|不准确?|不对|不完整|有误|有偏差|"
    r"失真|脏|假|旧|虚假|错|有缺陷|有bug|坏掉|坏了|出错|有毛病)的?[\u4e00-\u9fffA-Za-z]{1,8}"
)
_INVALID_ZH = zh(
    r"""
    作废|不成立|不算数|不算了|不作数|失效|无效|不准(?:了|确)?|不可信|靠不住|不靠谱了?|撤回|收回|
    撤销|推翻|误判|(?:是|被证明是|证明是|其实是|原来是|结果是|事实证明是)?错(?:的|了)|搞错了|不对了?|过时了?|
    不再(?:适用|成立|有效|准确)|不适用了?|没用了|用不了了|不能用了|不能再用|别再用|取消了?|被否(?:了|决了?)|
    否掉了?|翻篇了?|要?重新(?:算|估|做|评估|计算|测算|分析|来|定)|得重新|要重做|需要重做|不用管了|
    站不住(?:脚)?|不成立了|白做了|没有参考价值|没参考价值|不能参考|有误|有错|出错了|不准确|别用了?|不要用了?|
    不要再用|先不要用|先别用|不能用|不能信|(?:你)?(?:就)?当(?:我)?没(?:听过|说过|说|讲过)|忽略(?:掉)?|(?:别|不要|不用)当真|
    放弃了?|弃用|别信了?|不要信了?|(?:别|不用|不要|不必)(?:再)?(?:参考|管|看)了?|被排除|排除了|误报|假阳性|
    说不通|不实|是假的|不真实|有偏差|偏差(?:很|太|挺)?大|离谱|复现不了|无法复现|没法复现|不能复现|
    不可复现|经不起推敲|不靠谱|太草率|草率了|站不住|废了|不管用了|不成立|被证伪|证伪了|被否定|否定了|推倒重来|
    不现实|不切实际|不可行|行不通|做不到|来不及了|不再认|不认了|不再采用|不再坚持|
    """
    + _BAD_BASIS_ZH
    + r"""
    """
)
_REPLACEMENT_ZH = zh(
    r"改成|改为|换成|改用|换用|应该是|其实是(?!错|误)|而是|实际上是|正确的是|现在是|现在用|改回|新的(?:结论|估算|数字)是"
)
_OTHERS_ZH = zh(
    r"^(?:我)?(?:朋友|同事|哥|姐|弟|妹|爸|妈|老板|领导|他|她|他们|她们|别人|人家)|医生|天气|新闻|媒体|政府|专家说"
)
# "我收回之前的估算", "请忽略我今天早上说的结论", "上次的建议我们撤回": a verb that takes it back
_RETRACT_VERB_ZH = zh(
    r"(?:收回|撤回|撤销|推翻|作废|废弃|忽略|无视|放弃|否定|否决|推倒|不要再用|别再用|不再用|别用|不要用|别信|不要信|不再坚持|"
    r"不再支持)(?:掉|了)?(?:我|我们|你)?(?:之前|此前|先前|刚才|上次|昨天|今天|早上|原来|原先|当初)?"
)
_OBJECT_REF_ZH = zh(_OBJECT_ZH)
# "团队一致决定放弃…": 决定 as a verb, the decision itself
_VERB_USE_ZH = zh(r"(?:一致|最终|最后|已经|刚刚|共同|集体|我们|团队|大家|我|就|都)$")
# words that are verbs as often as nouns (决定, 估计, 建议, 分析): a noun only when what follows is a
# predicate about it ("决定被推翻", "估计作废"), not the verb's object ("决定取消耳机孔", "估计明天能好")
_AMBIGUOUS_ZH = frozenset(
    {
        "决定",
        "决策",
        "估计",
        "预计",
        "建议",
        "计划",
        "分析",
        "判断",
        "评估",
        "预测",
        "推测",
        "猜测",
        "测算",
        "计算",
        "假设",
        "发现",
        "认定",
        "预估",
        "估算",
        "意见",
        "想法",
        "看法",
    }
)
_NOUN_NEXT_ZH = zh(
    r"""
    ^(?:[”"」』]|(?:我们?|大家|团队|你)?(?:之前|已经|都|也|就|现在|目前|其实|可能|应该|完全|基本|根本|彻底|全部|终究|
    终于|最终|后来|被证明|证明|事实上)*(?:被|作废|不|无|失效|撤|收回|推翻|取消了|是|有|要|得|了|过时|错|站不住|靠不住|
    没用|别|废|误|存疑|经不起|太|偏|离谱|复现|基于|建立在|依据|根据|用的|可能|并|[，,。；;！!]|$))
    """
)
# "他的分析错了": someone else's
_THEIRS_ZH = zh(
    r"(?:他|她|他们|她们|别人|人家|对方|同事|朋友|老板|领导|医生|专家|导师|老师|教授|作者|客户|竞品|媒体|网上|网友|分析师|律师|"
    r"顾问|同学|室友|邻居|家人|爸|妈|哥|姐|弟|妹)(?:的|那个|那份|说的|给的)$"
)


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


_DONT_RELY_EN = rx(
    r"\b(?:don'?t|do\s+not|stop|no\s+longer|can'?t|cannot)\s+(?:rely(?:ing)?\s+on|us(?:e|ing)|trust(?:ing)?|"
    r"count(?:ing)?\s+on|go(?:ing)?\s+by|build(?:ing)?\s+on|act(?:ing)?\s+on)\s+" + _DET_EN + _OBJECT_EN
)
# "treat that estimate as void", "…, so treat it as invalid"
_CONSIDER_EN = rx(
    r"\b(?:consider|treat|mark|call|count|regard|flag)\s+(?:"
    + _DET_EN
    + _OBJECT_EN
    + r"|it|them|that|this|those)\s+(?:as\s+)?(?:void|invalid|dead|scrapped|withdrawn|"
    r"cancell?ed|retracted|null|obsolete|outdated|wrong|unreliable|retired|superseded|moot|not\s+valid)\b"
)

# --- the conclusion's own content: quoted, or a "that"-clause / 说…的结论 ---------------------------
_QUOTED = r"""(?:'(?P<q1>[^']{2,200}?)'(?=[\s,.;:!?)]|$)|"(?P<q2>[^"]{2,200}?)"|“(?P<q3>[^”]{2,200}?)”|
    ‘(?P<q4>[^’]{2,200}?)’|「(?P<q5>[^」]{2,200}?)」|『(?P<q6>[^』]{2,200}?)』)"""
_CONTENT_NOUN_EN = r"""
    (?:conclusions?|assumptions?|hypothes[ie]s|claims?|findings?|beliefs?|theory|theories|ideas?|premises?|
    estimates?|diagnos[ie]s|assessments?|guess|guesses|predictions?|verdicts?|notions?|statements?|
    recommendations?|decisions?|inferences?|understanding|takeaways?|reading|interpretations?|explanations?|
    analys[ie]s|results?|determinations?|judge?ments?)
"""
_QUOTE_AFTER_EN = rx(_CONTENT_NOUN_EN + r"\s*(?:of|that|was|is|:|,|—|–|-)?\s*" + _QUOTED)
_QUOTE_BEFORE_EN = rx(_QUOTED + r"\s+(?:as\s+an?\s+|as\s+the\s+)?" + _CONTENT_NOUN_EN + r"\b")
_THAT_CLAUSE_EN = rx(r"\b" + _CONTENT_NOUN_EN + r"\s+that\s+(?P<v>.{3,200})")
# "the conclusion that we reached": a relative clause, not the content
_RELATIVE_EN = rx(
    r"""
    ^(?:was|were|is|are|has|had|have|got|came|we|I|you|they|the\ team|he|she|everyone|you\ and\ I)\b
    (?:\s+(?:all|had|have|'ve|just|originally|initially|first|then|finally|eventually|collectively))*
    (?:\s|$)(?:(?:reached|made|drew|drawn|came|arrived|gave|given|shared|had|did|got|found|wrote|presented|
    settled|agreed|put|relied|used|based|were|was|ran|built|derived|published|sent|pitched|proposed|
    formed|took|based|worked|went|decided|reported|landed)\b|(?-i:[a-z]+ed)\b)?
    """
)
_QUOTE_ZH = zh(_QUOTED + r"\s*(?:的|这个|那个|这一|这条|那条)?\s*(?:" + _OBJECT_ZH + r")")
_QUOTE_ZH_AFTER = zh(r"(?:" + _OBJECT_ZH + r")\s*[：:]?\s*" + _QUOTED)
_SAID_ZH = zh(
    r"(?:说|认为|判断|得出|以为|觉得|断定|认定|推断|猜)(?P<v>[^，,。；;！!？?]{2,60}?)的(?:那个|这个|那条|这条|那一|这一)?"
    r"(?:结论|判断|推论|假设|猜测|猜想|说法|看法|观点|推断|论断|判定|定论)"
)


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
