"""What the everyday families share: the one-off past, requests, the user in English, and how a value
is cut from a phrase. The patterns are in `memory/data/families/everyday.toml`; each family's own
spec uses it (`uses = ["everyday"]`)."""

from __future__ import annotations

import re
from typing import Any

from . import prefilter
from .spec import Spec
from .text import clean

Found = tuple[str, str, bool]  # (attribute, value, retract)

SPEC = Spec("everyday")
CJK = SPEC.part("cjk")
ADV = SPEC.part("adv")
ONE_OFF = SPEC.expressions["one_off"]
REQUEST_EN = SPEC.expressions["request_en"]
REQUEST_ZH = SPEC.expressions["request_zh"]
FIRST_EN = SPEC.expressions["first_en"]
CHANGE = SPEC.expressions["change"]
ZH = SPEC.expressions["zh"]
REL_ZH = SPEC.part("rel_zh")
ME_ZH = re.compile("我")  # the "我" most Chinese families check for first (`"我" in t`)


def phrase_value(text: str) -> str:
    """A value: the phrase cleaned, cut at a trailing clause."""
    parts = re.split(
        r"(?i)\s*(?:[,;()（），；：。！!?？]|(?<!\d):|:(?!\d)|\s[-–—]\s|\b(?:but|because|since|so|which|and\s+(?:I|it|they|we))\b|"
        r"因为|所以|但是|不过|可是)",
        text,
    )
    value = clean(
        next((p for p in parts if p and p.strip() and not re.fullmatch(r"[\s,;:()（），；：。！!?？\-–—]*", p)), "")
    )
    value = re.sub(r"(?i)\s+(?:a\s+lot|so\s+much|too|as\s+well|these\s+days|lately|for\s+years|now)$", "", value)
    value = re.sub(r"^(?:the|a|an)\s+", "", value, flags=re.I)
    return value.strip()


def strip_subject_en(t: str) -> str:
    """The sentence without its opening "I (usually / always)" ("I usually fly with a carry-on only")."""
    return re.sub(r"(?i)^(?:thanks!?\s*)?(?:also,?\s*)?I\s+(?:usually\s+|always\s+)?", "", t)


def first_read(pairs: list[tuple[re.Pattern[str], Any]], text: str, attribute: str) -> list[Found]:
    """What the first of `pairs` that matches reads (a pattern and its reader): one value of
    `attribute`, or nothing."""
    for pattern, read in pairs:
        m = prefilter.search(pattern, text)
        if m:
            return [(attribute, read(m), False)]
    return []
