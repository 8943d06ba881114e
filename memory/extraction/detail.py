"""Answer detail: one slot, `preference.response.detail` = "concise" | "detailed".

The patterns and word lists are in `memory/data/families/detail.toml`; here is the cue reader (a
length or detail word said about the answers, in a request) and the cut of what a preference is
preferred to."""

from __future__ import annotations

import re
from datetime import datetime

from .family import Hit
from .markers import ASKING
from .prefilter import rewritten
from .spec import Spec
from .text import _negated

SPEC = Spec("detail")
_CONCISE_CUE = SPEC.expressions["concise_cue"]
_DETAILED_CUE = SPEC.expressions["detailed_cue"]
_TOO = SPEC.expressions["too"]
_ANSWER_TARGET = SPEC.expressions["answer_target"]
_YOUR_ANSWERS = SPEC.expressions["your_answers"]
_TOO_LONG = frozenset(SPEC.words["too_long"])
_TOO_SHORT = frozenset(SPEC.words["too_short"])


def _detail_cue(m: re.Match[str]) -> str | None:
    text = m.string
    too = _TOO.search(text)
    complaint = bool(too and _YOUR_ANSWERS.search(text))
    if not complaint and not (ASKING.search(text) and _ANSWER_TARGET.search(text)):
        return None
    if too:  # "your answers are too long" asks for the opposite
        word = (too.group("en") or too.group("en2") or too.group("zh") or "").casefold()
        if word in _TOO_LONG:
            return "concise"
        if word in _TOO_SHORT:
            return "detailed"
    concise = [c for c in _CONCISE_CUE.finditer(text) if not _negated(text, c)]
    detailed = [c for c in _DETAILED_CUE.finditer(text) if not _negated(text, c)]
    if concise and not detailed:
        return "concise"
    if detailed and not concise:
        return "detailed"
    return None


_FAMILY = SPEC.family("detail", {"detail_cue": _detail_cue})
_PREFERS = SPEC.expressions["prefers"]
_OVER = SPEC.expressions["over"]


class _Detail:
    rule = "detail"
    # the prefilter's look: the family's trigger, in the sentence as given (the family reads it
    # with the "over …" part cut out, gluing the rest together)
    requires = rewritten(_FAMILY.requires)

    @staticmethod
    def hits(text: str, at: datetime) -> list[Hit]:
        pref = _PREFERS.search(text)
        if pref:
            over = _OVER.search(text, pref.end())
            if over:
                text = text[: over.start()] + text[over.end() :]
        return _FAMILY.hits(text, at)


DETAIL = _Detail()
