"""Which stored record a correction or a forget in the user's own words is about.

"Make that $150,000", "the priority is market expansion now", "send it to New York instead",
"forget my favourite band": the sentence names its target loosely, and the target is found among
what the user's memory holds, never by an attribute name built from the phrase. Pure: the records
in, a decision out.

Evidence, strongest first:
1. the value it replaces, when the sentence gives it ("change Tuesday to Thursday");
2. the words naming the thing ("budget", "quantity", "priority") against each record's attribute,
   value and statement;
3. the kind of value: an amount replaces an amount, a day a day, a name a name;
4. with a word of change ("instead", "make that", "no wait") and nothing else to go by: the only
   record the new value could replace, else the one the conversation last touched (observed within
   `RECENT`).
Records holding the same value as the target are the same thing said twice (a decision the user
stated and the state a tool wrote): they go together. Two different values left: ambiguous, and
nothing is replaced.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from functools import cache

from .models import LIVE_STATUSES, Cardinality, Consequence, Kind, Record, Sensitivity
from .semantics.data import data_file, plain_words
from .validation import normalize_value

RECENT = timedelta(minutes=30)  # what "the record the conversation last touched" may be
# what a user said in their own words: a restatement replaces it with the new sentence, as said
VERBATIM = ("preference.stated.", "health.stated.")
# special categories other than the user's own words are never rewritten by a value said in passing
_NOT_RESTATED = ("health.",)
_WORD = re.compile(r"[a-z0-9]+|[\u3400-\u9fff]+", re.I)
_CJK = re.compile(r"[\u3400-\u9fff]")


@cache
def _plain() -> frozenset[str]:
    """Words that name nothing ("the", "now", "instead"): left out of the naming words on both sides."""
    return frozenset(plain_words("en")) | frozenset(data_file("restatements.json")["not_naming"])


# the kinds of value, most specific first
_MONEY = re.compile(r"^(?:[$€£¥]\s?\d|\d[\d,.]*\s*(?:k|m|dollars?|euros?|pounds?|yuan|rmb|元|块|万)\b)", re.I)
# a count, with its unit when it has one ("750", "250 lines", "90 minutes", "50 grams", "3个")
# (with more words it is a phrase: "15 days PTO" replaces "unlimited PTO")
_NUMBER = re.compile(r"^\d[\d,.]*(?:\s*(?:%|percent|[a-z]+|[\u4e00-\u9fff]{1,2}))?$", re.I)
_DAY = re.compile(
    r"\b(?:monday|tuesday|wednesday|thursday|friday|saturday|sunday|mon|tue|wed|thu|fri|sat|sun|today|"
    r"tomorrow|tonight|yesterday|week|weekend|month|year|morning|afternoon|evening|noon|midnight|"
    r"january|february|march|april|may|june|july|august|september|october|november|december|"
    r"jan|feb|mar|apr|jun|jul|aug|sep|sept|oct|nov|dec|q[1-4])\b|\b\d{1,2}(?::\d{2})?\s*(?:am|pm)\b|"
    r"\b\d{1,2}/\d{1,2}\b|\d{4}-\d{2}-\d{2}|周[一二三四五六日末]|星期|礼拜|[今明后昨]天|下周|本周|这周|\d+月|\d+号|\d+日|\d+点",
    re.I,
)
# a day or time said as a phrase ("Tuesday afternoons", "Wednesday at 10", "Mon/Wed/Fri at 6am",
# "下周四"), as a correction replaces it whole
_DAY_WORD = (
    r"(?:(?:monday|tuesday|wednesday|thursday|friday|saturday|sunday|morning|afternoon|evening|night|weekend)s?|"
    r"mon|tue|tues|wed|thu|thur|thurs|fri|sat|sun|today|tomorrow|tonight|noon|midnight|"
    r"(?:january|february|march|april|june|july|august|september|october|november|december|jan|feb|mar|apr|jun|"
    r"jul|aug|sep|sept|oct|nov|dec)(?:\s+\d{1,2}(?:st|nd|rd|th)?)?|may\s+\d{1,2}(?:st|nd|rd|th)?|"
    r"\d{1,2}(?::\d{2})?\s*(?:am|pm)|\d{1,2}:\d{2}|\d{1,2}/\d{1,2}|the\s+\d{1,2}(?:st|nd|rd|th))"
)
DAY_PHRASE = re.compile(
    rf"(?<![\w/]){_DAY_WORD}(?:(?:\s*(?:,|/|-|–|to|and)?\s*|\s+(?:at|on|in\s+the|from|by)\s+){_DAY_WORD}"
    # (an hour said bare after a day: "fridays at 11")
    r"|\s+at\s+\d{1,2}(?::\d{2})?(?![\w:]))*(?![\w/])"
    r"|(?:下|上|这|本)?(?:周|星期|礼拜)[一二三四五六日天末](?:(?:早上|上午|中午|下午|晚上)?[\d一二三四五六七八九十两]+点(?:半|\d+分?)?)?"
    r"|(?:早上|上午|中午|下午|晚上)?[\d一二三四五六七八九十两]+点(?:半|\d+分?)?|\d+月\d+(?:号|日)",
    re.I,
)
_TIME_PART = re.compile(
    r"\d{1,2}(?::\d{2})?\s*(?:am|pm)|\d{1,2}:\d{2}|\b(?:mornings?|afternoons?|evenings?|nights?|noon|midnight)\b"
    r"|(?:早上|上午|中午|下午|晚上)?[\d一二三四五六七八九十两]+点(?:半|\d+分?)?",
    re.I,
)
_DATE_PART = re.compile(
    r"\b(?:(?:monday|tuesday|wednesday|thursday|friday|saturday|sunday|weekend)s?|mon|tue|tues|wed|thu|thur|thurs|fri|"
    r"sat|sun|today|tomorrow|tonight)\b(?:\s*/\s*\w+)*(?:\s+the\s+\d{1,2}(?:st|nd|rd|th)\b)?"
    r"|\bthe\s+\d{1,2}(?:st|nd|rd|th)\b|\b(?:january|february|march|april|may|june|july|august|"
    r"september|october|november|december|jan|feb|mar|apr|jun|jul|aug|sep|sept|oct|nov|dec)(?:\s+\d{1,2}(?:st|nd|rd|th)?)?\b"
    r"|(?:下|上|这|本)?(?:周|星期|礼拜)[一二三四五六日天末]|\d+月\d+(?:号|日)",
    re.I,
)
_DAY_LEAD = re.compile(
    r"^(?:(?:on|by|at|this|next|last|the|every|until|till|before|after|每个?|早上|下午|晚上)\s*)+", re.I
)
_NAME = re.compile(r"^(?:[A-Z][\w&'.-]*)(?:\s+(?:[A-Z][\w&'.-]*|of|de|la|du))*$")


def value_kind(value: str) -> str:
    """money | number | day | name | text: what an amount, a count, a date or time, a proper name,
    or anything else looks like."""
    v = value.strip()
    if _MONEY.match(v):
        return "money"
    if len(v.split()) <= 5 and DAY_PHRASE.fullmatch(_DAY_LEAD.sub("", v)):
        return "day"
    if _NUMBER.match(v):
        return "number"
    if len(v.split()) <= 5 and _DAY.match(_DAY_LEAD.sub("", v)):
        return "day"
    if _NAME.match(v):
        return "name"
    return "text"


def _compatible(new: str, old: str) -> bool:
    """Whether a value of kind `new` can replace one of kind `old`."""
    if new == old:
        return True
    # a proper name and a phrase replace each other freely; a bare number an amount ("make it 40")
    return {new, old} <= {"name", "text"} or (new, old) == ("number", "money")


_IN_SENTENCE = (
    ("money", re.compile(r"[$€£¥]\s?\d|\d[\d,.]*\s*(?:k|dollars?|euros?|pounds?|元|块|万)\b", re.I)),
    # (a Chinese character before a number is no part of it: "房租4500")
    ("number", re.compile(r"(?<![A-Za-z0-9_$€£¥])\d[\d,.]*(?!\s*(?:k|am|pm)\b)")),
)


def _kinds_of(rec: Record) -> frozenset[str]:
    """The kinds of value a record holds: its value's; for a statement kept in the user's words,
    also those of the values said in it ("our sync is every Wednesday at 10": a day, a number)."""
    value = rec.value if isinstance(rec.value, str) else str(rec.value)
    if not rec.attribute.startswith(VERBATIM):
        # "under $30 a head" holds an amount; a routine said as a phrase ("swim laps every tuesday
        # and thursday morning") holds a day
        found = {value_kind(value), *(kind for kind, pattern in _IN_SENTENCE if pattern.search(value))}
        if _phrase(rec) and DAY_PHRASE.search(value):
            found.add("day")
        return frozenset(found)
    found = {"text"}
    for kind, pattern in _IN_SENTENCE:
        if pattern.search(value):
            found.add(kind)
    if _DAY.search(value) or DAY_PHRASE.search(value):
        found.add("day")
    if re.search(r"(?<!^)(?<![.!?]\s)\b[A-Z][a-z]+", value):
        found.add("name")
    return frozenset(found)


_SPAN_OF_TIME = re.compile(r"(?:second|sec|minute|min|hour|hr|day|night|week|wk|month|year|yr)s?", re.I)


def _phrase(rec: Record) -> bool:
    """A record of a family whose value is a phrase of the user's ("swim laps at the pool every
    tuesday"): a value said alone changes the part of it of its kind, as in a statement."""
    return (
        rec.attribute.startswith("profile.")  # (what the user does, not a decision or a project's state)
        and isinstance(rec.value, str)
        and len(rec.value.split()) >= 3
        and value_kind(rec.value) == "text"
    )


_ORDINAL = re.compile(r"(?<![\w$€£¥])\d{1,2}(?:st|nd|rd|th)\b", re.I)


def restated(statement: str, value: str) -> str | None:
    """A statement with the first value of the new value's kind replaced by it ("a budget of 12k"
    and "9500": "a budget of 9500"); None when it holds none (a phrase replaces no phrase)."""
    kind = value_kind(value)
    if kind == "number" and _ORDINAL.fullmatch(value.strip()):
        # a day of the month for a day of the month, suffix and all ("the 5th" for "the 1st")
        found = _ORDINAL.search(statement)
        if found is not None:
            return statement[: found.start()] + value.strip() + statement[found.end() :]
    if kind == "number":
        # the count of the same thing when the value names it ("400 lines" for "250 lines"), else
        # the first count; its digits and separators, the unit left as said
        unit = re.sub(r"^\d[\d,.]*\s*", "", value).strip()
        if unit:
            same = re.search(rf"(?<![\w$€£¥])\d[\d,.]*\s*{re.escape(unit.split()[0])}", statement, re.I)
            if same is None and _SPAN_OF_TIME.fullmatch(unit.split()[0]):
                # "every 3 months" for "every 6 weeks": a span of time replaces one in another unit
                same = re.search(rf"(?<![\w$€£¥])\d[\d,.]*\s*{_SPAN_OF_TIME.pattern}\b", statement, re.I)
            if same is not None:
                return statement[: same.start()] + value + statement[same.end() :]
        # (an amount when it holds no plain count: "under $30 a head" and "40")
        found = dict(_IN_SENTENCE)["number"].search(statement) or dict(_IN_SENTENCE)["money"].search(statement)
        if found is None:
            return None
        found = re.compile(r"\d+(?:[.,]\d+)*").search(statement, found.start())
        assert found is not None
        return statement[: found.start()] + re.match(r"\d[\d,.]*", value).group() + statement[found.end() :]  # type: ignore[union-attr]
    if kind == "money":
        found = dict(_IN_SENTENCE)["money"].search(statement)
    elif kind == "day":
        # the phrase of days and times ("Tuesday afternoons" for "Tuesdays at 9am"), or only its
        # time or only its day when the value gives only that ("Mon/Wed/Fri at 6am" and "7pm")
        found = DAY_PHRASE.search(statement) or _DAY.search(statement)
        if found is not None:
            phrase = found.group()
            for part, other in ((_TIME_PART, _DATE_PART), (_DATE_PART, _TIME_PART)):
                inner = part.search(phrase)
                if part.search(value) and not other.search(value) and inner is not None:
                    start = found.start() + inner.start()
                    return statement[:start] + value + statement[found.start() + inner.end() :]
    else:
        return None
    if found is None:
        return None
    return statement[: found.start()] + value + statement[found.end() :]


def stem(word: str) -> str:
    """A word's first four letters: "pricing" and "price", "shipping" and "ship" meet."""
    return word[:4]


def naming_words(texts: Iterable[str]) -> frozenset[str]:
    """The words that name things in `texts`, stemmed (Chinese kept whole: matched inside)."""
    out: set[str] = set()
    for text in texts:
        for word in _WORD.findall(text.replace("_", " ").replace(".", " ").casefold()):
            if _CJK.match(word):
                out.add(word)
            elif word not in _plain() and len(word) > 1:
                out.add(stem(word))
    return frozenset(out)


def _overlap(about: frozenset[str], rec: Record) -> int:
    attribute = rec.attribute.split(".", 1)[-1]
    value = rec.value if isinstance(rec.value, str) else str(rec.value)
    theirs = naming_words([attribute, value, rec.statement])
    plain = f"{rec.attribute} {value} {rec.statement}"
    return sum(1 for w in about if (w in plain if _CJK.match(w) else w in theirs))


@dataclass(frozen=True)
class Resolution:
    """`targets`: the records to replace (one value, said once or more); `candidates`: when
    ambiguous, one record per value it could mean; both empty: nothing to replace."""

    targets: tuple[Record, ...] = ()
    candidates: tuple[Record, ...] = ()
    why: str = ""
    old_values: frozenset[str] = field(default_factory=frozenset)

    @property
    def ambiguous(self) -> bool:
        return bool(self.candidates)


def eligible(records: Iterable[Record], scopes: Iterable[str], restating: bool) -> list[Record]:
    """The user's live records in the scopes the sentence was said in. A restatement never touches
    a business fact, a verbatim statement or a special category."""
    wanted = set(scopes)
    out = []
    for r in records:
        if r.status not in LIVE_STATUSES or r.scope not in wanted or r.subject != "user":
            continue
        if restating and (
            r.kind == Kind.FACT or (r.attribute.startswith(_NOT_RESTATED) and not r.attribute.startswith(VERBATIM))
        ):
            continue
        out.append(r)
    return out


def _by_value(records: Iterable[Record]) -> dict[str, list[Record]]:
    groups: dict[str, list[Record]] = {}
    for r in records:
        groups.setdefault(r.normalized_value, []).append(r)
    return groups


def _contains(haystack: str, needle: str) -> bool:
    if not needle:
        return False
    if _CJK.search(needle):
        return needle in haystack
    return re.search(rf"(?<!\w){re.escape(needle)}(?!\w)", haystack) is not None


def resolve_restatement(
    records: list[Record],
    value: str,
    about: list[str],
    old_value: str | None,
    change: bool,
    at: datetime,
    statement: str = "",
) -> Resolution:
    """The records a new value replaces (see the module's docstring); `records`: the eligible ones."""
    new_norm = normalize_value(value)
    kind = value_kind(value)
    # (a record made from this very sentence, by a rule family beside this command, is not its target)
    records = [r for r in records if r.statement != statement]
    kinds = {r.id: _kinds_of(r) for r in records}
    pool = [r for r in records if r.normalized_value != new_norm and any(_compatible(kind, k) for k in kinds[r.id])]
    # a value of the same kind first: a city replaces a city before it replaces a sentence naming one
    same_kind = [
        r
        for r in pool
        if not r.attribute.startswith(VERBATIM)
        and value_kind(r.value if isinstance(r.value, str) else str(r.value)) == kind
    ]
    pool = same_kind or pool
    chosen: list[Record] = []
    why = ""
    if old_value:
        old_norm = normalize_value(old_value)
        chosen = [r for r in pool if r.normalized_value == old_norm or _contains(r.normalized_value, old_norm)]
        why = "the value it replaces"
    words = naming_words(about)
    if not chosen and words:
        scored = [(r, _overlap(words, r)) for r in pool]
        best = max((s for _, s in scored), default=0)
        if best:
            chosen = [r for r, s in scored if s == best]
            why = "the words naming it"
    if not chosen and (change or kind != "text"):
        # by context alone, only a slot that holds one value (a like among several is never
        # guessed), or a statement in the user's words holding a value of the same specific kind
        # about the same thing ("our sync is every Wednesday at 10" and "make it Thursday")
        pool = [
            r
            for r in pool
            if r.cardinality == Cardinality.SINGLE
            or (
                (r.attribute.startswith(VERBATIM) or _phrase(r))
                and kind in SPECIFIC_KINDS
                and kind in kinds[r.id]
                and _same_part(value, r.statement)
                and (at - r.observed_at <= RECENT or _bears_on(r, statement, value))
            )
        ]
        groups = _by_value(pool)
        if len(groups) == 1:
            chosen, why = pool, "the only value it can replace"
        elif groups:
            recent = [r for r in pool if at - r.observed_at <= RECENT]
            chosen = _closest(recent or pool, f"{statement} {value}")
            why = "what the conversation last touched" if recent else "the closest in meaning"
    if not chosen:
        return Resolution(why="nothing it restates")
    groups = _by_value(chosen)
    if len(groups) > 1:
        return Resolution(candidates=tuple(g[0] for g in groups.values()), why=why)
    (old_norm,) = groups
    # the same value said elsewhere (a decision the user stated, the state a tool wrote), and what
    # the conversation just said with it in it ("ship the package to Los Angeles")
    same = [
        r
        for r in records
        if r.normalized_value == old_norm or (at - r.observed_at <= RECENT and _contains(r.normalized_value, old_norm))
    ]
    targets = {r.id: r for r in [*chosen, *same] if r.normalized_value != new_norm}
    return Resolution(targets=tuple(targets.values()), why=why, old_values=frozenset({old_norm}))


SPECIFIC_KINDS = ("day", "money", "number")  # a value of one of these kinds says what it is
BEARS_ON = 0.15  # the least area agreement between a correction and a statement it changes by kind alone


_CLOCK = re.compile(r"\d{1,2}(?::\d{2})?\s*(?:am|pm)|\d{1,2}:\d{2}|[\d一二三四五六七八九十两]+点", re.I)


def _same_part(value: str, statement: str) -> bool:
    """A day replaces a day and a clock time a clock time: "make it Thursday" is not about "7 hours
    a night", nor "at 7pm" about "every Tuesday"."""
    if value_kind(value) != "day":
        return True
    if _DATE_PART.search(value) and not _DATE_PART.search(statement):
        return False
    return not (_CLOCK.search(value) and not _DATE_PART.search(value) and not _CLOCK.search(statement))


_DAY_OF_MONTH = re.compile(
    r"(?<![\w$€£¥])\d{1,2}(?:st|nd|rd|th)\b|\b(?:january|february|march|april|may|june|july|august|september|"
    r"october|november|december|jan|feb|mar|apr|jun|jul|aug|sep|sept|oct|nov|dec)\s+\d{1,2}\b|\d+月\d+(?:号|日)|\d+号",
    re.I,
)


def _bears_on(record: Record, statement: str, value: str) -> bool:
    """Whether a change given only by its value ("90 minutes", "make it Thursday") may be about a
    statement: it counts the same thing ("250 lines" and "400 lines of diff"), or the two are
    about the same area of life."""
    unit = re.sub(r"^[$€£¥]?\d[\d,.]*\s*", "", value).strip().split()
    if unit and re.search(rf"\d[\d,.]*\s*{re.escape(stem(unit[0]))}", record.statement, re.I):
        return True
    if _DAY_OF_MONTH.search(value) and _DAY_OF_MONTH.search(record.statement):
        return True  # a date for a date ("the 10th at 3pm" and "moved to thursday the 12th")
    if not statement:
        return False
    if naming_words([record.statement]) & naming_words([statement]):
        return True  # "school pickup is 3:15" and "pickup's at 2:45 now"
    from .semantics import area_model, vectors

    said = [f"{record.statement}", statement]
    areas = [area_model.probabilities(text, vectors.embed(text)) for text in said]
    return float(areas[0] @ areas[1]) >= BEARS_ON


SIMILARITY_MARGIN = 0.08  # how much closer in meaning the target must be than the next value


def _closest(records: list[Record], text: str) -> list[Record]:
    """The records of the one value clearly closest in meaning to `text`; none when two values
    are about as close (the correction is then ambiguous)."""
    groups = _by_value(records)
    if len(groups) <= 1:
        return records
    from .semantics import vectors  # the model loads on first use

    target = vectors.embed(text)
    scored = sorted(
        (
            (max(float(vectors.embed(f"{r.statement} {r.value}") @ target) for r in group), key)
            for key, group in groups.items()
        ),
        reverse=True,
    )
    if scored[0][0] - scored[1][0] < SIMILARITY_MARGIN:
        return records  # several values: the caller reports the ambiguity
    return groups[scored[0][1]]


# what a forget or retraction named only by meaning needs of a record: its cosine to the words plus
# how much the two are about the same areas of life (the sum of the area probabilities' products:
# "the car" and "We have a Toyota RAV4" agree by 0.9 where the words barely share a token) at
# least this, clearly above (by `MEANING_MARGIN`) any other value's; and, when the words name an
# area at all, some agreement with it ("the race": not the job)
FORGET_SIMILARITY = 0.3
MEANING_MARGIN = 0.1


def _closeness(texts: list[str], text: str) -> tuple[list[tuple[float, float]], float]:
    """Each text's cosine to `text` and the agreement of their areas of life (the sum of the two
    area probabilities' products); and the probability of `text`'s most likely area."""
    from .semantics import area_model, vectors

    target = vectors.embed(text)
    areas = area_model.probabilities(text, target)
    out = []
    for said in texts:
        vector = vectors.embed(said)
        out.append((float(vector @ target), float(area_model.probabilities(said, vector) @ areas)))
    return out, float(areas.max())


def _meaning_scores(texts: list[str], text: str) -> list[float | None]:
    """Each text's closeness in meaning to `text` (cosine plus area agreement); None for one of
    another area of life than `text` clearly names."""
    from .semantics.relevance import AREA_AGREEMENT, LEAST_LIKELY

    pairs, most_likely = _closeness(texts, text)
    named = most_likely >= LEAST_LIKELY
    return [None if named and agreement < AREA_AGREEMENT else cosine + agreement for cosine, agreement in pairs]


def _closest_by_meaning(records: list[Record], text: str) -> list[Record]:
    # (what the user says of themself, "my salary", is never a project's fact)
    records = [r for r in records if r.kind not in (Kind.FACT, Kind.KNOWLEDGE)]
    if not records:
        return []
    # a record is read as said and by its value alone (a routine's own words, without what the
    # sentence said beside it)
    quoted = _meaning_scores([f"{r.statement} {r.value}" for r in records], text)
    alone = _meaning_scores([str(r.value) for r in records], text)
    scores = [max((s for s in pair if s is not None), default=None) for pair in zip(quoted, alone, strict=True)]
    scored = sorted(
        ((score, r.normalized_value, r.id) for score, r in zip(scores, records, strict=True) if score is not None),
        reverse=True,
    )
    if not scored:
        return []
    best, best_value, best_id = scored[0]
    second = next((score for score, value, _ in scored[1:] if value != best_value), -1.0)
    if best < FORGET_SIMILARITY or best - second < MEANING_MARGIN:
        return []
    return [r for r in records if r.id == best_id]


def only_quotes(record: Record, about: list[str]) -> bool:
    """Whether a forget's words name only what a record quotes, not its value ("divorce" and the
    occupation "nurse" quoted from "I'm a nurse, … going through a divorce"): the record stays,
    requoted. A statement kept in the user's words is its quote."""
    if record.attribute.startswith(VERBATIM) or not isinstance(record.value, str | int | float):
        return False
    # (its attribute names it too: "forget the standup" and `profile.expertise.standup`)
    value = f"{record.value} {record.attribute.replace('.', ' ').replace('_', ' ')}"
    if _CJK.search(value) or any(_CJK.search(w) for w in about):
        if any(w and w in value for w in about):
            return False
        naming = [c for _, c in _clauses(record.statement) if any(w and w in c for w in about)]
        return bool(naming) and not any(str(record.value) in c for c in naming)
    words = naming_words(about)
    if words & naming_words([value]):
        return False
    # the clauses of its sentence naming it say nothing of its value ("My favourite band is
    # Radiohead": the band is what the record holds)
    naming = [c for _, c in _clauses(record.statement) if words & naming_words([c])]
    return bool(naming) and not (naming_words([str(record.value)]) & naming_words(naming))


def resolve_forget(records: list[Record], about: list[str]) -> Resolution:
    """The records a forget in the user's words names: every live record its naming words all
    appear in (the user wants that gone, wherever it is), else those sharing the most of them."""
    words = naming_words(about)
    if not words:
        return Resolution(why="no words to find it by")
    scored = [(r, _overlap(words, r)) for r in records]
    best = max((s for _, s in scored), default=0)
    if not best:
        # "forget what I told you about my pay" against "I make 68k": the one record clearly
        # closest in meaning, if one is
        closest = _closest_by_meaning(records, " ".join(about))
        if closest:
            return Resolution(targets=tuple(closest), why="the closest in meaning")
        return Resolution(why="nothing it names")
    full = [r for r, s in scored if s == len(words)]
    targets = full or [r for r, s in scored if s == best]
    return Resolution(targets=tuple(targets), why="the words naming it")


GRAVE_BY_WORDS = "a record of grave consequence ends only when named in its own words"


def _grave(record: Record) -> bool:
    """An allergy, a condition, a medication (a special category of grave consequence): dropped on
    a guess, the agent stops heeding what keeps the user safe."""
    return record.sensitivity == Sensitivity.SPECIAL and record.consequence in (Consequence.HIGH, Consequence.CRITICAL)


def resolve_retraction(records: list[Record], about: list[str]) -> Resolution:
    """The records a retraction in the user's words names ("I quit the gym": ["gym"]): those
    holding every naming word, of one value (several: the one clearly closest in meaning, else
    nothing, since guessing would drop a true memory), else the one record clearly closest in
    meaning."""
    words = naming_words(about)
    if not words:
        return Resolution(why="no words to find it by")
    # (a record whose value does not name it, only its quote, is not what ended: "sold the car"
    # and the dog quoted from "how do I keep dog hair off the car seats")
    full = [r for r in records if _overlap(words, r) == len(words) and not only_quotes(r, about)]
    if not full:
        closest = _closest_by_meaning(records, " ".join(about))
        if any(_grave(r) for r in closest):
            return Resolution(why=GRAVE_BY_WORDS)
        if closest:
            return Resolution(targets=tuple(closest), why="the closest in meaning")
        return Resolution(why="nothing it names")
    if len(_by_value(full)) > 1:
        full = _closest(full, " ".join(about))
        if len(_by_value(full)) > 1:
            return Resolution(why="ambiguous: several records name it")
    return Resolution(targets=tuple(full), why="the words naming it")


# what a statement of what holds now needs of the record it replaces: mostly the same area of life
# (the sum of the two area probabilities' products), some closeness of words (cosine), and to be
# clearly closer than any other record
REPLACEMENT_AGREEMENT = 0.25
REPLACEMENT_SIMILARITY = 0.15


# news of a change ("sold the car last week") and the one record of its area of life: the area
# agreement the record needs, and the most any other record may have; news replaces a record of an
# area others share only when this close in words (it tells of one thing: "took me off the pills"
# is not about an allergy beside a prescription)
NEWS_AGREEMENT = 0.5
NEWS_OTHERS = REPLACEMENT_AGREEMENT
NEWS_SIMILARITY = 0.3


def resolve_replacement(records: list[Record], statement: str, news: bool = False) -> Resolution:
    """The record a statement of what holds now replaces ("new job, so alarm's at 7:00 now" and "I
    wake up at 5:30 for my commute"): the one record about the same area of life and clearly closest
    in meaning; else none (a true memory is never dropped on a guess). A project's facts and
    knowledge are never targets. `news`: the statement tells a change as news ("sold the car last
    week", "音乐会员不续了"); it may also replace the only record clearly of its area, however few
    words the two share (none of any other area it is about)."""
    candidates = [r for r in records if r.kind not in (Kind.FACT, Kind.KNOWLEDGE)]
    closeness, _ = _closeness([f"{r.statement} {r.value}" for r in candidates], statement)
    if news:
        of_area = [r for (_, agreement), r in zip(closeness, candidates, strict=True) if agreement >= NEWS_OTHERS]
        if len({r.normalized_value for r in of_area}) == 1 and any(
            agreement >= NEWS_AGREEMENT for _, agreement in closeness
        ):
            if _grave(of_area[0]):
                return Resolution(why=GRAVE_BY_WORDS)
            return Resolution(targets=(of_area[0],), why="the only record of its area")
    scored = [
        (cosine, agreement >= REPLACEMENT_AGREEMENT, r.normalized_value, r.id)
        for (cosine, agreement), r in zip(closeness, candidates, strict=True)
    ]
    scored.sort(reverse=True)
    if not scored:
        return Resolution(why="nothing it replaces")
    best, same_area, best_value, best_id = scored[0]
    second = next((score for score, _, value, _ in scored[1:] if value != best_value), -1.0)
    least = NEWS_SIMILARITY if news else REPLACEMENT_SIMILARITY
    if not same_area or best < least or best - second < SIMILARITY_MARGIN:
        return Resolution(why="nothing clearly closest it replaces")
    if any(_grave(r) for r in records if r.id == best_id):
        return Resolution(why=GRAVE_BY_WORDS)
    return Resolution(targets=tuple(r for r in records if r.id == best_id), why="the closest in meaning")


# (the word joining a clause to the one before is kept: a consequence goes with its cause)
_EN_CLAUSE_CUTS = re.compile(
    r"(?<=[.!?;])\s+|,\s*(?:(and|but|so|plus)\s+)?|\s+(and|but)\s+(?=(?:i|i'm|i've|my|we|we're|our)\b)", re.I
)
# (a space between Chinese words parts clauses as a comma does: "周二晚上去游泳 然后我对芒果过敏")
_ZH_CLAUSE_CUTS = re.compile(r"[，,。；;！!？?]\s*|(?<=[\u3400-\u9fff])\s+(?=[\u3400-\u9fff])")
# a clause that says what follows from the one before ("a dodgy knee, so no jumping exercises"):
# it goes with that one, as does one set after a comma that only names again what it said ("I've
# got a car, a blue Golf")
_CONSEQUENCE = re.compile(r"^(?:so|which|hence|therefore|that's\s+why)\b", re.I)
_APPOSITION = re.compile(r"^(?:a|an|the)\s+\S+(?:\s+\S+){0,3}$", re.I)


def _and_parts(clause: str) -> list[str]:
    parts = re.split(r"\s+and\s+", clause)
    if len(parts) > 1 and all(len(p.split()) >= 3 for p in parts):
        return parts
    return [clause]


def _clauses(statement: str) -> list[tuple[str, str]]:
    """A statement's clauses, each with the word joining it to the one before ("" for none)."""
    if _CJK.search(statement):
        return [("", c.strip()) for c in _ZH_CLAUSE_CUTS.split(statement) if c and c.strip()]
    out: list[tuple[str, str]] = []
    pieces = _EN_CLAUSE_CUTS.split(statement)  # clause, joint word, joint word, clause, ...
    joint = ""
    for k, piece in enumerate(pieces):
        if k % 3 == 0:
            if piece and piece.strip():
                # "I take violin lessons on Saturdays and do the farmers market after": two things done
                for n, part in enumerate(_and_parts(piece.strip())):
                    out.append((joint if n == 0 else "and", part))
            joint = ""
        elif piece:
            joint = piece.casefold()
    return out


def of_other_areas(statement: str, news: str) -> str | None:
    """The clauses of a statement about other areas of life than the news that replaced it ("I
    drive a Civic and I volunteer at the food bank" and "sold the car last week": the food bank);
    None when no clause is, or every one is."""
    joined_clauses = _clauses(statement)
    clauses = [clause for _, clause in joined_clauses]
    if len(clauses) < 2:
        return None
    pairs, _ = _closeness(clauses, news)
    kept = [clause for clause, (_, agreement) in zip(clauses, pairs, strict=True) if agreement < REPLACEMENT_AGREEMENT]
    if not kept or len(kept) == len(clauses):
        return None
    chinese = bool(_CJK.search(statement))
    return ("，" if chinese else ", ").join(c.rstrip("，,。.;；") for c in kept) + ("。" if chinese else ".")


def without_clauses(statement: str, about: list[str]) -> str | None:
    """A statement without the clauses naming what no longer holds; None when nothing would be
    left, or when no clause names it (the whole statement is what the user meant)."""
    chinese = bool(_CJK.search(statement))
    joined_clauses = _clauses(statement)
    words = naming_words(about)

    def names(clause: str) -> bool:
        if chinese:
            return any(w in clause for w in about if w)
        return bool(words & naming_words([clause]))

    clauses = [clause for _, clause in joined_clauses]
    named = {k for k, clause in enumerate(clauses) if names(clause)}
    if not named and len(clauses) > 1:
        # no clause has the words ("sold the car" and "We have a Toyota RAV4 and a golden retriever
        # called Pickle"): the one clause clearly closest to them in meaning, if one is
        scores = _meaning_scores(clauses, " ".join(about))
        ranked = sorted(((score, k) for k, score in enumerate(scores) if score is not None), reverse=True)
        if ranked and ranked[0][0] >= FORGET_SIMILARITY:
            second = ranked[1][0] if len(ranked) > 1 else -1.0
            if ranked[0][0] - second >= MEANING_MARGIN:
                named = {ranked[0][1]}
    kept: list[str] = []
    dropped_before = False
    for k, (joint, clause) in enumerate(joined_clauses):
        follows = joint == "so" or bool(_CONSEQUENCE.match(clause)) or (not joint and bool(_APPOSITION.match(clause)))
        dropped = k in named or (follows and dropped_before)
        if not dropped:
            kept.append(clause)
        dropped_before = dropped
    if not kept or len(kept) == len(clauses):
        return None
    joined = ("，" if chinese else ", ").join(c.rstrip("，,。.;；") for c in kept)
    return joined + ("。" if chinese else ".")
