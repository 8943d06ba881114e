"""Forget commands: "forget that I live in Beijing" (the attribute and value said), "forget my
timezone" (a noun names the attribute: every value), "forget what I told you about my salary" (a
personal topic the registry has no name for: `profile.<topic>` and everything under it), "wipe
everything you know about me" (every personal family).

A target is only taken for a memory when it is the user's own ("my …", "about me", "我的…") or
the wording is about memory ("forget", "stop remembering", "the note about", "别记了"): "delete
this file" and "clear my calendar" are requests to act, not to forget."""

from __future__ import annotations

import re
from datetime import datetime
from typing import Any

from ..registry import lookup
from .confirm import CONFIRM_BEFORE
from .everyday import everyday_hits
from .families import analyze
from .open_statement import names_someone_else
from .prefilter import one_of
from .text import clean, rx, slugify, zh

# a match on a family: the attribute and everything under it
FAMILY = "family"
# a target named by the user's words, found among what is stored when the forget applies
ABOUT = "about"
# "everything you know about me": the personal families
EVERYTHING = ("profile", "preference", "health", "goal", "priority", "rule")

_LEAD_EN = r"""
    (?:(?:hey|hi|ok|okay|oh|btw|actually|yeah|also|and|so|then|wait|hmm|on\s+second\s+thought)\b[\s,]+|please\s+|
    kindly\s+|just\s+)*(?:(?:can|could|would|will)\s+you\s+(?:please\s+)?|
    you\s+(?:can|may|should)\s+|(?:I'?d|I\s+would)\s+like\s+you\s+to\s+|I\s+(?:want|need)\s+you\s+to\s+|
    go\s+ahead\s+and\s+|I'?d\s+(?:rather|prefer)\s+you\s+|I\s+(?:don'?t|do\s+not)\s+want\s+you\s+to\s+|
    I'?d\s+prefer\s+(?:it\s+)?if\s+you\s+)?(?:please\s+)?
"""
_VERB_EN = r"""
    (?:forget|delete|remove|erase|clear|drop|wipe|purge|unlearn|un-?remember|scrub|discard|get\s+rid\s+of|take\s+out|
    scratch|scrap|nix|toss|strike|cross\s+out|
    stop\s+(?:remembering|storing|keeping|tracking|saving)|(?:don'?t|do\s+not|didn'?t)\s+(?:remember|keep|store|save|
    track|
    hold\s+on\s+to)|no\s+need\s+to\s+(?:remember|keep|store))
"""
_FORGET_EN = rx(r"^" + _LEAD_EN + r"(?P<verb>" + _VERB_EN + r")\s+(?P<t>.+)")
_FORGET_ZH = zh(
    r"""
    ^(?:请|麻烦|拜托)?(?:你)?(?:帮我)?(?:把|将)?(?P<verb>忘掉|忘记|忘了|删除|删掉|删了|清除|清掉|清空|抹掉|去掉|移除|
    不要再记(?:着|住)?|别再记(?:着|住)?|不用(?:再)?记(?:着|住)?|别记(?:着|住)?|不要记(?:着|住)?|别再存|不要再存|
    别存|不用存|不要存|别保存|不要保存|不要再保存|不用再存|别再存了)(?:关于)?(?P<t>.+)
    """
)
# object first: "把我住哪个城市忘掉吧", "我感情方面的事别再记着了", "我不想让你记着我的目标"
_OBJECT_FIRST_ZH = zh(
    r"""
    ^(?!我(?:已经|刚|刚刚|昨天|今天)?(?:把|将|已经))(?:请|麻烦|拜托|以后|今后)?(?:你)?(?:能|能不能|可以|可不可以|能否)?(?:帮我)?(?:把|将)?(?P<t>.+?)(?:你)?(?:都|就|也|全部|全都|统统|一并)?
    (?P<verb>忘掉|忘记|忘了|删除|删掉|删了|清除|清掉|清空|抹掉|去掉|移除|不要再记(?:着|住)?|别再记(?:着|住)?|
    不用(?:再)?记(?:着|住)?|别记(?:着|住)?|不要记(?:着|住)?|别再存|不要再存|别存|不用存|不要存|别保存|不要保存|不用保存|
    不用再存|不要再保存)(?:了|吧|啊|哈|掉|好了|吧。|吗|嘛|呢)*
    (?:[，,。！!\s].*)?$
    """
)
_NOT_KEEP_ZH = zh(
    r"""
    ^(?:以后)?(?:我)?(?:不想|不希望|不要|别)(?:让)?你(?:再)?(?:记|记着|记住|存|保存|留着)(?P<t>.+?)(?:了|吧)?(?:[，,。\s].*)?$|
    ^(?:以后)?(?:你)?(?:别|不要|不用)(?:再)?(?:记|记着|记住|存|保存|留着)(?P<t2>.+?)(?:了|吧)?(?:[，,。\s].*)?$|
    ^(?:就)?当我没(?:说过|讲过|提过|说)(?P<t3>.+?)(?:[，,。\s].*)?$
    """
)
_NOT_KEEP_EN = rx(
    r"""
    ^(?:(?:on\s+second\s+thought|actually|hmm|hey|ok|okay|oh|also|and|btw|wait|never\s+mind)[\s,]+)*
    (?:I\s+(?:don'?t|do\s+not)\s+want\s+you\s+to\s+(?:remember|know|keep|store|save)|
    I'?d\s+rather\s+you\s+(?:didn'?t|did\s+not)\s+(?:remember|know|keep|store)|
    (?:please\s+)?(?:don'?t|do\s+not)\s+(?:keep|store|save|remember|hold\s+on\s+to))\s+(?P<t>.+)
    """
)
_FORGET_TAIL = zh(
    r"""
    (?i)\s*(?:from|in|out\s+of)\s+(?:your\s+)?(?:memory|memories|records?|notes?|database|profile)\b.*$|
    \s*from\s+what\s+you\s+(?:know|have|remember|stored|saved)\b.*$|
    \s*[,;]\s*(?:please\s+)?(?:wipe|delete|forget|remove|erase|clear|drop)\s+(?:it|them|that)\b.*$|
    \s*[,;]\s*(?:all\s+of\s+it|everything|please|I\s+don'?t\s+want\s+(?:it|them)\s+(?:stored|kept|saved|
    remembered))\b.*$|
    \s+(?:any\s?more|for\s+good|permanently|completely|entirely|too|as\s+well|please)\b.*$|
    (?:的)?(?:这条|这件事|这个|这些|那些)?(?:记忆|记录|信息|偏好|资料|内容|事情?)?(?:都|全部|也)?$
    """
)
_TARGET_LEAD = zh(
    r"""
    (?i)^(?:about\s+|the\s+fact\s+that\s+|that\s+|
    what(?:ever)?\s+(?:I\s+(?:said|told\s+you|mentioned|shared|wrote)|you\s+(?:know|have|remember|stored|
    saved))\s+(?:about|regarding|on|of)\s+|
    (?:everything|anything|all)\s+(?:I\s+(?:said|told\s+you|mentioned)|you\s+(?:know|have|remember))\s+(?:about|
    regarding|on)\s+|
    (?:the|any|all|my|that|this)\s+(?:stored\s+|saved\s+)?(?:notes?|info|information|records?|entries|entry|
    memor(?:y|ies)|details?|bits?|parts?|things?|line|piece|
    stuff|data|facts?)\s+(?:about|on|regarding|re|of|for)\s+|(?:your\s+)?memor(?:y|ies)\s+(?:about|of|on)\s+)+|
    ^(?:关于|有关)?(?:你知道的|知道的|记得的|你记得的|你记下的|你记下来的|记下来的|记下的|存下来的|保存的|记住的|我跟你说过的|我和你说过的|
    我告诉过你的|我说过的|跟你说过的)?(?:关于|有关)?
    """
)
# the user's own, or about memory: otherwise "delete this file" / "clear my calendar" is a request to act
_OWN = zh(r"(?i)(?:my|our)\b|我(?!们的?(?:公司|团队))|自己")
_MEMORY_WORDING = zh(
    r"""
    (?i)\b(?:forget|unlearn|remember(?:ing)?|stor(?:e|ed|ing)|sav(?:e|ed)|keep|keeping|memory|memories|
    note|notes|info|information|records?|know|told\ you|said)\b|忘|记|存|信息|记录|记忆|资料|跟你说过|告诉过你
    """
)
_EVERYTHING = zh(
    r"""
    (?i)^(?:(?:everything|anything|all)(?:\s+(?:about\s+me|you\s+know(?:\s+about\s+me)?|of\s+it|
    I(?:'ve)?\s+told\s+you))*|
    (?:your\s+)?memor(?:y|ies)(?:\s+(?:about|of)\s+me)?(?:\s*,?\s*all\s+of\s+it)?|me|all\s+my\s+data|all\s+of\s+it)$|
    ^(?:关于我的)?(?:所有|全部|一切)(?:的)?(?:东西|记忆|记录|信息|内容|事)?$|^(?:我的)?(?:所有|全部)?(?:记忆|记录|信息)$|
    ^(?:关于)?我的?(?:事|事情|一切|所有事|全部|所有)?(?:情)?$
    """
)
_FORGET_NOUNS: list[tuple[re.Pattern[str], str, bool]] = [
    (
        rx(
            r"\b(?:home\s*city|city|location|address|where\ I\ live|where\ I'm\ based)\b|住址|住在哪|住哪|城市|居住"
            r"地|所在地|地址"
        ),
        "profile.home_city",
        False,
    ),
    (rx(r"\btime\s?zone\b|时区"), "profile.timezone", False),
    (rx(r"\blanguage(?:\s+(?:preference|setting))?\b|语言"), "preference.language", False),
    (
        rx(
            r"""
            \b(?:answer|response|reply)\s+(?:length|detail|style)\b|
            \b(?:verbosity|detail\s+preference|length\s+preference)\b|回答(?:长度|详细程度|长短)|
            详细程度|回复长度|字数
            """
        ),
        "preference.response.detail",
        False,
    ),
    (rx(r"\bexplanation\s+style\b|讲解(?:方式|风格)|解释(?:方式|风格)"), "preference.explanation_style", False),
    (
        rx(r"\b(?:expertise|skill\ level|experience\ level|skills?)\b|水平|专业程度|技能水平|技能"),
        "profile.expertise",
        True,
    ),
    (rx(r"\bgoals?\b|目标"), "goal.main", False),
    (rx(r"\b(?:priority|priorities|focus)\b|优先级|重点|优先事项"), "priority.focus", False),
    (rx(r"\b(?:confirmation|approval)\s+rules?\b|确认规则"), "rule.confirm_before", False),
    (rx(r"\b(?:project\s+)?decisions?\b|(?:项目)?决策|(?:项目)?决定"), "knowledge.decision", True),
    (rx(r"\b(?:preferences|settings)\b|偏好设置|(?:所有|全部)?偏好"), "preference", True),
    (rx(r"\b(?:health|medical|illness|diagnosis|condition)\b|健康|病情|身体状况|病史|疾病"), "health", True),
    (
        rx(
            r"\b(?:job\s+title|title|job|position|role|occupation)\b|职位|职务|岗位|职业|工作(?!日|时间|单位|邮箱|电话)"
        ),
        ABOUT,
        True,
    ),
    (rx(r"\b(?:salary|income|pay|wages?)\b|工资|薪水|薪资|收入"), ABOUT, True),
    (rx(r"\bphone(?:\s+number)?\b|手机号|电话|号码"), ABOUT, True),
    (rx(r"\b(?:birthday|date\s+of\s+birth|birth\s?date|age)\b|生日|年龄|出生"), ABOUT, True),
    (
        rx(r"\b(?:ex|exes|relationship|love\s+life|dating|girlfriend|boyfriend)\b|前任|感情|恋爱|对象"),
        ABOUT,
        True,
    ),
    (rx(r"\b(?:company|employer|workplace|where\ I\ work)\b|公司|单位|上一份工作|工作单位"), ABOUT, True),
    (rx(r"\b(?:family|kids?|children|wife|husband|partner|parents)\b|家人|家庭|孩子|父母"), "profile.family", True),
    # (the user's own name only: "my landlord's name" is someone else's)
    (rx(r"^(?:(?:full|first|last|real)\s+)?name$|^(?:我的?)?(?:名字|姓名)$"), "profile.name", False),
]
_FORGET_PREFIX = zh(r"(?i)^(?:my|the|that|about|your|我的|我|关于|有关)\s*")
_DETERMINERS = rx(r"^(?:my|the|our|about|of|all|any|saved|stored|current|old)\s+")


# a forget's target ends where the sentence goes on ("forget my favourite band, I don't want that stored")
_TARGET_END = re.compile(r"\s*(?:[,;，；。]|\s[—–-]\s)")


def _attribute_of(raw: str, at: datetime, memory_wording: bool) -> tuple[str, Any, bool] | None:
    """(attribute, value or None, family) a forget target names."""
    raw = _TARGET_END.split(raw, maxsplit=1)[0]
    target = clean(_FORGET_TAIL.sub("", raw).strip())
    # a target named as something the user said or the memory holds is a thing said, whatever its words
    said_as_such = bool(memory_wording and (_SAID_LEAD.match(target) or _SAID_TAIL.search(target)))
    for _ in range(2):
        target = clean(_TARGET_LEAD.sub("", target))
        target = clean(_FORGET_TAIL.sub("", target).strip())
    target = clean(_SAID_TAIL.sub("", target))
    if not target or re.fullmatch(r"(?i)it|this|that|them|those|these|它|这个|那个|这些|那些", target):
        return None
    if _EVERYTHING.match(target):
        return "*", None, True
    # "forget that I live in Beijing": the target says what (and which value) to forget; what
    # someone else has ("我老公过敏那个") is no attribute of the user's: its words name it below
    others = names_someone_else(target)
    hits = [] if others else analyze(target, at)
    if hits:
        return hits[0].attribute, hits[0].value, False
    # "forget that I'm vegetarian", "别记我养狗的事了": an everyday attribute; the value only where it
    # is canonical (a diet), since a free value ("dog") rarely equals the stored one ("dog: Max")
    everyday = [] if others else [h for h in everyday_hits(target, target, at) if not h.retract]
    if everyday:
        h = everyday[0]
        return h.attribute, (h.value if h.attribute.startswith("profile.diet") else None), False
    goal = re.match(r"(?i)^(?:my\s+)?goal\s+(?:to|of)\s+(.+)$", target)
    if goal:
        return "goal.main", clean(goal.group(1)), False
    # "forget my home city": a noun names the attribute (every value)
    noun = _FORGET_PREFIX.sub("", target)
    for noun_rx, attribute, family in _FORGET_NOUNS:
        if noun_rx.search(noun) and len(noun) <= 40:
            return (attribute, _topic(target), family) if attribute == ABOUT else (attribute, None, family)
    # anything else of the user's ("my favourite band", "我的生日"), or a thing said, named as one
    # ("the divorce stuff", "the anki thing", "the bit about saving for a house"): the words that
    # name it, for the engine to find among what is stored; never an attribute name made up from
    # the phrase
    said = _SAID_THING.search(raw) is not None or _SAID_THING.search(target) is not None
    if said:
        target = clean(_SAID_THING_HEAD.sub("", _SAID_THING_LEAD.sub("", target)))
    elif said_as_such:
        # "what I said about toppings", "the medication I mentioned", "that I'm using duolingo",
        # a thing said, named by the words left
        said = True
        target = clean(re.sub(r"(?i)^I(?:'m|\s+am|'ve|\s+have)?\s+", "", target))
        target = clean(_SAID_THING_HEAD.sub("", _SAID_THING_LEAD.sub("", target)))
    elif memory_wording and re.search(r"[\u4e00-\u9fff]", target):
        # "腰的事你别记了", "游泳那个你忘了吧": in Chinese any target of a verb about memory is a thing
        # said, named to be forgotten
        said = True
        target = clean(_ZH_POINTING.sub("", _ZH_SAID_BEFORE.sub("", target)))
    if not ((_OWN.match(target) or said) and (memory_wording or said)) or len(target) > 40 or not target:
        return None
    topic = _topic(target)
    if not topic:
        return None
    known = f"profile.{slugify(topic)}"
    if lookup(known) is not None and lookup(known).name == known:  # type: ignore[union-attr]
        return known, None, True  # "my pets": the name the registry has for it
    return ABOUT, topic, True


# what names a thing as said or held: "what I said about …", "the fact that I …", "that I …"
# (after "forget"), and a clause after it ("the medication I mentioned", "the name you saved")
_SAID_LEAD = re.compile(
    r"(?i)^(?:what(?:ever)?\s+I\s+(?:said|told\s+you|mentioned|shared|wrote)|(?:everything|anything|all)\s+I\s+"
    r"(?:said|told\s+you|mentioned))\s+(?:about|regarding|on|of)\b|^(?:the\s+fact\s+)?that\s+I\b"
)
_SAID_TAIL = re.compile(
    r"(?i)\s+(?:that\s+|which\s+)?(?:I|you)(?:'ve|\s+have)?\s+(?:mentioned|said|told\s+you|shared|brought\s+up|"
    r"saved|stored|noted|wrote\s+down|remember(?:ed)?|know|have)\b.*$"
)
# a thing said, named as one: "the standup note", "the divorce stuff", "the bit about …"
_SAID_THING = re.compile(
    r"(?i)^(?:the|that|this)\s+(?:(?:bit|part|thing|stuff|line|piece|detail)\s+(?:about|on|regarding|re)\b|"
    r"[\w' -]{1,30}?\s+(?:note|thing|stuff|bit|part|detail|info)s?$)"
)
_SAID_THING_LEAD = re.compile(r"(?i)^(?:the|that|this)\s+")
# the words pointing at a thing said ("游泳那个", "腰的事")
_ZH_POINTING = re.compile(
    r"(?:的事情?|的那个|那个|这个|那件事|这件事|这块|那块|的事儿|那事儿?|那条|这条|那句|这句|那段|这段)"
    r"(?:信息|记录|话)?(?:就?当我没(?:说过?|讲过|提过))?$|(?:就?当我没(?:说过?|讲过|提过))$"
)
# a thing pointed at as said before: "刚才说的那个药", "我之前跟你提过的那个"
_ZH_SAID_BEFORE = re.compile(
    r"^(?:我)?(?:刚才|刚刚|之前|上次|前面|昨天)?(?:跟你|和你)?(?:说|提|讲)(?:过)?的(?:那个|这个)?"
)
_SAID_THING_HEAD = re.compile(r"(?i)\s+(?:note|thing|stuff|bit|part|detail|info)s?$")


def _topic(target: str) -> str:
    """A forget's target without its possessives and determiners ("my favourite band" -> "favourite band")."""
    topic = re.sub(r"^(?:我的?|关于|有关)+", "", _FORGET_PREFIX.sub("", target))
    topic = re.sub(r"(?:的(?:事|事情|情况)?|方面的事|这块)$", "", _ZH_POINTING.sub("", topic))
    while _DETERMINERS.match(topic):
        topic = _DETERMINERS.sub("", topic)
    return clean(topic)


# every forget shape above has one of these words (checked first, so most sentences stop here)
_ANY_FORGET = zh(
    r"""
    (?i:forget|delete|remove|erase|clear|drop|wipe|purge|unlearn|un-?remember|scrub|discard|rid\s+of|take\s+out|stop|
    don'?t|scratch|scrap|nix|toss|strike|cross\s+out|
    do\s+not|didn'?t|no\s+need|rather)|忘|删|清|抹|去掉|移除|记|存|当我没
    """
)


# what the family cannot fire without (the prefilter's look): `forget_command` checks the words first,
# then reads what to forget with one of the patterns
FORGET_REQUIRES = one_of(_ANY_FORGET) & one_of(_FORGET_EN, _FORGET_ZH, _NOT_KEEP_EN, _NOT_KEEP_ZH, _OBJECT_FIRST_ZH)


def about_words(topic: str) -> list[str]:
    """The words a target is named by: English words, a Chinese phrase whole."""
    if re.search(r"[\u3400-\u9fff]", topic):
        return [w for w in re.split(r"[\s，,的]+", topic) if w][:12]
    return [w for w in re.findall(r"[\w'-]+", topic)][:12]


def forget_command(text: str, at: datetime) -> list[dict[str, Any]] | None:
    """The forget matches `text` asks for (one per attribute family), or None when it is not a forget."""
    if not _ANY_FORGET.search(text):
        return None  # no wording that could ask to forget: the cheap way out for most sentences
    if CONFIRM_BEFORE.hits(text, at) and not re.match(r"(?i)(?:please\s+)?forget\b|忘", text):
        return None  # "删除数据前先跟我确认", "delete files only after checking with me": a rule, not a forget
    m = _FORGET_EN.match(text) or _FORGET_ZH.match(text) or _NOT_KEEP_EN.match(text)
    found = _attribute_of(m.group("t"), at, bool(_MEMORY_WORDING.search(text))) if m else None
    if found is None:
        z = _NOT_KEEP_ZH.match(text) or _OBJECT_FIRST_ZH.match(text)
        if z:
            raw = (
                z.group("t")
                if "t" in z.re.groupindex and z.group("t")
                else (z.groupdict().get("t2") or z.groupdict().get("t3"))
            )
            # "最要紧的是把工单清掉": 把 inside the target makes it an action on a thing, not a forget
            if raw and not (z.re is _OBJECT_FIRST_ZH and "把" in raw):
                found = _attribute_of(raw, at, bool(_MEMORY_WORDING.search(text)))
    if found is None:
        return None
    attribute, value, family = found
    if attribute == "*":
        return [{"attribute": root, FAMILY: True} for root in EVERYTHING]
    if attribute == ABOUT:
        return [{ABOUT: about_words(str(value))}]
    match: dict[str, Any] = {"attribute": attribute}
    if value is not None:
        match["value"] = value
    if family:
        match[FAMILY] = True
    return [match]
