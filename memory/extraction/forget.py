"""Forget commands: "forget that I live in Beijing" (the attribute and value said), "forget my
timezone" (a noun names the attribute: every value), "forget what I told you about my salary" (a
personal topic the registry has no name for: `profile.<topic>` and everything under it), "wipe
everything you know about me" (every personal family).

A target is only taken for a memory when it is the user's own ("my …", "about me", "我的…") or
the wording is about memory ("forget", "stop remembering", "the note about", "别记了"): "delete
this file" and "clear my calendar" are requests to act, not to forget.

The patterns and the nouns a forget names are in `memory/data/families/forget.toml`."""

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
from .spec import Spec
from .text import clean, slugify

SPEC = Spec("forget")
# a match on a family: the attribute and everything under it
FAMILY = "family"
# a target named by the user's words, found among what is stored when the forget applies
ABOUT = "about"
# "everything you know about me": the personal families
EVERYTHING = tuple(SPEC.words["everything"])

_FORGET_EN = SPEC.expressions["forget_en"]
_FORGET_ZH = SPEC.expressions["forget_zh"]
# object first: "把我住哪个城市忘掉吧", "我感情方面的事别再记着了", "我不想让你记着我的目标"
_OBJECT_FIRST_ZH = SPEC.expressions["object_first_zh"]
_NOT_KEEP_ZH = SPEC.expressions["not_keep_zh"]
_NOT_KEEP_EN = SPEC.expressions["not_keep_en"]
_FORGET_TAIL = SPEC.expressions["forget_tail"]
_TARGET_LEAD = SPEC.expressions["target_lead"]
# the user's own, or about memory: otherwise "delete this file" / "clear my calendar" is a request to act
_OWN = SPEC.expressions["own"]
_MEMORY_WORDING = SPEC.expressions["memory_wording"]
_EVERYTHING = SPEC.expressions["everything"]
_FORGET_NOUNS: list[tuple[re.Pattern[str], str, bool]] = [
    (pattern, named["attribute"], named["family"]) for pattern, named in SPEC.pairs("forget_nouns")
]
_FORGET_PREFIX = SPEC.expressions["forget_prefix"]
_DETERMINERS = SPEC.expressions["determiners"]


# a forget's target ends where the sentence goes on ("forget my favourite band, I don't want that stored")
_TARGET_END = SPEC.expressions["target_end"]


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
_SAID_LEAD = SPEC.expressions["said_lead"]
_SAID_TAIL = SPEC.expressions["said_tail"]
# a thing said, named as one: "the standup note", "the divorce stuff", "the bit about …"
_SAID_THING = SPEC.expressions["said_thing"]
_SAID_THING_LEAD = SPEC.expressions["said_thing_lead"]
# the words pointing at a thing said ("游泳那个", "腰的事")
_ZH_POINTING = SPEC.expressions["zh_pointing"]
# a thing pointed at as said before: "刚才说的那个药", "我之前跟你提过的那个"
_ZH_SAID_BEFORE = SPEC.expressions["zh_said_before"]
_SAID_THING_HEAD = SPEC.expressions["said_thing_head"]


def _topic(target: str) -> str:
    """A forget's target without its possessives and determiners ("my favourite band" -> "favourite band")."""
    topic = re.sub(r"^(?:我的?|关于|有关)+", "", _FORGET_PREFIX.sub("", target))
    topic = re.sub(r"(?:的(?:事|事情|情况)?|方面的事|这块)$", "", _ZH_POINTING.sub("", topic))
    while _DETERMINERS.match(topic):
        topic = _DETERMINERS.sub("", topic)
    return clean(topic)


# every forget shape above has one of these words (checked first, so most sentences stop here)
_ANY_FORGET = SPEC.expressions["any_forget"]


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
