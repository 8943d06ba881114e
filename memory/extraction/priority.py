"""Time-boxed priorities: `priority.focus`, valid from the turn's time until the end of the period it
names (this week, today, this month, this quarter, next week, tomorrow); "for now", "these days",
"this sprint", "until the deadline" take the registry's default lifetime.

The patterns, word lists and time markers are in `memory/data/families/priority.toml`; here is how
a sentence is read with them (what rules a focus out, the cue fallback) and the readers of values."""

from __future__ import annotations

import re
from datetime import datetime, timedelta

from ..models import Kind
from . import prefilter
from .family import Hit
from .markers import ASKS_THE_ASSISTANT
from .prefilter import one_of, rewritten
from .spec import InGroup, Spec
from .text import _negated, clean, day_end, matched_by, month_end, scan, tables, week_end

SPEC = Spec("priority")
_TM_EN = SPEC.expressions["tm_en"]
_TM_ZH = SPEC.expressions["tm_zh"]
_PRIORITY_WORD = SPEC.expressions["priority_word"]
_REQUEST = SPEC.expressions["request"]
_GOAL_NOUN = SPEC.expressions["goal_noun"]
_SHORT_WINDOW = SPEC.expressions["short_window"]
_PAST_ONLY = SPEC.expressions["past_only"]
_NOW_WINDOW = SPEC.expressions["now_window"]
_GENERAL_NEEDS_NO_TIME = SPEC.expressions["general_needs_no_time"]
_VALUE_JUNK = SPEC.expressions["value_junk"]
_NOT_A_FOCUS = SPEC.expressions["not_a_focus"]
_FOR_ME = SPEC.expressions["for_me"]
_OWN_FOCUS = SPEC.expressions["own_focus"]
_FOCUS_CUE_EN = SPEC.expressions["focus_cue_en"]
_PAST_EN = SPEC.expressions["past_en"]
_FOCUS_CUE_ZH = SPEC.expressions["focus_cue_zh"]
_PAST_ZH = SPEC.expressions["past_zh"]
_STRIP_ZH = SPEC.expressions["strip_zh"]
_STRIP_EN = SPEC.expressions["strip_en"]
_NOT_A_TASK = SPEC.expressions["not_a_task"]
_RESIDUE_CUE_ZH = SPEC.expressions["residue_cue_zh"]
_DONE_ZH = SPEC.expressions["done_zh"]
_ON_BUT_NO_FOCUS = SPEC.expressions["on_but_no_focus"]
_VALUE_SPOTS_EN = SPEC.searches("value_spots_en")
_VALUE_SPOTS_ZH = SPEC.searches("value_spots_zh")
_WINDOWS = SPEC.maps["windows"]


def _quarter_end(at: datetime) -> datetime:
    q_month = 3 * ((at.month - 1) // 3) + 1
    first = at.replace(month=q_month, day=1, hour=0, minute=0, second=0, microsecond=0)
    month = q_month + 3
    return first.replace(year=first.year + 1, month=month - 12) if month > 12 else first.replace(month=month)


def _window(marker: str, at: datetime) -> tuple[datetime | None, datetime | None]:
    period = _WINDOWS.get(" ".join(marker.casefold().split()))
    if period == "week":
        return at, week_end(at)
    if period == "day":
        return at, day_end(at)
    if period == "month":
        return at, month_end(at)
    if period == "quarter":
        return at, _quarter_end(at)
    if period == "next week":
        start = week_end(at)
        return start, start + timedelta(days=7)
    if period == "tomorrow":
        start = day_end(at)
        return start, start + timedelta(days=1)
    return None, None  # "for now / 目前 / these days / this sprint": the registry's default lifetime


def _focus_value(raw: str | None, strict: bool = False) -> str | None:
    """What comes first, from a shape above: not a pronoun or a judgement, not a question."""
    if not raw:
        return None
    v = clean(raw)
    v = re.sub(r"(?i)^(?:to\s+|on\s+|is\s+|the\s+thing\s+is\s+)", "", v).strip()
    v = re.sub(r"^(?:的是|是|在|把|就是)", "", v)
    if not v or _VALUE_JUNK.match(v) or _NOT_A_FOCUS.fullmatch(v) or re.search(r"[?？吗]$", v):
        return None
    if strict and _ON_BUT_NO_FOCUS.match(v):
        return None  # "I'm on the phone", "we're on vacation", "I'm on crutches": not a focus
    return v


def _focus_value_strict(raw: str | None) -> str | None:
    return _focus_value(raw, strict=True)


_READERS = {
    "clean": InGroup(clean),
    "focus_value": InGroup(_focus_value),
    "focus_value_strict": InGroup(_focus_value_strict),
}
_PRIORITY_EN = SPEC.table("priority_en", _READERS)
_PRIORITY_ZH = SPEC.table("priority_zh", _READERS)
_GENERAL_EN = SPEC.table("general_en", _READERS)
_GENERAL_ZH = SPEC.table("general_zh", _READERS)


def _residue(clause: str, zh_text: bool) -> str | None:
    v = clause.strip(" ,，;；:：")
    for _ in range(3):
        before = v
        v = (_STRIP_ZH if zh_text else _STRIP_EN).sub("", v).strip(" ,，;；:：")
        v = clean(v)
        if v == before:
            break
    if zh_text:
        v = re.sub(r"(?:上面|上|这一?件事|这事|再说)$", "", v)
    if len(v) < 2 or _NOT_A_TASK.match(v) or _VALUE_JUNK.match(v):
        return None
    return v


def _cue_clause(text: str, cue: re.Pattern[str]) -> str | None:
    """The clause that carries the cue (or, for "everything else can wait", the other one)."""
    clauses = [c for c in re.split(r"\s*[,，;；:：]\s*|\s+[—–-]\s+", text) if c.strip()]
    for i, c in enumerate(clauses):
        if cue.search(c):
            if re.search(r"(?i)secondary|can\s+wait|次要|往后放|先放|不管", c) and len(clauses) > 1:
                return clauses[i - 1] if i else clauses[i + 1]
            return c
    return None


def _priority_cue(text: str) -> str | None:
    if re.search(r"[\u4e00-\u9fff]", text):
        if not _FOCUS_CUE_ZH.search(text) or _PAST_ZH.search(text):
            return None
        for spot in _VALUE_SPOTS_ZH:
            m = spot.search(text)
            if m:
                return clean(re.sub(r"(?:这一?件事|这事|再说|这块)$", "", clean(m.group(1))))
        clause = _cue_clause(text, _RESIDUE_CUE_ZH)
        return _residue(clause, True) if clause and not _DONE_ZH.search(clause) else None
    text = text.strip(" ,;:")
    # (a cue word negated is none: "I can't focus at all today")
    if all(_negated(text, c) for c in _FOCUS_CUE_EN.finditer(text)) or _PAST_EN.search(text):
        return None
    for spot in _VALUE_SPOTS_EN:
        m = spot.search(text)
        if m:
            v = clean(
                re.sub(r"(?i)^(?:for\s+this\s+sprint|for\s+now|right\s+now)\s*,?\s*", "", m.group(1)).lstrip(" ,")
            )
            if v and not re.match(r"(?i)(?:it|this|that|me|us|them|everything|anything)\b", v):
                return v
    clause = _cue_clause(text, _FOCUS_CUE_EN)
    return _residue(clause, False) if clause else None


# what the family cannot fire without (the prefilter's look): a time marker, or one of the words
# `priority_hits` checks for before anything else when there is none; and a value read by one of
# the patterns or, next to a time marker, by the cue (in the sentence with the marker blanked out)
PRIORITY_REQUIRES = rewritten(
    one_of(_TM_EN, _TM_ZH, _PRIORITY_WORD, _OWN_FOCUS, _GENERAL_NEEDS_NO_TIME)
    & one_of(*matched_by(_PRIORITY_EN + _PRIORITY_ZH + _GENERAL_EN + _GENERAL_ZH), _FOCUS_CUE_EN, _FOCUS_CUE_ZH)
)


# the words of the sentence are looked for only where the prefilter finds them (`prefilter.search`, `test`)
prefilter.indexed(_REQUEST)
tables(_PRIORITY_EN, _PRIORITY_ZH, _GENERAL_EN, _GENERAL_ZH)
prefilter.tested(_GOAL_NOUN, _SHORT_WINDOW, _PAST_ONLY, _PRIORITY_WORD, _OWN_FOCUS, _GENERAL_NEEDS_NO_TIME)


def _asked_for(body: str, value: str) -> bool:
    """What the value is read from is a request to the assistant: a request word before it in its
    clause ("这两天帮我盯一下PPT的逻辑", "help me break this email into smaller steps"), the task at
    hand, not a focus ("my priority this week is the launch, can you help me plan it?" keeps it)."""
    at = body.find(value)
    if at < 0:
        return False
    start = max(body.rfind(mark, 0, at) for mark in ",，;；。.!！?？") + 1
    return ASKS_THE_ASSISTANT.search(body, start, at) is not None


def priority_hits(text: str, at: datetime) -> list[Hit]:
    tm = prefilter.search(_TM_EN, text) or prefilter.search(_TM_ZH, text)
    if prefilter.may_match(_REQUEST, text) and _REQUEST.match(text):
        return []  # "帮我写封邮件，今天…", "help me plan today": a request to the assistant
    if prefilter.test(_GOAL_NOUN, text) and not prefilter.test(_SHORT_WINDOW, text):
        return []  # "今年我的主要目标是…", "my goal this year is …": a goal, not a time-boxed focus
    if (
        not tm
        and not prefilter.test(_PRIORITY_WORD, text)
        and not prefilter.test(_OWN_FOCUS, text)
        and not prefilter.test(_GENERAL_NEEDS_NO_TIME, text)
    ):
        return []
    if prefilter.test(_PAST_ONLY, text) and not (tm and _NOW_WINDOW.search(tm.group(0))):
        return []  # "I focused on the wrong thing yesterday": narration, not a current focus
    # the value must not carry the time marker: match on the text with the marker blanked out
    body = text if not tm else (text[: tm.start()] + " " * (tm.end() - tm.start()) + text[tm.end() :])
    body = body.strip()
    found = scan(_PRIORITY_EN, body) or scan(_PRIORITY_ZH, body)
    if not found and (tm or _GENERAL_NEEDS_NO_TIME.search(body)):
        found = scan(_GENERAL_EN, body) or scan(_GENERAL_ZH, body)
    if not found and tm:
        cue = _priority_cue(body)
        found = (cue, re.match(r".*", body)) if cue else None  # type: ignore[assignment]
    if not found or _asked_for(body, str(found[0])):
        return []
    value = re.sub(r"^(?:把|一下|下|在)", "", clean(found[0]).lstrip(" ,，;；:："))
    value = re.sub(r"^.*[,，]\s*(?=\S)", "", value) if re.search(r"(?i)can\s+wait|先不管|放一放|先放", value) else value
    value = clean(re.sub(r"(?:这一?件事|这事|再说)$", "", value))
    value = clean(_FOR_ME.sub("", re.sub(r"\s+first$", "", value, flags=re.I)))
    if _NOT_A_FOCUS.fullmatch(value):
        return []  # "my focus is terrible today"
    value = re.sub(r"(?:身上|上面|上)$", "", value) if re.search(r"在", found[1].group(0)) else value
    if not value or re.fullmatch(
        r"(?:it|this|that|things|stuff|attention|energy|time|focus|什么|啥|这个|那个|注意力|精力|心思|时间|力气)",
        value,
        re.I,
    ):
        return []
    if re.search(
        r"(?i)\b(?:takeaways?|conclusions?|bottom\s+line|answers?|summary|examples?|theory)\s+(?:should|must|needs"
        r"?\s+to)\b",
        value,
    ):
        return []  # "the key takeaway should come first": an answer order, not a focus
    if re.match(
        r"(?i)(?:these|those|the\s+following|this\s+list|them|my\s+(?:tasks|list|to-?dos?))\b|这几个|下面|以下", value
    ):
        return []  # "prioritize these tasks for me: …": a request to sort, not a focus
    vf, vu = _window(tm.group(1), at) if tm else (None, None)
    return [Hit("priority", Kind.PRIORITY, "priority.focus", value, confidence=0.85, valid_from=vf, valid_until=vu)]
