"""Work: `profile.work.occupation`, `.employer`, `.schedule`, `.remote_days`, `.manager` (manager
statements are read before other people's clauses are dropped: the manager is the subject).

The patterns are in `memory/data/families/work.toml`; here are the readers of a work value."""

from __future__ import annotations

import re

from . import prefilter
from .everyday_shared import CJK, Found, phrase_value
from .prefilter import one_of
from .spec import Reader, Spec
from .text import clean

SPEC = Spec("work")


def _work(m: re.Match[str], attribute: str, group: str, suffix: str = "") -> list[Found]:
    """A work value from a group, cut at a trailing clause (`phrase_value`), and what follows it."""
    return [(attribute, phrase_value(m.group(group)) + suffix, False)]


def _work_as_said(m: re.Match[str], attribute: str, group: str, suffix: str = "") -> list[Found]:
    return [(attribute, m.group(group) + suffix, False)]


def _work_fixed(m: re.Match[str], attribute: str, value: str) -> list[Found]:
    return [(attribute, value, False)]


def _work_whole(m: re.Match[str], attribute: str) -> list[Found]:
    """ "that's my side job": the whole sentence names it."""
    return [(attribute, phrase_value(m.string), False)]


def _on_call(m: re.Match[str]) -> list[Found]:
    return [("profile.work.schedule", "on call" + m.group("when"), False)]


def _occupation_at(m: re.Match[str]) -> list[Found]:
    """ "I'm a nurse at St Mary's": the occupation (not a level of skill) and the employer."""
    found: list[Found] = []
    if not re.search(r"(?i)\b(?:beginner|intermediate|advanced|expert|novice|newbie)\b", m.group("occ")):
        found.append(("profile.work.occupation", phrase_value(m.group("occ")), False))
    if m.group("emp"):
        found.append(("profile.work.employer", phrase_value(m.group("emp")), False))
    return found


def _shift_at(m: re.Match[str]) -> list[Found]:
    """ "I work night shifts at the hospital"."""
    found: list[Found] = [("profile.work.schedule", m.group("when"), False)]
    if m.group("emp"):
        found.append(("profile.work.employer", phrase_value(m.group("emp")), False))
    return found


_READERS: dict[str, Reader] = {
    "work": _work,
    "work_as_said": _work_as_said,
    "work_fixed": _work_fixed,
    "work_whole": _work_whole,
    "on_call": _on_call,
    "occupation_at": _occupation_at,
    "shift_at": _shift_at,
}
WORK_EN = SPEC.pairs("work_en", _READERS)
MANAGER_EN = SPEC.searches("manager_en")


_MANAGER_ZH = SPEC.expressions["manager_zh"]
_OCCUPATION_ZH = SPEC.expressions["occupation_zh"]
_DOES_ZH = SPEC.expressions["does_zh"]
_RUNS_SHOP_ZH = SPEC.expressions["runs_shop_zh"]
_LINE_OF_WORK_ZH = SPEC.expressions["line_of_work_zh"]
_WORKS_AT_ZH = SPEC.expressions["works_at_zh"]
_AT_COMPANY_ZH = SPEC.expressions["at_company_zh"]
_STUDIES_ZH = SPEC.expressions["studies_zh"]
_NOT_WORKING_ZH = SPEC.expressions["not_working_zh"]
_SHIFT_ZH = SPEC.expressions["shift_zh"]
_WORK_WEEK_ZH = SPEC.expressions["work_week_zh"]
_REMOTE_ZH = SPEC.expressions["remote_zh"]
_REMOTE_WHEN_ZH = SPEC.expressions["remote_when_zh"]
# every statement about work in Chinese is one of these (the prefilter's look at `work_zh`)
WORK_ZH_REQUIRES = one_of(
    _MANAGER_ZH,
    _OCCUPATION_ZH,
    _DOES_ZH,
    _RUNS_SHOP_ZH,
    _LINE_OF_WORK_ZH,
    _WORKS_AT_ZH,
    _AT_COMPANY_ZH,
    _STUDIES_ZH,
    _NOT_WORKING_ZH,
    _SHIFT_ZH,
    _WORK_WEEK_ZH,
    (_REMOTE_ZH, _REMOTE_WHEN_ZH),
)


def work_zh(t: str) -> list[Found]:
    out: list[Found] = []
    m = _MANAGER_ZH.search(t)
    if m:
        out.append(("profile.work.manager", m.group(1), False))
    if "我" not in t and not re.match(r"在[" + CJK + r"]{1,8}(?:干|工作|上班)", t):
        return out
    m = _OCCUPATION_ZH.search(t)
    if m and not re.search(r"会员|学员|球迷|粉|奴|人$|过敏|新手|高手|老手|小白", m.group(1)):
        out.append(("profile.work.occupation", m.group(1), False))
    m = _DOES_ZH.search(t) or _RUNS_SHOP_ZH.search(t) or _LINE_OF_WORK_ZH.search(t)
    if m:
        out.append(("profile.work.occupation", m.group(1), False))
    m = _WORKS_AT_ZH.search(t)
    if m and not re.match(r"家|这|那", m.group(1)):
        out.append(("profile.work.employer", m.group(1), False))
    m = _AT_COMPANY_ZH.search(t)
    if m:
        out.append(("profile.work.employer", m.group(1), False))
    m = _STUDIES_ZH.search(t)
    if m:
        out.append(("profile.work.occupation", m.group(1) + "学生", False))
    m = _NOT_WORKING_ZH.search(t)
    if m:
        out.append(("profile.work.occupation", "退休" if "退休" in m.group(0) else m.group(0)[1:], False))
    m = _SHIFT_ZH.search(t) or _WORK_WEEK_ZH.search(t)
    if m:
        out.append(("profile.work.schedule", m.group(1), False))
    if _REMOTE_ZH.search(t) and _REMOTE_WHEN_ZH.search(t):
        out.append(("profile.work.remote_days", clean(re.sub(r"^我(?:基本上|现在|目前)?", "", t)), False))
    return out


# what an English statement about work or a manager cannot be without (the prefilter's looks)
WORK_EN_REQUIRES = one_of(*(pattern for pattern, _ in WORK_EN))
MANAGER_EN_REQUIRES = one_of(*MANAGER_EN)


def work_en(t: str) -> list[Found]:
    """The first pattern that matches gives the work values ("I'm a nurse at St Mary's")."""
    for r, read in WORK_EN:
        m = prefilter.search(r, t)
        if m:
            found: list[Found] = read(m)
            return found
    return []


def manager_en(t: str) -> list[Found]:
    """ "My manager is Priya", "I report to Tom Lee"."""
    for r in MANAGER_EN:
        m = prefilter.search(r, t)
        if m:
            return [("profile.work.manager", m.group("name"), False)]
    return []


def about_a_manager_zh(t: str) -> bool:
    """A Chinese sentence about the user's manager is read whole (the manager is its subject)."""
    return bool(re.search(r"领导|老板|上司|主管|经理", t))
