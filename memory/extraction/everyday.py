"""Everyday personal memory: what a user tells an assistant about their life (docs/concepts.md).

Fourteen families, English and Chinese, each in its own module with its spec in
`memory/data/families/` (diet, allergy, likes, relatives, pets, work, routine, devices, travel,
dates, budget, accessibility, languages_spoken, hobbies). A sentence is read as *who* (the user:
"I", "my", "我"; a possessive for relatives and pets: "my wife Ana", "我老婆小美") + *a frame* (a
copula, a verb of having / keeping / liking / avoiding / using, a frequency, a limit) + *what* (a
value, from a closed vocabulary where there is one: diets, languages, seats), with negation,
hedges and tense handled around it:

- one-off past events ("I had pizza yesterday", "我昨天去了健身房") state nothing lasting;
- a negation of a closed or stated value ("I'm not vegetarian any more", "我现在吃肉了", "I don't like
  jazz anymore", "我不喜欢爵士乐了") becomes a retraction of that value (`Hit.retract`): the extractor
  emits a `retract` command with `match: {"attribute", "value"}` for a multi-valued attribute;
- other people's clauses are dropped by the extractor before most families look (`_about_user`),
  but family, pets, dates and a manager are *about* relatives, pets and colleagues: those families
  read the whole sentence, and only through the user's possessive ("my wife", "我老婆").

Here is the order the families read a sentence in, and what one family's finding rules out for a
later one (a like is not kept beside a travel preference or a diet it restates).
"""

from __future__ import annotations

import re
from datetime import datetime

from ..models import Kind
from . import prefilter
from .accessibility import ACCESS_EN_REQUIRES, ACCESS_ZH_REQUIRES, accessibility
from .allergy import ALLERGY_EN_REQUIRES, ALLERGY_ZH_REQUIRES, allergy_en, allergy_zh, reports_own_allergy_en
from .budget import BUDGET_EN_REQUIRES, BUDGET_ZH_REQUIRES, budget_en, budget_zh
from .dates import DATES_EN_REQUIRES, DATES_ZH_REQUIRES, dates
from .devices import DEVICES_EN_REQUIRES, DEVICES_ZH_REQUIRES, devices_en, devices_zh
from .diet import DIET_EN_REQUIRES, DIET_ZH_REQUIRES, diet_en, diet_zh
from .everyday_shared import CHANGE, ONE_OFF, ZH, Found
from .family import Hit
from .hobbies import HOBBIES_EN_REQUIRES, HOBBIES_ZH_REQUIRES, hobbies_en, hobbies_zh
from .languages_spoken import LANGUAGES_EN_REQUIRES, LANGUAGES_ZH_REQUIRES, languages_en, languages_zh
from .likes import LIKES_EN_REQUIRES, LIKES_ZH_REQUIRES, likes_en, likes_zh
from .pets import PETS_EN_REQUIRES, PETS_ZH_REQUIRES, pets_en, pets_zh
from .prefilter import Trigger
from .relatives import RELATIVES_EN_REQUIRES, RELATIVES_ZH_REQUIRES, relatives_en, relatives_zh
from .routine import ROUTINE_EN_REQUIRES, ROUTINE_ZH_REQUIRES, routine_en, routine_zh
from .travel import TRAVEL_EN_REQUIRES, TRAVEL_ZH_REQUIRES, travel_en, travel_zh
from .work import (
    MANAGER_EN_REQUIRES,
    WORK_EN_REQUIRES,
    WORK_ZH_REQUIRES,
    about_a_manager_zh,
    manager_en,
    work_en,
    work_zh,
)

_HOBBY_ATTRS = {"profile.hobbies", "profile.music", "profile.sports_teams"}
_TEMPORAL = ("profile.diet", "profile.likes", "profile.dislikes", "preference.travel.", "preference.budget.")


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
    about_a_manager = about_a_manager_zh(full)
    if WORK_ZH_REQUIRES in (in_full if about_a_manager else in_user):
        out += work_zh(full if about_a_manager else user)
    if ACCESS_ZH_REQUIRES in in_user:
        out += accessibility(user, True)
    if DEVICES_ZH_REQUIRES in in_user:
        out += devices_zh(user)
    if HOBBIES_ZH_REQUIRES in in_user:
        out += hobbies_zh(user)
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
        allergy_en(full) if ALLERGY_EN_REQUIRES in in_full and reports_own_allergy_en(user, full) else []
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
    if RELATIVES_EN_REQUIRES in in_full:
        out += relatives_en(full)
    if PETS_EN_REQUIRES in in_full:
        out += pets_en(full)
    if MANAGER_EN_REQUIRES in in_full:
        out += manager_en(full)
    if user:
        if WORK_EN_REQUIRES in in_user:
            out += work_en(user)
        if ACCESS_EN_REQUIRES in in_user:
            out += accessibility(user, False)
        if DEVICES_EN_REQUIRES in in_user:
            out += devices_en(user)
        if HOBBIES_EN_REQUIRES in in_user:
            out += hobbies_en(user)
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
    if ONE_OFF.search(full) and not re.search(r"(?i)every|usually|每天|每周|一般|always|一直", full):
        return []
    if ZH.search(full):
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
    HOBBIES_ZH_REQUIRES,
    LIKES_ZH_REQUIRES,
    ROUTINE_ZH_REQUIRES,
    ALLERGY_EN_REQUIRES,
    DIET_EN_REQUIRES,
    LANGUAGES_EN_REQUIRES,
    TRAVEL_EN_REQUIRES,
    BUDGET_EN_REQUIRES,
    DATES_EN_REQUIRES,
    RELATIVES_EN_REQUIRES,
    PETS_EN_REQUIRES,
    MANAGER_EN_REQUIRES,
    WORK_EN_REQUIRES,
    ACCESS_EN_REQUIRES,
    DEVICES_EN_REQUIRES,
    HOBBIES_EN_REQUIRES,
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
                change=bool(attr.startswith("profile.work.") and CHANGE.search(full)),
                retract=retract,
            )
        )
    return hits
