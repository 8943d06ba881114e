"""Everyday personal memory: what a user tells an assistant about their life (docs/concepts.md).

One grammar for fourteen families, English and Chinese. A sentence is read as
*who* (the user: "I", "my", "我"; a possessive for relatives and pets: "my wife Ana", "我老婆小美") +
*a frame* (a copula, a verb of having / keeping / liking / avoiding / using, a frequency, a limit) +
*what* (a value, from a closed vocabulary where there is one: diets, languages, seats), with
negation, hedges and tense handled around it:

- one-off past events ("I had pizza yesterday", "我昨天去了健身房") state nothing lasting;
- a negation of a closed or stated value ("I'm not vegetarian any more", "我现在吃肉了", "I don't like
  jazz anymore", "我不喜欢爵士乐了") becomes a retraction of that value (`Hit.retract`): the extractor
  emits a `retract` command with `match: {"attribute", "value"}` for a multi-valued attribute;
- other people's clauses are dropped by the extractor before most families look (`_about_user`),
  but family, pets, dates and a manager are *about* relatives, pets and colleagues: those families
  read the sentence before that step, and only through the user's possessive ("my wife", "我老婆").

Canonical values (so that a later retraction names the stored value):
- diets: English, lower case: vegetarian, vegan, pescatarian, lacto-ovo vegetarian, flexitarian, keto,
  paleo, low-carb, low-sodium, low-FODMAP, gluten-free, dairy-free, intermittent fasting,
  Mediterranean diet, light diet, calorie-controlled; "no <food>" for avoided foods with a known
  English name ("I don't eat pork", "我不吃猪肉" -> "no pork"; 辣 -> "no spicy food"); 吃素/素食 ->
  vegetarian, 纯素/全素 -> vegan, 蛋奶素 -> lacto-ovo vegetarian, 生酮 -> keto, 清真 -> halal
  (`profile.diet.religious`, like kosher);
- languages: the English name with the level when stated: "Spanish (fluent)", 日语 -> "Japanese".
"""

from __future__ import annotations

import re
from datetime import datetime

from ..models import Kind
from . import prefilter
from .accessibility import ACCESS_EN_REQUIRES, ACCESS_ZH_REQUIRES, accessibility
from .allergy import ALLERGY_EN_REQUIRES, ALLERGY_ZH_REQUIRES, allergy_en, allergy_zh
from .budget import BUDGET_EN_REQUIRES, BUDGET_ZH_REQUIRES, budget_en, budget_zh
from .dates import DATES_EN_REQUIRES, DATES_ZH_REQUIRES, dates
from .devices import DEVICES_EN_REQUIRES, DEVICES_ZH_REQUIRES, devices_en, devices_zh
from .diet import DIET_EN_REQUIRES, DIET_ZH_REQUIRES, diet_en, diet_zh
from .everyday_shared import ME_ZH, strip_subject_en
from .everyday_shared import SPEC as SHARED
from .family import Hit
from .languages_spoken import (
    LANGUAGES_EN_REQUIRES,
    LANGUAGES_SPOKEN_ZH,
    LANGUAGES_ZH_REQUIRES,
    languages_en,
    languages_zh,
)
from .likes import LIKES_EN_REQUIRES, LIKES_ZH_REQUIRES, likes_en, likes_zh
from .pets import PETS_EN, PETS_ZH_REQUIRES, pets_zh
from .prefilter import Trigger, one_of
from .relatives import RELATIVES_EN, RELATIVES_ZH_REQUIRES, relatives_zh
from .routine import ROUTINE_EN_REQUIRES, ROUTINE_ZH_REQUIRES, routine_en, routine_zh
from .text import clean, rx, zh
from .travel import TRAVEL_EN_REQUIRES, TRAVEL_ZH_REQUIRES, travel_en, travel_zh
from .work import MANAGER_EN, WORK_EN, WORK_ZH_REQUIRES, work_zh

Found = tuple[str, str, bool]  # (attribute, value, retract)

# ----------------------------------------------------------------------------------------------------
# shared pieces

_CJK = r"\u4e00-\u9fff"
_ADV = (
    r"(?:\s+(?:really|absolutely|totally|just|also|still|actually|honestly|mostly|usually|generally|always|"
    r"pretty\s+much|kind\s+of|sort\s+of|basically|now|currently|definitely|seriously|genuinely|mainly|only|"
    r"do|tend\s+to|truly|kinda|quite|so|even|typically|normally|often))*"
)
# a one-off past event ("I had pizza yesterday", "我昨天去了健身房"): nothing lasting
_ONE_OFF = zh(
    r"(?i:\b(?:yesterday|last\s+night|this\s+(?:morning|afternoon|evening)|today|tonight|just\s+now|"
    r"earlier\s+today|for\s+the\s+first\s+time|the\s+other\s+day)\b)|昨天|前天|今天|今早|今晚|昨晚|刚才|刚刚(?!开始)"
)
# a request or a wish about a thing, not a fact about the user
_REQUEST_EN = rx(
    r"\b(?:recommend|suggest|find|looking\s+for|need\s+(?:a|an|some)|want\s+(?:a|an|to)|recipe|help\s+me|"
    r"give\s+me|show\s+me|tell\s+me|write|plan|planning|thinking\s+(?:about|of)|should\s+I|how\s+(?:do|can)|"
    r"would\s+like|'d\s+like|wondering)\b"
)
_REQUEST_ZH = zh(
    r"推荐|找(?:一|个|家)|帮我|给我(?!开字幕)|有没有|哪里|哪家|怎么|想找|想吃|想买|想养|打算|准备|能不能|要不要|考虑"
)
_ME_ZH = ME_ZH
_NAME = SHARED.part("name")
_NAMES = SHARED.part("names")
_REL_ZH = SHARED.part("rel_zh")
_HOBBY_WORDS = SHARED.part("hobby_words")
_ZH_HOBBY_NOUN = SHARED.expressions["zh_hobby_noun"]
_FIRST_EN = rx(r"\b(?:I|I'm|I'd|I've|I'll|me|my|mine|myself|we|we're|we've|our|us)\b")


def _v(text: str) -> str:
    """A value: the phrase cleaned, cut at a trailing clause."""
    parts = re.split(
        r"(?i)\s*(?:[,;()（），；：。！!?？]|(?<!\d):|:(?!\d)|\s[-–—]\s|\b(?:but|because|since|so|which|and\s+(?:I|it|they|we))\b|"
        r"因为|所以|但是|不过|可是)",
        text,
    )
    v = clean(
        next((p for p in parts if p and p.strip() and not re.fullmatch(r"[\s,;:()（），；：。！!?？\-–—]*", p)), "")
    )
    v = re.sub(r"(?i)\s+(?:a\s+lot|so\s+much|too|as\s+well|these\s+days|lately|for\s+years|now)$", "", v)
    v = re.sub(r"^(?:the|a|an)\s+", "", v, flags=re.I)
    return v.strip()


# ----------------------------------------------------------------------------------------------------
# hobbies, sports teams, music (beyond what the likes frame routes here)

_HOBBY_EN: list[tuple[re.Pattern[str], str]] = [
    (rx(r"\bI\s+(?:\w+\s+)?support\s+(?P<v>(?-i:[A-Z][\w.'-]*(?:\s+[A-Z][\w.'-]*){0,3}))"), "profile.sports_teams"),
    (
        rx(
            r"\bI(?:'m|\s+am)\s+an?\s+(?:huge\s+|big\s+|massive\s+|die-hard\s+|lifelong\s+|diehard\s+|loyal\s+)?(?P<v>(?-i:[A-Z0-9][\w.'-]*(?:\s+[A-Z][\w.'-]*){0,2}))\s+(?:fan|supporter|guy|girl|man|woman|season\s+ticket\s+holder)\b"
        ),
        "profile.sports_teams",
    ),
    (rx(r"\b(?P<v>(?-i:[A-Z][\w.'-]*(?:\s+[A-Z][\w.'-]*){0,2}))\s+fan\b"), "profile.sports_teams"),
    (
        rx(
            r"^(?P<v>[^,.;!?]{2,40}?)\s+is\s+my\s+favou?rite\s+(?:artist|band|singer|album|song|composer|musician|rapper|group)"
        ),
        "profile.music",
    ),
    (rx(r"^(?P<v>[^,.;!?]{2,40}?)\s+is\s+(?:basically\s+|pretty\s+much\s+)?all\s+I\s+listen\s+to"), "profile.music"),
    (rx(r"\bI\s+(?:mostly\s+|mainly\s+|only\s+)?listen\s+to\s+(?:a\s+lot\s+of\s+)?(?P<v>[^,.;!?]+)"), "profile.music"),
    (
        rx(
            r"^(?P<v>[^,.;!?]{2,40}?)\s+(?:has|have)\s+become\s+my\s+(?:weekend\s+|new\s+|favou?rite\s+)?(?:thing|hobby|obsession|passion)"
        ),
        "profile.hobbies",
    ),
    (
        rx(r"\bI(?:'ve|\s+have)\s+(?:gotten|got|been\s+getting)\s+(?:really\s+)?into\s+(?P<v>[^,.;!?]+)"),
        "profile.hobbies",
    ),
    (
        rx(
            r"\bI(?:'m|\s+am)\s+(?:really\s+|big\s+|super\s+|pretty\s+|totally\s+|very\s+)?into\s+(?P<v>"
            + _HOBBY_WORDS
            + r"(?:\s+\w+){0,2}|[\w\s&-]+?(?:ing|games|Dragons))\b"
        ),
        "profile.hobbies",
    ),
    (
        rx(
            r"\bI\s+(?:\w+\s+)?(?:play|do|practi[cs]e|run|dance|collect)\s+(?:the\s+|a\s+lot\s+of\s+|lots\s+of\s+|some\s+)?(?P<v>"
            + _HOBBY_WORDS
            + r"(?:,\s*mostly\s+\w+)?|marathons|half[- ]marathons|triathlons|ultras|sa"
            r"lsa|tango|ballet|swing|hip[- ]hop|[\w\s]{2,20}?(?:records|stamps|coins"
            r"|cards|figures|vinyl|sneakers|comics))\b"
        ),
        "profile.hobbies",
    ),
    (
        rx(
            r"\bI(?:'ve|\s+have)\s+been\s+(?:learning|taking\s+up|practi[cs]ing|playing)\s+(?:the\s+)?(?P<v>[\w\s-]{2,20}?)(?=\s+(?:since|for|lately|recently)\b|[,.;!]|$)"
        ),
        "profile.hobbies",
    ),
    (
        rx(
            r"\bI(?:'m|\s+am)\s+an?\s+(?:keen\s+|avid\s+|big\s+|huge\s+|amateur\s+|hobby\s+|passionate\s+|casual\s+|serious\s+)?(?P<v>birdwatcher|birder|runner|climber|surfer|gamer|knitter|hiker|cyclist|skier|snowboarder|swimmer|golfer|gardener|reader|collector|angler|bookworm|cinephile|foodie|quilter|crafter|sailor|diver|skater|dancer|woodworker|potter|painter)\b"
        ),
        "profile.hobbies",
    ),
    (
        rx(
            r"\bI\s+(?:\w+\s+)?(?:play|sing|dance|perform)\s+(?:the\s+\w+\s+)?in\s+(?:a|an|the)\s+(?P<v>[\w\s-]*(?:band|choir|orchestra|team|league|club|ensemble|group))"
        ),
        "profile.hobbies",
    ),
    (
        rx(
            r"\bI\s+(?:\w+\s+)?(?P<v>knit|crochet|paint|draw|sew|garden|surf|ski|snowboard|sketch|quilt|bake|brew|sing|dance|climb|fish|hike|write\s+poetry|collect\s+\w+)\b(?:[^.;!?]*\b(?:spare\s+time|free\s+time|weekends?|for\s+fun|as\s+a\s+hobby|with\s+\w+colou?rs|in\s+(?:a|my)\s+\w+|evenings|a\s+lot|whenever\s+I\s+can|every\s+chance|mostly))"
        ),
        "profile.hobbies",
    ),
    (rx(r"\bI\s+(?:\w+\s+)?go\s+(?P<v>\w+ing)\b"), "profile.hobbies"),
    (rx(r"\bI\s+follow\s+(?P<v>(?-i:[A-Z][\w.'-]*(?:\s+[A-Z0-9][\w.'-]*){0,2}))"), "profile.sports_teams"),
    (rx(r"\bin\s+my\s+(?:spare|free)\s+time\b"), "profile.hobbies"),
]


_HOBBIES_EN_REQUIRES = one_of(*(pattern for pattern, _ in _HOBBY_EN))  # the prefilter's look at `_hobbies_en`


def _hobbies_en(t: str) -> list[Found]:
    if not re.search(r"(?i)\b(?:I|I'm|I've|my)\b", t):
        return []
    out: list[Found] = []
    for r, attr in _HOBBY_EN:
        m = prefilter.search(r, t)
        if m:
            v = _v(m.groupdict().get("v") or strip_subject_en(t))
            if not v or re.fullmatch(r"(?i)I|the|a|an|my|it|this|that", v):
                continue
            if attr == "profile.sports_teams" and re.search(
                r"(?i)^(?:the\s+)?(?:rules?|news|advice|recipe|instructions?)\b", v
            ):
                continue
            out.append((attr, v, False))
            break
    return out


_LEARNING_LEAD_ZH = re.compile(r"(?:最近|平时|周末)?在(?:学|练)")
_FAN_ZH = re.compile(r"我(?:是|一直是)?([" + _CJK + r"A-Za-z]{1,8}?)(?:的)?(?:球迷|粉丝|铁粉|死忠)")
_SUPPORTS_ZH = re.compile(r"支持([" + _CJK + r"A-Za-z]{2,6})")
_LEARNING_ZH = re.compile(
    r"(?:^|我|[，,])(?:最近|平时|业余|周末|现在|一直)?(?:在|正在)(?:学|练)(["
    + _CJK
    + r"A-Za-z]{1,6}?)(?=[，,。！!]|$|了|呢)"
)
_HOBBY_ZH = re.compile(
    r"我(?:也|还|一般|平时|业余|每个?周末|周末|经常)+(?:会|都|去|喜欢)?(" + _ZH_HOBBY_NOUN.pattern + r")"
)
_CAN_PLAY_ZH = re.compile(r"我会(?:打|下|弹|拉|跳|唱)([" + _CJK + r"]{1,5})")
_CRAFT_ZH = re.compile(r"我(?:平时|业余)?(?:爱|喜欢)?(写点东西|写东西|做手工|养花|种花)")
# every hobby statement in Chinese is one of these (the prefilter's look at `_hobbies_zh`)
_HOBBIES_ZH_REQUIRES = one_of(_ME_ZH, _LEARNING_LEAD_ZH) & one_of(
    _FAN_ZH, _SUPPORTS_ZH, _LEARNING_ZH, _HOBBY_ZH, _CAN_PLAY_ZH, _CRAFT_ZH
)


def _hobbies_zh(t: str) -> list[Found]:
    if "我" not in t and not _LEARNING_LEAD_ZH.match(t):
        return []
    m = _FAN_ZH.search(t) or _SUPPORTS_ZH.search(t)
    if m:
        return [("profile.sports_teams", m.group(1), False)]
    m = _LEARNING_ZH.search(t)
    if m and m.group(1) not in LANGUAGES_SPOKEN_ZH and not m.group(1).endswith(("语", "话")):
        return [("profile.hobbies", m.group(1), False)]
    m = _HOBBY_ZH.search(t) or _CAN_PLAY_ZH.search(t)
    if m:
        return [("profile.hobbies", m.group(1), False)]
    m = _CRAFT_ZH.search(t)
    if m:
        return [("profile.hobbies", m.group(1), False)]
    return []


# ----------------------------------------------------------------------------------------------------

_ZH = re.compile(r"[\u4e00-\u9fff]")
_HOBBY_ATTRS = {"profile.hobbies", "profile.music", "profile.sports_teams"}
_TEMPORAL = ("profile.diet", "profile.likes", "profile.dislikes", "preference.travel.", "preference.budget.")
_CHANGE_EN = rx(
    r"\b(?:started\s+a\s+new\s+job|new\s+job|now\s+work|switched\s+jobs|moved\s+to|changed\s+jobs|just\s+started)\b|跳槽|换工作|换了工作|新工作|现在在"
)


# the families read straight from a table: one of its patterns is what each cannot fire without
_FAMILY_EN_REQUIRES = one_of(*(pattern for pattern, _ in RELATIVES_EN))
_PETS_EN_REQUIRES = one_of(*(pattern for pattern, _ in PETS_EN))
_MANAGER_EN_REQUIRES = one_of(*MANAGER_EN)
_WORK_EN_REQUIRES = one_of(*(pattern for pattern, _ in WORK_EN))


def _families_zh(user: str, full: str, in_user: prefilter.Firing, in_full: prefilter.Firing) -> list[Found]:
    """The Chinese families on one sentence (`_record_families`)."""
    out: list[Found] = []
    if ALLERGY_ZH_REQUIRES in in_user:
        out += allergy_zh(user)
    if DIET_ZH_REQUIRES in in_user:
        out += diet_zh(user)
    if LANGUAGES_ZH_REQUIRES in in_user:
        out += languages_zh(user)
    if TRAVEL_ZH_REQUIRES in in_user:
        out += travel_zh(user)
    if BUDGET_ZH_REQUIRES in in_user:
        out += budget_zh(user)
    if DATES_ZH_REQUIRES in in_full:
        out += dates(full, True)
    if RELATIVES_ZH_REQUIRES in in_full:
        out += relatives_zh(full)
    if PETS_ZH_REQUIRES in in_full:
        out += pets_zh(full, user)
    about_a_manager = bool(re.search(r"领导|老板|上司|主管|经理", full))
    if WORK_ZH_REQUIRES in (in_full if about_a_manager else in_user):
        out += work_zh(full if about_a_manager else user)
    if ACCESS_ZH_REQUIRES in in_user:
        out += accessibility(user, True)
    if DEVICES_ZH_REQUIRES in in_user:
        out += devices_zh(user)
    if _HOBBIES_ZH_REQUIRES in in_user:
        out += _hobbies_zh(user)
    if LIKES_ZH_REQUIRES in in_user and not any(
        a in _HOBBY_ATTRS or a.startswith("preference.travel.") for a, _, _ in out
    ):
        out += likes_zh(user)
    if ROUTINE_ZH_REQUIRES in in_user:
        out += routine_zh(user)
    return out


def _families_en(user: str, full: str, in_user: prefilter.Firing, in_full: prefilter.Firing) -> list[Found]:
    """The English families on one sentence (`_record_families`)."""
    out: list[Found] = []
    out += (allergy_en(user) if user and ALLERGY_EN_REQUIRES in in_user else []) or (
        allergy_en(full)
        if ALLERGY_EN_REQUIRES in in_full
        and (
            re.search(r"(?i)\bI'm\s+allergic\b", user)
            or re.search(r"(?i)\b(?:says|said|told\s+me|confirmed|diagnosed)\b.*\bI\s+(?:have|'ve\s+got|am|'m)\b", full)
        )
        else []
    )
    if user:
        if DIET_EN_REQUIRES in in_user:
            out += diet_en(user)
        if LANGUAGES_EN_REQUIRES in in_user:
            out += languages_en(user)
        if TRAVEL_EN_REQUIRES in in_user:
            out += travel_en(user)
        if BUDGET_EN_REQUIRES in in_user:
            out += budget_en(user)
    if DATES_EN_REQUIRES in in_full:
        out += dates(full, False)
    if _FAMILY_EN_REQUIRES in in_full:
        for r, fn in RELATIVES_EN:
            m = prefilter.search(r, full)
            if m:
                out.append(("profile.family", fn(m), False))
                break
    if _PETS_EN_REQUIRES in in_full:
        for r, fn in PETS_EN:
            m = prefilter.search(r, full)
            if m:
                out.append(("profile.pets", fn(m), False))
                break
    if _MANAGER_EN_REQUIRES in in_full:
        for r in MANAGER_EN:
            m = prefilter.search(r, full)
            if m:
                out.append(("profile.work.manager", m.group("name"), False))
                break
    if user:
        if _WORK_EN_REQUIRES in in_user:
            for r, wfn in WORK_EN:
                m = prefilter.search(r, user)
                if m:
                    out += wfn(m)
                    break
        if ACCESS_EN_REQUIRES in in_user:
            out += accessibility(user, False)
        if DEVICES_EN_REQUIRES in in_user:
            out += devices_en(user)
        if _HOBBIES_EN_REQUIRES in in_user:
            out += _hobbies_en(user)
        if LIKES_EN_REQUIRES in in_user and not any(
            a.startswith("preference.travel.") or a.startswith("profile.diet") for a, _, _ in out
        ):
            liked = likes_en(user)
            out += [x for x in liked if not any(x[0] == a for a, _, _ in out)]
        if ROUTINE_EN_REQUIRES in in_user:
            out += routine_en(user)
    return out


def _record_families(user: str, full: str) -> list[Found]:
    """(attribute, value, retract) for one sentence: `user` without other people's clauses, `full` with them.
    A family whose trigger the prefilter does not find in the text it reads is not run (it would give nothing)."""
    in_user = _TRIGGERS.firing(prefilter.seen(user))
    in_full = in_user if full == user else _TRIGGERS.firing(prefilter.seen(full))
    if not in_user and not in_full:
        return []  # no family here can fire on either text
    if _ONE_OFF.search(full) and not re.search(r"(?i)every|usually|每天|每周|一般|always|一直", full):
        return []
    if _ZH.search(full):
        return _families_zh(user, full, in_user, in_full)
    return _families_en(user, full, in_user, in_full)


# every family above by its trigger, in the order `_record_families` runs them: a sentence none of
# them may fire on gives nothing (the extractor drops a turn like that before splitting it)
EVERYDAY_REQUIRES: tuple[Trigger, ...] = (
    ALLERGY_ZH_REQUIRES,
    DIET_ZH_REQUIRES,
    LANGUAGES_ZH_REQUIRES,
    TRAVEL_ZH_REQUIRES,
    BUDGET_ZH_REQUIRES,
    DATES_ZH_REQUIRES,
    RELATIVES_ZH_REQUIRES,
    PETS_ZH_REQUIRES,
    WORK_ZH_REQUIRES,
    ACCESS_ZH_REQUIRES,
    DEVICES_ZH_REQUIRES,
    _HOBBIES_ZH_REQUIRES,
    LIKES_ZH_REQUIRES,
    ROUTINE_ZH_REQUIRES,
    ALLERGY_EN_REQUIRES,
    DIET_EN_REQUIRES,
    LANGUAGES_EN_REQUIRES,
    TRAVEL_EN_REQUIRES,
    BUDGET_EN_REQUIRES,
    DATES_EN_REQUIRES,
    _FAMILY_EN_REQUIRES,
    _PETS_EN_REQUIRES,
    _MANAGER_EN_REQUIRES,
    _WORK_EN_REQUIRES,
    ACCESS_EN_REQUIRES,
    DEVICES_EN_REQUIRES,
    _HOBBIES_EN_REQUIRES,
    LIKES_EN_REQUIRES,
    ROUTINE_EN_REQUIRES,
)


_TRIGGERS = prefilter.Triggers(EVERYDAY_REQUIRES)


def everyday_hits(user: str, full: str, at: datetime) -> list[Hit]:
    """The everyday families' hits on one sentence (see the module docstring)."""
    del at
    hits: list[Hit] = []
    seen: set[tuple[str, str]] = set()
    for attr, value, retract in _record_families(user, full):
        value = value.strip()
        if not value or (attr, value) in seen:
            continue
        seen.add((attr, value))
        hits.append(
            Hit(
                attr.split(".")[1],
                Kind.PREFERENCE,
                attr,
                value,
                confidence=0.85,
                temporal=attr.startswith(_TEMPORAL),
                change=bool(attr.startswith("profile.work.") and _CHANGE_EN.search(full)),
                retract=retract,
            )
        )
    return hits
