"""Collaboration rules: `rule.confirm_before` = the action to confirm first ("send to the client").

The patterns and word lists are in `memory/data/families/confirm.toml`; here are the readers that
turn what was said into the action."""

from __future__ import annotations

import re

from .spec import Spec
from .text import clean

SPEC = Spec("confirm")
_GERUNDS = SPEC.maps["gerunds"]
_PARTICIPLES = SPEC.maps["participles"]
_NOUN_ACTIONS = SPEC.maps["noun_actions"]
_ACTIONS_EN = frozenset(SPEC.words["actions_en"])
_OBJECT_PRONOUN = SPEC.expressions["object_pronoun"]
_GOES_OUT = SPEC.expressions["goes_out"]
_APPROVER_EN = SPEC.expressions["approver_en"]
_LINK_EN = SPEC.expressions["link_en"]
_NO_RULE_EN = SPEC.expressions["no_rule_en"]
_ACTION_SPOTS_EN = SPEC.searches("action_spots_en")
_APPROVER_ZH = SPEC.expressions["approver_zh"]
_LINK_ZH = SPEC.expressions["link_zh"]
_NO_RULE_ZH = SPEC.expressions["no_rule_zh"]
_ACTION_SPOTS_ZH = SPEC.searches("action_spots_zh")


def _verb_and_space(m: re.Match[str]) -> str:
    return m.group(1) + " "


def _action_en(raw: str) -> str | None:
    a = clean(raw)
    noun = re.match(r"(?i)^(?:any|all|every|each|the|a|an)\s+(\w+)\b(.*)$", a)
    if noun and noun.group(1).casefold() in _NOUN_ACTIONS:  # "prior to any payment"
        return (_NOUN_ACTIONS[noun.group(1).casefold()] + noun.group(2)).strip()
    out = _GOES_OUT.match(a)
    if out:  # "before it goes out to the mailing list", "before anything is published"
        verb = _PARTICIPLES.get(out.group("how").casefold(), "send")
        tail = (
            f" {out.group('prep')} {out.group('where')}" if out.group("where") else (" out" if verb == "send" else "")
        )
        return verb + tail
    a = re.sub(r"^(?:you|we|anyone|somebody|someone)\s+", "", a, flags=re.I)
    words = a.split()
    if words and words[0].casefold() in _GERUNDS:
        words[0] = _GERUNDS[words[0].casefold()]
    elif words and words[0].casefold().endswith("ing") and len(words[0]) > 5:
        w = words[0].casefold()[:-3]  # "modifying" -> "modify", "shipping" -> "ship", "changing" -> "change"
        for base in (w, w + "e", w[:-1] if len(w) > 2 and w[-1] == w[-2] else w):
            if base in _ACTIONS_EN:
                words[0] = base
                break
    a = " ".join(words)
    a = _OBJECT_PRONOUN.sub(_verb_and_space, a).strip()
    head = a.split()[0].casefold() if a else ""
    two = " ".join(a.split()[:2]).casefold()
    if head.startswith("re") and head[2:] in _ACTIONS_EN:
        return a  # "reschedule", "repost", "resend"
    if not a or (head not in _ACTIONS_EN and two not in _ACTIONS_EN):
        return None  # "let me check before you go": not an action that needs a confirmation
    return a


def _action_zh(raw: str) -> str | None:
    a = clean(raw)
    a = re.sub(r"^.*[，,:：;；]", "", a)
    a = re.sub(r"^(?:以后|今后|每次|凡是|任何|所有|在|你|都|要|帮我|替我|但凡)+", "", a)
    a = re.sub(r"(?:之|的)$", "", a)
    return a if len(a) >= 2 else None


def _action_en_in(m: re.Match[str], group: int) -> str | None:
    return _action_en(m.group(group))


def _action_zh_in(m: re.Match[str], group: int) -> str | None:
    return _action_zh(m.group(group))


def _run_past_me(m: re.Match[str], group: int) -> str | None:
    """ "Run any changes to the budget past me first": what is run past the user, as said."""
    return re.sub(r"^(?:any|all|every|each)\s+", "", clean(m.group(group)), flags=re.I) or None


def _confirm_cue_en(m: re.Match[str]) -> str | None:
    text = m.string
    if not (_APPROVER_EN.search(text) and _LINK_EN.search(text)) or _NO_RULE_EN.search(text):
        return None
    for spot in _ACTION_SPOTS_EN:
        a = spot.search(text)
        if not a:
            continue
        raw = re.sub(r"^(?:nothing|no\s+(?=\w+\s+(?:goes|go|gets|is)))", "it ", a.group(1).strip(), flags=re.I)
        action = _action_en(raw)
        if action:
            return action
    return None


def _confirm_cue_zh(m: re.Match[str]) -> str | None:
    text = m.string
    if not (_APPROVER_ZH.search(text) and _LINK_ZH.search(text)) or _NO_RULE_ZH.search(text):
        return None
    for spot in _ACTION_SPOTS_ZH:
        a = spot.search(text)
        if a:
            action = _action_zh(re.sub(r"(?:的事|的东西|的内容|的操作)$", "", a.group(1)))
            if action and not _APPROVER_ZH.search(action):
                return action
    return None


CONFIRM_BEFORE = SPEC.family(
    "confirm_before",
    {
        "action_en": _action_en_in,
        "action_zh": _action_zh_in,
        "run_past_me": _run_past_me,
        "confirm_cue_en": _confirm_cue_en,
        "confirm_cue_zh": _confirm_cue_zh,
    },
)
