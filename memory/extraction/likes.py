"""Likes and dislikes: `profile.likes`, `profile.dislikes`, and what a like routes to (a hobby:
`profile.hobbies`, music: `profile.music`); "I don't like jazz anymore" retracts the like.

The patterns are in `memory/data/families/likes.toml`; here is how a sentence is read with them."""

from __future__ import annotations

import re

from . import prefilter
from .everyday_shared import Found, phrase_value
from .prefilter import one_of
from .spec import Spec
from .text import clean

SPEC = Spec("likes")

_NOT_OBJECT = SPEC.expressions["not_object"]
_MUSIC_WORDS = SPEC.expressions["music_words"]


_HOBBY_PHRASE = SPEC.expressions["hobby_phrase"]


def _route_like(obj: str) -> str:
    if _MUSIC_WORDS.search(obj):
        return "profile.music"
    if _HOBBY_PHRASE.fullmatch(obj) and not re.search(
        r"(?i)\b(?:clothing|things|stuff|food|thing|wedding|building|setting|something|anything|everything)\b", obj
    ):
        return "profile.hobbies"
    return "profile.likes"


_LIKE_EN = SPEC.expressions["like_en"]
_DISLIKE_EN = SPEC.expressions["dislike_en"]
_DISLIKE_FRAMES_EN = SPEC.searches("dislike_frames_en")
_LIKE_FRAMES_EN = SPEC.searches("like_frames_en")


def _like_value(obj: str) -> str:
    v = phrase_value(obj)
    v = re.split(r"(?i)\s+(?:way\s+)?(?:more|better)\s+than\s+|\s+over\s+|\s+rather\s+than\s+", v)[0]
    v = re.sub(r"(?i)^(?:anything|everything|all\s+things)\s+(?:with\s+)?", "", v)
    v = re.sub(r"(?i)\s+(?:in\s+anything|at\s+all|a\s+lot|so\s+much|too)$", "", v)
    v = re.sub(r"(?i)^(?:the\s+smell\s+of|the\s+taste\s+of)\s+", "", v)
    return v.strip()


# every like or dislike statement is one of these (the prefilter's look at `likes_en`)
LIKES_EN_REQUIRES = one_of(_DISLIKE_EN, *_DISLIKE_FRAMES_EN, _LIKE_EN, *_LIKE_FRAMES_EN)


def likes_en(t: str) -> list[Found]:
    out: list[Found] = []
    retract_tail = re.search(r"(?i)\b(?:any\s*more|no\s+more|these\s+days\s+not)\b", t)
    m = prefilter.search(_DISLIKE_EN, t)
    if m and not _NOT_OBJECT.match(m.group("obj").strip()):
        v = _like_value(m.group("obj"))
        if retract_tail and re.search(r"(?i)don't|do\s+not|not\s+into", m.group(0)):
            return [("profile.likes", v, True)]
        if v:
            return [("profile.dislikes", v, False)]
    for r in _DISLIKE_FRAMES_EN:
        m = prefilter.search(r, t)
        if m and not _NOT_OBJECT.match(m.group("obj").strip()):
            return [("profile.dislikes", _like_value(m.group("obj")), False)]
    m = prefilter.search(_LIKE_EN, t)
    if (
        m
        and not _NOT_OBJECT.match(m.group("obj").strip())
        and not re.search(r"(?i)\b(?:I'd|I\s+would|I'll)\s+", m.group(0))
    ):
        v = _like_value(m.group("obj"))
        if v and not re.match(r"(?i)to\b", v):
            return [(_route_like(v), v, False)]
    for r in _LIKE_FRAMES_EN:
        m = prefilter.search(r, t)
        if m and not _NOT_OBJECT.match(m.group("obj").strip()):
            what = m.groupdict().get("what") or ""
            v = _like_value(m.group("obj"))
            if re.search(r"(?i)artist|band|singer|song|album|composer|music", what + " " + t):
                out.append(("profile.music", v, False))
            elif re.search(r"(?i)team|club", what):
                out.append(("profile.sports_teams", v, False))
            else:
                out.append(("profile.likes", (what.strip() + ": " if what.strip() else "") + v, False))
            return out
    return out


_ZH_HOBBY_NOUN = SPEC.expressions["zh_hobby_noun"]


_NO_LONGER_LIKES_ZH = SPEC.expressions["no_longer_likes_zh"]
_DISLIKES_ZH = SPEC.searches("dislikes_zh")
_FAVOURITE_ZH = SPEC.expressions["favourite_zh"]
_LIKES_ZH = SPEC.expressions["likes_zh"]
_THING_FIRST_LIKES_ZH = SPEC.expressions["thing_first_likes_zh"]
_MY_FAVOURITE_ZH = SPEC.expressions["my_favourite_zh"]
_FOND_OF_ZH = SPEC.expressions["fond_of_zh"]
# every like or dislike statement in Chinese is one of these (the prefilter's look at `likes_zh`)
LIKES_ZH_REQUIRES = one_of(
    _NO_LONGER_LIKES_ZH,
    *_DISLIKES_ZH,
    _FAVOURITE_ZH,
    _LIKES_ZH,
    _THING_FIRST_LIKES_ZH,
    _MY_FAVOURITE_ZH,
    _FOND_OF_ZH,
)


# verbs that make a liked activity a hobby ("我喜欢打羽毛球"), and those the hobby keeps ("打羽毛球", not "羽毛球")
_HOBBY_VERBS_ZH = frozenset(SPEC.words["hobby_verbs_zh"])
_KEPT_HOBBY_VERBS_ZH = frozenset(SPEC.words["kept_hobby_verbs_zh"])


def likes_zh(t: str) -> list[Found]:
    # retract: "我不喜欢X了", "我不再喜欢X"
    m = _NO_LONGER_LIKES_ZH.search(t)
    if m:
        return [("profile.likes", m.group(1), True)]
    # dislikes
    for m in [dislike.search(t) for dislike in _DISLIKES_ZH]:
        if m is None:
            continue
        v = clean(re.sub(r"^(?:别人|太|很)", "", m.group(1)))
        v = re.sub(r"(?:的东西|的)$", "", v) or v
        if (
            v
            and not re.match(r"^(?:这|那|你|他|她|它|的)", v)
            and v not in ("死", "死了", "透", "透了", "人", "得", "哈")
        ):
            return [("profile.dislikes", v, False)]
    # likes: "我喜欢吃火锅", "咖啡我喜欢喝美式", "川菜是我的最爱", "我对宜家的东西还挺有好感的", "比起山我更喜欢海边"
    m = _FAVOURITE_ZH.search(t)
    if m:
        what = m.group(1)
        attr = (
            "profile.music"
            if re.search(r"歌手|乐队|歌|音乐", what)
            else "profile.sports_teams"
            if "球队" in what
            else "profile.likes"
        )
        return [(attr, what + ": " + clean(m.group(2)), False)]
    m = _LIKES_ZH.search(t)
    if m and "我" in t[: m.start() + 2] + t[m.end() :] and not re.match(r"(?:你|这|那|他|她|上了你)", m.group("obj")):
        verb, obj = m.group("verb") or "", clean(m.group("obj"))
        obj = re.sub(r"^(?:的|点|一点的?|上)", "", obj)
        if verb == "听" and obj:
            return [("profile.music", obj, False)]
        hobby_verb = verb in _HOBBY_VERBS_ZH or (
            (verb == "下" and "棋" in obj)
            or (verb == "爬" and "山" in obj)
            or (verb == "跑" and re.search(r"步|马拉松", obj))
            or (verb == "写" and re.search(r"作|字|诗|小说|东西|日记", obj))
        )
        if (hobby_verb or _ZH_HOBBY_NOUN.match(obj)) and not re.search(r"(?:语|话)$", obj):
            keep_verb = verb in _KEPT_HOBBY_VERBS_ZH
            return [("profile.hobbies", (verb + obj) if keep_verb else obj, False)]
        if verb == "看" and re.search(r"球|NBA|比赛|F1|CBA", obj):
            return [("profile.hobbies", verb + obj, False)]
        if obj:
            return [("profile.likes", obj, False)]
    m = _THING_FIRST_LIKES_ZH.search(t)
    if m:
        return [("profile.likes", clean(m.group(2) or m.group(1)) or m.group(1), False)]
    m = _MY_FAVOURITE_ZH.search(t) or _FOND_OF_ZH.search(t)
    if m:
        v = clean(m.group(1))
        v = re.sub(r"的东西$", "", v) or v
        return [("profile.likes", v, False)]
    return []
