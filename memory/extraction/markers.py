"""Markers: wording that decides scope and linking, whatever the rule family (this time / from now
on, the item at hand, this project, a correction, putting something on hold).

The patterns are in `memory/data/families/markers.toml`."""

from __future__ import annotations

from . import prefilter
from .spec import Spec

SPEC = Spec("markers")
TEMPORARY = SPEC.expressions["temporary"]
LASTING = SPEC.expressions["lasting"]
# Wording about the item at hand ("explain this question in detail", "a short answer", "这道题")
# is a current-request instruction, not a lasting preference ("请详细说说这一题").
CURRENT_ITEM = SPEC.expressions["current_item"]
PROJECT = SPEC.expressions["project"]
CORRECTION = SPEC.expressions["correction"]
LEAD_CORRECTION = SPEC.expressions["lead_correction"]
LEAD_NO = SPEC.expressions["lead_no"]
# "Put A on hold" / "A 先停一下": a priority given in the same turn replaces the current one.
HOLD = SPEC.expressions["hold"]
QUESTION_OK = SPEC.expressions["question_ok"]
# Discourse lead-ins and hedges that carry nothing to remember: stripped from the front of a sentence
# before the families look at it ("Just so you know, I live in Dublin", "我觉得我的目标是…").
LEAD_FILLER = SPEC.expressions["lead_filler"]
# A hypothetical about the user or someone else ("if I moved to Berlin, …", "假如我在东京") states nothing.
HYPOTHETICAL = SPEC.expressions["hypothetical"]
# "explain it like I'm five", "as if I were a beginner": a way of asking, not what the user is
AS_IF = SPEC.expressions["as_if"]
# A clause whose subject is someone else ("my friend lives in Shanghai", "Tom's goal is …", "我哥想当
# 飞行员") says nothing about the user: the extractor drops it before the families look.
OTHERS = SPEC.expressions["others"]
# The cue fallbacks need the user asking for something, not narrating ("I read the summary first").
ASKING = SPEC.expressions["asking"]
# A request to the assistant anywhere in a sentence ("help me", "帮我").
ASKS_THE_ASSISTANT = SPEC.expressions["asks_the_assistant"]
# What holds beyond the request it is said with ("our monthly budget", "你帮我找馆子的时候注意下").
STANDING = SPEC.expressions["standing"]

# the markers the extractor looks for in every sentence: tried only where the prefilter finds their words
prefilter.tested(TEMPORARY, LASTING, CURRENT_ITEM, PROJECT, CORRECTION, HOLD)
