"""Restatements: a sentence that gives a new value for something the user's memory may already
hold ("make that $150,000", "the priority is market expansion now", "send it to New York
instead", "改成周四"). The sentence names its target loosely; the engine finds it among the
user's records when the command applies (memory/resolution.py), never by an attribute name built
from the phrase.

The shapes and word lists are data (`memory/data/restatements.json`); this module compiles them.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cache
from importlib import resources
from typing import Any

from ..resolution import DAY_PHRASE, value_kind
from ..semantics.data import data_file
from .text import alternation

_CJK = re.compile(r"[\u3400-\u9fff]")
_LABEL = re.compile(r"^\s*\[[^\]\n]{1,40}\]\s*")  # "[VP] I'm overriding that": who is speaking
_EN_WORD = r"[\w$€£¥%&'./-]+"
# {A}: one to four words naming the thing; {V} / {OLD}: a value (anything, trimmed after)
_SLOTS_EN = {
    "{A}": rf"(?P<about>{_EN_WORD}(?:\s+{_EN_WORD}){{0,3}}?)",
    "{V}": r"(?P<value>.+?)",
    "{OLD}": r"(?P<old>.+?)",
}
_SLOTS_ZH = {
    "{A}": r"(?P<about>[\u3400-\u9fffA-Za-z0-9]{1,8}?)",
    "{V}": r"(?P<value>.+?)",
    "{OLD}": r"(?P<old>.+?)",
}
# a question asks, it does not restate ("澳大利亚的首都是哪里？", "is the budget $50,000?")
_QUESTION = re.compile(r"[?？]\s*$|吗\s*$|呢\s*$|什么|哪|几|多少|(?<!不)怎么|为什么|为啥|是不是|有没有")
MAX_VALUE_WORDS = 8  # a longer "value" is a sentence, not a value
_A_CLAUSE = re.compile(r"^(?:i|i'm|i've|i'd|we|we're|my|our|he|she|they|it's|that's)\b", re.I)


@dataclass(frozen=True)
class Restatement:
    value: str
    about: tuple[str, ...]
    old_value: str | None
    change: bool


@dataclass(frozen=True)
class _Retractions:
    shapes: tuple[re.Pattern[str], ...]
    clause_shapes: tuple[re.Pattern[str], ...]  # (English) tried at the start of any clause too
    of_the_moment: re.Pattern[str]  # "明天不跑了", "no coffee tonight": a moment, nothing ends
    not_things: frozenset[str]
    look: re.Pattern[str]  # the words one of the shapes needs


@dataclass(frozen=True)
class _Language:
    retractions: _Retractions
    change_markers: re.Pattern[str]
    leads: re.Pattern[str]
    # each shape, whether it marks a change, and the words any match of it has one of (None:
    # nothing is known)
    shapes: tuple[_Shape, ...]
    tails: re.Pattern[str]
    not_things: frozenset[str]
    not_values: re.Pattern[str]
    change_words: re.Pattern[str] | None
    about_leads: tuple[str, ...]
    # which shapes need each word (worked out from `shapes`, also when they are replaced)
    index: _ShapeIndex = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "index", _shape_index(self.shapes))


def _alternatives(words: list[str], english: bool) -> str:
    ordered = sorted(words, key=len, reverse=True)
    if english:
        return "|".join(re.escape(w).replace(r"\ ", r"\s+") for w in ordered)
    return "|".join(re.escape(w) for w in ordered)


_TOKEN = re.compile(r"\((?:[^()]|\([^()]*\))*\)\??|\{[A-Z]+\}|\[[^\]]*\][+*?]*\??|[^\s(){}\[]+")


def needed_words(template: str) -> tuple[str, ...]:
    """What any sentence a template matches contains: the alternatives of one of its parts that is
    neither a slot nor optional (the one whose shortest alternative is longest: the rarest). Read
    off the template itself, so a shape added to the data is looked for by its own words."""
    best: tuple[str, ...] = ()
    for token in _TOKEN.findall(template):
        if token.startswith("{") or token.endswith("?") or token.startswith("[") or "\\" in token:
            continue
        if token.startswith("("):
            inner = token[1:-1]
            if "(" in inner or "[" in inner:
                continue
            options = tuple(o.strip() for o in inner.split("|"))
        else:
            options = (token,)
        if any(not o for o in options):
            continue
        if not best or min(map(len, options)) > min(map(len, best)):
            best = options
    return best


def _look(words: set[str], english: bool) -> re.Pattern[str]:
    """One pattern finding any of `words` (whole words in English, substrings in Chinese)."""
    body = alternation(sorted(w.casefold() for w in words if w))
    return re.compile(rf"(?<![\w'])(?:{body})(?![\w'])" if english else body, re.I)


# a word as a shape's look reads one: letters, digits and apostrophes between anything else
_WORD = re.compile(r"[\w']+")


@dataclass(frozen=True, slots=True)
class _Needs:
    """The words one of which any match of a shape has: single words (looked up in the sentence's
    set of words) and phrases or Chinese words (looked for in its text)."""

    words: frozenset[str]
    phrases: tuple[str, ...]


_Shape = tuple[re.Pattern[str], bool, "_Needs | None"]


_ShapeIndex = tuple[dict[str, tuple[int, ...]], tuple[tuple[str, tuple[int, ...]], ...], tuple[int, ...]]


def _shape_index(shapes: tuple[_Shape, ...]) -> _ShapeIndex:
    """Which shapes need each word, each phrase, and which need nothing known."""
    by_word: dict[str, list[int]] = {}
    by_phrase: dict[str, list[int]] = {}
    anywhere = []
    for n, (_, _, needs) in enumerate(shapes):
        if needs is None:
            anywhere.append(n)
            continue
        for word in needs.words:
            by_word.setdefault(word, []).append(n)
        for phrase in needs.phrases:
            by_phrase.setdefault(phrase, []).append(n)
    return (
        {w: tuple(ns) for w, ns in by_word.items()},
        tuple((p, tuple(ns)) for p, ns in by_phrase.items()),
        tuple(anywhere),
    )


def _candidates(lang: _Language, words: list[str], held: str) -> list[_Shape]:
    """The shapes whose needed words the sentence has, in the shapes' order: one look-up per word
    of the sentence and per phrase, however many shapes."""
    shapes = lang.shapes
    by_word, by_phrase, anywhere = lang.index
    found = set(anywhere)
    for word in words:
        found.update(by_word.get(word, ()))
    for phrase, ns in by_phrase:
        if phrase in held:
            found.update(ns)
    return [shapes[n] for n in sorted(found)]


def _needs(options: tuple[str, ...], english: bool) -> _Needs | None:
    folded = tuple(dict.fromkeys(w.casefold() for w in options if w))
    if not folded:
        return None
    if not english:
        return _Needs(frozenset(), folded)
    return _Needs(frozenset(w for w in folded if " " not in w), tuple(f" {w} " for w in folded if " " in w))


def _compile(spec: dict[str, Any], english: bool) -> _Language:
    slots = _SLOTS_EN if english else _SLOTS_ZH
    shapes = []
    for entry in spec["shapes"]:
        body = entry["shape"]
        for slot, group in slots.items():
            body = body.replace(slot, group)
        if english:
            body = body.replace(" ", r"\s+")
        shapes.append(
            (re.compile(rf"^{body}$", re.I), bool(entry["change"]), _needs(needed_words(entry["shape"]), english))
        )
    sep = r"\s*[,，.。:：;；!！—–-]*\s*"
    leads = re.compile(rf"^(?:(?:{_alternatives(spec['leads'], english)}){sep})+", re.I)
    tails = re.compile(rf"(?:{sep}(?:{_alternatives(spec['value_tails'], english)}))+$", re.I)
    change = (
        re.compile(rf"(?<![\w])(?:{_alternatives(spec['change_words'], True)})(?![\w])", re.I)
        if english and spec.get("change_words")
        else None
    )
    # a whole value, or one with a word for a part of the conversation ("the second point")
    parts = r"(?:\s+(?:point|one|part|question|section|step|topic|option|paragraph|version|answer))?" if english else ""
    not_values = re.compile(rf"^(?:{_alternatives(spec['not_values'], english)}){parts}$", re.I)
    markers = _alternatives(spec["change_markers"], english)
    return _Language(
        _retractions(spec["retractions"], english),
        re.compile(rf"(?<![\w])(?:{markers})(?![\w])" if english else markers, re.I),
        leads,
        tuple(shapes),
        tails,
        frozenset(w.casefold() for w in spec["not_things"]),
        not_values,
        change,
        tuple(sorted(spec.get("about_leads", ()), key=len, reverse=True)),
    )


_THING = {True: r"(?P<about>[^,;:]+?)", False: r"(?P<about>.+?)"}


def _retractions(spec: dict[str, Any], english: bool) -> _Retractions:
    needed: set[str] = set()
    shapes = _retraction_shapes(spec.get("clause_shapes", []), english, needed)
    clause_shapes = tuple(shapes)
    shapes += _retraction_shapes(spec["shapes"], english, needed)
    return _Retractions(
        tuple(shapes),
        clause_shapes,
        _look(set(spec["of_the_moment"]), english),
        frozenset(w.casefold() for w in spec["not_things"]),
        _look(needed, english),
    )


def _retraction_shapes(templates: list[str], english: bool, needed: set[str]) -> list[re.Pattern[str]]:
    shapes = []
    for shape in templates:
        needed |= set(needed_words(shape))
        body = shape
        if english:
            body = body.replace(" ", r"\s+").replace(r"\s+(", r"\s*(").replace(r")?\s+", r")?\s*")
        # (the thing goes in last: the space before it stays a space, "don't do" is not "don't double")
        body = body.replace("{T}", _THING[english])
        # the sentence may go on after the thing ("I quit the gym, way too expensive")
        # (in Chinese a space between words parts clauses as a comma does, and a few words of time
        # may follow the verb: "咖啡戒了快两周了 心慌好多了")
        after = (
            ""
            if english
            else r"(?:(?:快|都|已经|有)?[\d一二三四五六七八九十两半几]+个?多?(?:天|周|星期|礼拜|月|年)了?)?"
        )
        # (English: "quit smoking three weeks ago and haven't touched one since")
        joined = r"|\s+(?:and|but|so)\s+" if english else ""
        shapes.append(
            re.compile(rf"^{body}{after}(?:(?:\s*[,，.。;；!！]|\s+[—–-]\s|(?<=[\u3400-\u9fff])\s+{joined}).*)?$", re.I)
        )
    return shapes


@cache
def _languages() -> tuple[_Language, _Language]:
    raw = resources.files("slotstream.memory").joinpath("data", "restatements.json").read_text(encoding="utf-8")
    data = json.loads(raw)
    return _compile(data["en"], True), _compile(data["zh"], False)


# where a value ends and the sentence goes on ("Thursday, I mixed up the calendars"): a comma,
# a semicolon or a dash not inside a number
_VALUE_END = re.compile(r"\s*(?:,(?!\d{3})|;|\s[—–-]\s|，|；|。)|(?<=[\u3400-\u9fff\d])\s+(?=[\u3400-\u9fff])")


def _clean(value: str, lang: _Language) -> str:
    value = _VALUE_END.split(value, maxsplit=1)[0]
    value = value.strip().strip("\"'“”‘’")
    for _ in range(3):
        before = value
        value = lang.tails.sub("", value).strip().rstrip(".。!！?？,，;；~～").strip()
        if value == before:
            break
    return value


def _read(sentence: str) -> tuple[_Language, str, str] | None:
    """The sentence's language, the sentence without a speaker label and its end, and that without
    its lead-ins; None for a question (it restates and retracts nothing)."""
    english, chinese = _languages()
    lang = chinese if _CJK.search(sentence) else english
    text = _LABEL.sub("", sentence).strip().rstrip(".。!！")
    if _QUESTION.search(text):
        return None
    return lang, text, lang.leads.sub("", text).strip()


def restatement(sentence: str, carried_change: bool = False) -> Restatement | None:
    """The restatement a sentence makes, or None. `carried_change`: the sentence before was only
    a word of change ("I'm overriding that.")."""
    read = _read(sentence)
    if read is None or tentative(sentence):
        return None  # ("thinking about moving it to Tuesday", "在考虑挪到周二 还没定": nothing changed yet)
    lang, text, stripped = read
    english, chinese = _languages()
    led = stripped != text
    # a shape may follow a clause of its own ("finance got back to me — make the cap 40 instead")
    tails = [stripped, *(stripped[m.end() :] for m in _CLAUSE_BREAK.finditer(stripped))]
    # the sentence's words, each once between spaces, to look each shape's needed words up in (one
    # pass over the sentence, however many shapes)
    folded = stripped.casefold()
    words = _WORD.findall(folded) if lang is english else []
    held = f" {' '.join(words)} " if lang is english else folded
    for shape, change, _ in _candidates(lang, words, held):
        m = next((found for tail in tails if tail and (found := shape.match(tail)) is not None), None)
        if m is None:
            continue
        groups = m.groupdict()
        value = _clean(groups.get("value") or "", lang)
        old = _clean(groups["old"], lang) if groups.get("old") else None
        about = _without_leads((groups.get("about") or "").strip(), lang)
        if not value or (old is not None and not old) or (old is not None and lang.not_values.match(old)):
            continue  # ("change that, mornings are better for ...": not a value replacing "that")
        changed = change or carried_change or (led and lang is english and _led_by_change(text, stripped, lang))
        if lang is chinese:
            changed = changed or led
        if not changed or lang.not_values.match(value):
            return None
        words = value.split() if lang is english else [value]
        if len(words) > MAX_VALUE_WORDS or (lang is english and _A_CLAUSE.match(value)):
            return None  # "…, I closed my account": a clause, not a value
        if about and _names_nothing(about, lang):
            return None
        about_words = tuple(about.split()) if lang is english else ((about,) if about else ())
        return Restatement(value, about_words, old, changed)
    # (a lead-in counts as a change only when it says one: "also" does not, "correction" does)
    return _by_kind(text, lang, carried_change or (led and (lang is chinese or _led_by_change(text, stripped, lang))))


_FIGURES = re.compile(r"\d|\bnoon\b|\bmidnight\b|[一二两三四五六七八九十百千万]", re.I)


@cache
def _value_now() -> re.Pattern[str]:
    spec = data_file("restatements.json")["en"]["value_now"]
    words = alternation(sorted(w.casefold() for w in spec["words"]))
    ends = alternation(sorted(w.casefold() for w in spec["clause_end"]))
    # (one look-behind a word: each has its own length)
    not_after = "".join(rf"(?<!\b{re.escape(w.casefold())}\s)" for w in spec["not_after"])
    return re.compile(rf"(?<![\w'])(?:{words})(?![\w'])|(?<![\w']){not_after}(?:{ends})(?=\s*(?:[,.!;:—–-]|$))", re.I)


def gives_a_value(text: str) -> bool:
    """Whether a text holds a date, a time or an amount ("March 27", "6:40pm", "15k" are; "7",
    "2022", "mornings", "502 bad gateway" are not)."""
    return any(
        _clearly_a_value(m.group().strip()) and value_kind(m.group().strip()) in ("day", "money")
        for m in _spotted(text)
    )


def says_when_or_how_much(text: str) -> bool:
    """Whether a text holds a day, a date, a time or an amount, in figures or not ("on friday",
    "at 9:30", "$300")."""
    return any(value_kind(m.group().strip()) in ("day", "money") for m in _spotted(text))


_NOW_NEAR = 2  # words at most between a value and the "now" closing its clause ("$65 a head now")


def _given_now(text: str, value: re.Match[str]) -> bool:
    """Whether the value is the one said as new: after a word of `value_now` ("moved to 10:15"),
    or right beside the "now" closing its clause ("cap is 18k now")."""
    folded = text.replace("\u2019", "'")
    for m in _value_now().finditer(folded):
        if m.start() >= value.end():
            between = folded[value.end() : m.start()]
            if len(between.split()) <= _NOW_NEAR and not re.search(r"[,.!;:]", between):
                return True
        elif m.end() <= value.start() and (
            not m.group().casefold().endswith("now") or len(folded[m.end() : value.start()].split()) <= _NOW_NEAR
        ):
            return True  # (or just after that "now": "lifting after work now, around 7pm")
    return False


@cache
def _value_now_words() -> tuple[frozenset[str], ...]:
    """Each word or phrase of `value_now` as the set of its words."""
    spec = data_file("restatements.json")["en"]["value_now"]
    return tuple(frozenset(_WORD.findall(w.casefold())) for w in (*spec["words"], *spec["clause_end"]))


def value_now(sentence: str) -> bool:
    """An English sentence that gives a value as what holds now, without a word of change
    (`value_now` in restatements.json): "landing 11:15pm now", "the freeze kicks in at noon now"."""
    folded = sentence.replace("\u2019", "'")
    words = set(_WORD.findall(folded.casefold()))
    if not any(entry <= words for entry in _value_now_words()):
        return False  # (the quick look, by the sentence's words: most have none of them)
    return _value_now().search(folded) is not None


def _clearly_a_value(value: str) -> bool:
    """A value with figures that says what it is: a time or date, an amount, a count with its
    unit; not a bare number ("up at 7", "CX-5", "2022") nor a part of the day alone."""
    if not _FIGURES.search(value):
        return False
    kind = value_kind(value)
    return kind in ("day", "money") or (kind == "number" and not value.replace(",", "").replace(".", "").isdigit())


_CLAUSE_BREAK = re.compile(r"\s+[—–-]\s+|[:;：；]\s*")
# what a value replaced is introduced by ("Thursday, not Wednesday", "instead of 6am", "不是周三")
_OLD_MARK = re.compile(r"(?:\bnot|\binstead\s+of|\bfrom|不是|而不是)\s*$", re.I)
_SPECIFIC = ("day", "money", "number")


def _by_kind(text: str, lang: _Language, changed: bool) -> Restatement | None:
    """A change said in no shape of the list ("it's April 24 now, thank god", "we bumped it up to
    90 minutes", "shifted it, I train evenings now, 7pm"): with a word of change, the last value
    of a specific kind (a day or time, an amount, a count) is the new value; one introduced by
    "not" or "instead of" is the old one. A name or a phrase is never guessed this way."""
    # said only as what holds now ("cap is 18k now", "it kicks in at noon now"), only a value with
    # figures in it is clearly the new one: not a part of the day ("mornings are chaos now") nor a year
    said_now = not changed and not lang.change_markers.search(text)
    english = lang is _languages()[0]
    if said_now and not (value_now(text) if english else holds_now(text)):
        return None
    new: str | None = None
    old: str | None = None
    for found in _spotted(text):
        if said_now and not _clearly_a_value(found.group().strip()):
            continue
        if said_now and english and not _given_now(text, found):
            continue  # ("VendorB at $150K is over budget now": the amount is not what is now)
        if _OLD_MARK.search(text[: found.start()]):
            old = old or found.group().strip()
        else:
            new = found.group().strip()
    if new is None or value_kind(new) not in _SPECIFIC:
        return None
    return Restatement(new, (), old, True)


def _spotted(text: str) -> list[re.Match[str]]:
    """The values of a specific kind in a text, in order, none inside another."""
    found = sorted(
        [m for pattern in (DAY_PHRASE, _MONEY_SPAN, _COUNT_SPAN) for m in pattern.finditer(text)],
        key=lambda m: (m.start(), -m.end()),
    )
    out: list[re.Match[str]] = []
    for m in found:
        if _MODEL_NUMBER.search(text, 0, m.start()) and m.group().isdigit():
            continue  # a bare number after a name is part of it ("a Pixel 8", "the Model 3")
        if not out or m.start() >= out[-1].end():
            out.append(m)
    return out


_MODEL_NUMBER = re.compile(r"(?<![.!?]\s)(?<!^)\b[A-Z][a-zA-Z]+\s$")


_MONEY_SPAN = re.compile(r"[$€£¥]\s?\d[\d,.]*(?:\s?[km]\b)?|\d[\d,.]*\s*(?:k\b|dollars?|euros?|pounds?|元|块|万)", re.I)
# a count and the word it counts ("90 minutes", "250 lines", "3 reviewers"), a digit count in Chinese
# (a word of time or reason after a number is not what it counts: "11 going forward", "2500 since …";
# nor is a word ending in -ing)
_NOT_UNITS = (
    r"(?:now|then|and|or|to|so|but|a|an|the|is|are|was|of|in|on|at|for|with|per|each|every|instead|please|from|tried|"
    r"since|because|bc|cause|till|until|if|when|as|by|after|before|this|that|it|which|plus|ish|[a-z]+ing)\b"
)
# (a digit inside a name is no count: "RAV4", "PS5")
_COUNT_SPAN = re.compile(
    # (nor is a model year: "a 2021 RAV4")
    rf"(?!(?:19|20)\d\d\s+(?-i:[A-Z]))(?:(?<![\w$€£¥:/.,-])\d+(?:[.,]\d+)*(?:\s*%|\s+(?!{_NOT_UNITS})[a-z]+|[a-z]+)?"
    r"(?![\w:/-])|(?<![A-Za-z\d])\d+[\u4e00-\u9fff]?)",
    re.I,
)


_ZH_IN_FACT = re.compile(r"(?:其实|实际上|应该|真的|好像|本来)+$")


def _without_leads(about: str, lang: _Language) -> str:
    """ "以后改成…", "我的时区是…": the words before the thing are not its name."""
    for _ in range(3):
        lead = next((w for w in lang.about_leads if about.startswith(w)), None)
        if lead is None:
            break
        about = about[len(lead) :]
    # "房租其实是4800": a word of "in fact" after the thing is not its name either
    return _ZH_IN_FACT.sub("", about) if _CJK.search(about) else about


def _names_nothing(about: str, lang: _Language) -> bool:
    """ "the weather", "my sister", "把这个菜谱": not something a memory holds a value of."""
    folded = about.casefold()
    if _CJK.search(folded):
        return any(folded.startswith(w) or folded == w for w in lang.not_things)
    return folded in lang.not_things or folded.split()[-1] in lang.not_things


def _led_by_change(text: str, stripped: str, lang: _Language) -> bool:
    lead = text[: len(text) - len(stripped)]
    return lang.change_words is not None and lang.change_words.search(lead) is not None


# when it stopped is not what stopped ("the blood thinner last week", "smoking three weeks ago"),
# nor who it stopped for ("no more commute for me")
_WHEN = re.compile(
    r"(?:\s+(?:last|this|next)\s+(?:week|month|year|night|weekend)"
    r"|\s+(?:a|an|one|two|three|four|five|six|a\s+few|a\s+couple\s+of|\d+)\s+(?:days?|weeks?|months?|years?)\s+ago"
    r"|\s+for\s+(?:me|us)"
    r"|\s+(?:today|yesterday|recently|lately|now|anymore|any more|for good|at all))+$",
    re.I,
)
# where a later English clause starts
_EN_CLAUSE = re.compile(r",\s*(?:(?:and|so|but)\s+)?|\s+(?:so|and\s+so)\s+|\s+[—–-]\s+|[;:]\s*", re.I)
_NAMED_THING = re.compile(r"^(?:the|my|our|that|this|those|these|a|an)\s+", re.I)
_LEFT_AS_IS = re.compile(r"\s(?:on|off|open|unlocked|running|behind|out|there|here|outside)$", re.I)
_NOT_A_THING = re.compile(r"^(?:by|off|in|out|over|up|down|back|around)\b", re.I)
_WHERE = re.compile(r"\s+(?:at|in|to|from|after|before|for|with|on)\s+", re.I)
MAX_THING_WORDS = 5  # a longer "thing" is a clause, not the name of something held
MAX_THING_CHARACTERS = 8  # ... in Chinese


_ZH_CLAUSE = re.compile(r"[，,；;]\s*|(?<=[\u3400-\u9fff])\s+(?=[\u3400-\u9fff])")


def retraction(sentence: str) -> tuple[str, ...] | None:
    """The user's words for something that no longer holds ("I quit the gym", "I'm not coaching
    anymore", "在职那个我退了"), or None. What they name is found among the user's records when the
    command applies; a phrase naming nothing in particular ("I left work early") finds nothing."""
    read = _read(sentence)
    if read is None:
        return None
    lang, _, stripped = read
    english = _languages()[0]
    look = lang.retractions.look
    if look.search(stripped) is None or lang.retractions.of_the_moment.search(stripped):
        return None
    # (in Chinese any clause may say it, after one that does not: "儿子死活不想学了 课已经退了")
    # (the clause nearest the end first: "我跟你说 我把烟戒了" names the cigarettes, not what was said)
    clauses = [stripped, *(stripped[m.end() :] for m in _ZH_CLAUSE.finditer(stripped))]
    # (in English a later clause may say it too: "good news, the low fodmap phase is over", "my
    # shins gave up, I'm done with running"; the sentence's start first)
    starts = (
        # (a clause without a word any shape needs is not tried)
        [stripped, *(c for m in _EN_CLAUSE.finditer(stripped) if look.search(c := stripped[m.end() :]))]
        if lang is english
        else clauses[::-1]
    )
    # (English: each clause in turn, by the shapes that may open any clause, every shape at the
    # sentence's start or after a lead of two words; Chinese: each shape, on the clauses from the end)
    shapes = lang.retractions.shapes
    tries = (
        (
            (shape, start)
            for start in starts
            for shape in (
                shapes if len(stripped[: len(stripped) - len(start)].split()) <= 2 else lang.retractions.clause_shapes
            )
        )
        if lang is english
        else ((shape, start) for shape in shapes for start in starts)
    )
    for shape, start in tries:
        m = shape.match(start) if start else None
        if m is None:
            continue
        if _someone_else()(start[: m.end("about")]):
            return None  # ("my sister's course ended", "我老公戒烟了"): not the user's to end
        words = _thing_words(m.group("about"), lang, english)
        if words is None:
            if lang is english:
                continue  # ("stopped by the store", "it's done": nothing named here; another clause may)
            return None
        return words
    return None


@cache
def _someone_else() -> Callable[[str], bool]:
    from .open_statement import names_someone_else  # (it reads this module's words: loaded on use)

    return names_someone_else


def _thing_words(raw: str, lang: _Language, english: _Language) -> tuple[str, ...] | None:
    """The words naming what no longer holds, or None when they name nothing in particular."""
    thing = _clean(raw, lang)
    if lang is english:
        named = _NAMED_THING.match(thing)
        thing = _NAMED_THING.sub("", thing)
        thing = _WHEN.sub("", thing)
        if _NOT_A_THING.match(thing) or _LEFT_AS_IS.search(thing):
            return None  # "stopped by the store", "dropped off the kids", "left the stove on"
        if named:
            # "the kids at school": the kids; "live in Beijing" stays whole
            thing = _WHERE.split(thing, maxsplit=1)[0]
        words = tuple(thing.split())
        if not words or len(words) > MAX_THING_WORDS:
            return None
    else:
        thing = re.sub(r"^我?(?:把|将)", "", thing.removeprefix("那个").removesuffix("那个"))
        words = (thing,) if thing else ()
        if not words or len(thing) > MAX_THING_CHARACTERS:
            return None
    if thing.casefold() in lang.retractions.not_things:
        return None
    return words


def only_a_change(sentence: str) -> bool:
    """A sentence that is nothing but a word of change ("I'm overriding that.", "No wait."): the
    next sentence's restatement is a change."""
    english, chinese = _languages()
    lang = chinese if _CJK.search(sentence) else english
    text = _LABEL.sub("", sentence).strip().rstrip(".。!！")
    return bool(text) and not lang.leads.sub("", text).strip(" ,，.。!！")


@cache
def _holds_now() -> tuple[re.Pattern[str], re.Pattern[str], tuple[str, ...], tuple[str, ...]]:
    raw = resources.files("slotstream.memory").joinpath("data", "restatements.json").read_text(encoding="utf-8")
    data = json.loads(raw)
    english = data["en"]["holds_now"]
    words = alternation(sorted(w.casefold() for w in english["words"]))
    adding = alternation(sorted(w.casefold() for w in english["adding"]))
    chinese = data["zh"]["holds_now"]
    return (
        re.compile(rf"(?<![\w'])(?:{words})(?![\w'])", re.I),
        re.compile(rf"(?<![\w'])(?:{adding})(?![\w'])", re.I),
        tuple(chinese["words"]),
        tuple(chinese["adding"]),
    )


def holds_now(statement: str) -> bool:
    """A statement that says what holds now, in place of something earlier ("we moved, I'm in
    Austin now", "ditched the Kindle, I'm on a Kobo now", "最近改成晚上跑了"), and not that it adds
    to it ("I also play tennis now"): `holds_now` in restatements.json."""
    english, adding, chinese, chinese_adding = _holds_now()
    if tentative(statement):
        return False
    if _CJK.search(statement):
        return any(w in statement for w in chinese) and not any(w in statement for w in chinese_adding)
    low = statement.replace("’", "'").casefold()
    return english.search(low) is not None and adding.search(low) is None


@cache
def _tentative() -> tuple[re.Pattern[str], tuple[str, ...]]:
    raw = resources.files("slotstream.memory").joinpath("data", "restatements.json").read_text(encoding="utf-8")
    data = json.loads(raw)
    words = alternation(sorted(w.casefold() for w in data["en"]["tentative"]))
    return re.compile(rf"(?<![\w'])(?:{words})(?![\w'])", re.I), tuple(data["zh"]["tentative"])


def tentative(sentence: str) -> bool:
    """A change only thought of, proposed or not decided ("thinking about moving the standup to
    Tuesday", "领导说在考虑挪到周二 还没定"): `tentative` in restatements.json. It changes nothing."""
    english, chinese = _tentative()
    if _CJK.search(sentence):
        return any(w in sentence for w in chinese)
    return english.search(sentence.replace("’", "'")) is not None


@cache
def _changes_told() -> tuple[re.Pattern[str], tuple[str, ...]]:
    told = data_file("restatements.json")["changes_told"]
    words = alternation(sorted(w.casefold() for w in told["en"]))
    return re.compile(rf"(?<![\w'])(?:{words})(?![\w'])", re.I), tuple(told["zh"])


def tells_of_a_change_told(sentence: str) -> bool:
    """A word telling a change as news (`changes_told`: "sold", "passed away", "涨到")."""
    told_en, told_zh = _changes_told()
    if _CJK.search(sentence):
        return any(w in sentence for w in told_zh)
    return told_en.search(sentence.replace("\u2019", "'")) is not None


@cache
def _any_change_word() -> tuple[re.Pattern[str], re.Pattern[str]]:
    """Every word of change of `holds_now`, `change_markers` and `changes_told` in one pattern per
    language."""
    data = data_file("restatements.json")
    english = {*data["en"]["holds_now"]["words"], *data["en"]["change_markers"], *data["changes_told"]["en"]}
    chinese = {*data["zh"]["holds_now"]["words"], *data["zh"]["change_markers"], *data["changes_told"]["zh"]}
    words = alternation(sorted(w.casefold() for w in english))
    return re.compile(rf"(?<![\w'])(?:{words})(?![\w'])", re.I), re.compile(alternation(sorted(chinese)))


def may_tell_a_change(text: str) -> bool:
    """Whether a text has any word of change at all: the quick look before a turn is read as news
    (most chat has none)."""
    english, chinese = _any_change_word()
    if _CJK.search(text):
        return chinese.search(text) is not None
    return english.search(text.replace("\u2019", "'")) is not None


def tells_a_change(sentence: str) -> bool:
    """A sentence that tells of a change, as news or as a correction ("moved last weekend", "sold
    the car", "sorry typo", "涨到4800"): it says what holds now (`holds_now`), has a word of change
    (`change_markers`) or one telling a change (`changes_told`), and the change is not only thought
    of (`tentative`)."""
    if tentative(sentence):
        return False
    if holds_now(sentence):
        return True
    english, chinese = _languages()
    lang = chinese if _CJK.search(sentence) else english
    return lang.change_markers.search(sentence.replace("’", "'")) is not None or tells_of_a_change_told(sentence)
