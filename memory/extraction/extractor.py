"""The rule extractor: sentences in, proposals out, with the scope, linking and refusal rules."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from ..models import Cardinality, Kind, iso
from ..registry import TEMPORARY_LIFETIME, resolve
from ..secrets import redact, refusal_spans
from .analyze import analyze
from .family import Hit
from .forget import forget_command
from .markers import CORRECTION, CURRENT_ITEM, HOLD, LASTING, LEAD_CORRECTION, LEAD_NO, PROJECT, QUESTION_OK, TEMPORARY
from .model import REFUSED_NO_PROJECT, REFUSED_NO_SESSION, REFUSED_SECRET, Extraction, Proposal, Turn
from .text import TRAIL, split_sentences

RULES = (
    "forget",
    "confirm_before",
    "detail",
    "length",
    "language",
    "explanation_style",
    "order",
    "home_city",
    "timezone",
    "expertise",
    "decision",
    "priority",
    "goal",
)


class RuleExtractor:
    """Deterministic English/Chinese rules. Pure: the same turn always gives the same extraction."""

    def extract(self, turn: Turn) -> Extraction:
        redacted_text = redact(turn.text)
        if turn.role != "user":
            return Extraction(redacted_text=redacted_text)  # an assistant's answer is never evidence
        items: list[Proposal] = []
        refused: list[str] = []

        def refuse(code: str) -> None:
            if code not in refused:
                refused.append(code)

        spans = refusal_spans(turn.text)
        hold = bool(HOLD.search(turn.text))
        carry = False  # a standalone "that was wrong." applies to the next understood sentence
        for s in split_sentences(turn.text):
            if any(a < s.end and b > s.start for _, a, b in spans):
                refuse(REFUSED_SECRET)
                continue
            quote = redact(s.text)
            body = LEAD_CORRECTION.sub("", s.text).strip()
            corrected = bool(LEAD_NO.match(s.text) or CORRECTION.search(s.text))
            if s.question and not QUESTION_OK.search(body):
                carry = carry or corrected
                continue
            core = body.rstrip(TRAIL + " ").strip()
            if not core:
                carry = carry or corrected
                continue
            forget = forget_command(
                re.sub(r"^(?:(?:please|then|and|also|ok|okay)\b\s*,?\s*)+", "", core, flags=re.I), turn.at
            )
            if forget is not None:
                attribute, value = forget
                match: dict[str, Any] = {"attribute": attribute}
                if value is not None:
                    match["value"] = value
                items.append(
                    Proposal(
                        rule="forget",
                        command={"op": "forget", "tenant": turn.tenant, "user": turn.user, "match": match},
                    )
                )
                carry = False
                continue
            hits = analyze(core, turn.at)
            if not hits:
                carry = carry or corrected
                continue
            link = corrected or carry or bool(LASTING.search(core))
            carry = False
            for h in hits:
                rec = self._record(turn, core, quote, h, refuse)
                if rec is None:
                    continue
                # Only a single-valued slot has one "current record" to replace; a multi-valued one
                # (goals, confirm-before rules) simply adds, so it is never linked.
                single = resolve(h.attribute, h.kind).cardinality == Cardinality.SINGLE
                items.append(
                    Proposal(
                        record=rec,
                        rule=h.rule,
                        link_current=single and (link or h.change or (hold and h.kind == Kind.PRIORITY)),
                    )
                )
        return Extraction(items=items, refused=refused, redacted_text=redacted_text)

    @staticmethod
    def _record(turn: Turn, core: str, quote: str, h: Hit, refuse: Callable[[str], None]) -> dict[str, Any] | None:
        valid_from, valid_until = h.valid_from, h.valid_until
        lasting = bool(LASTING.search(core))
        temporary = bool(TEMPORARY.search(core)) or bool(CURRENT_ITEM.search(core))
        if h.temporal and temporary and not lasting:
            if not turn.session:
                refuse(REFUSED_NO_SESSION)  # never widened to global
                return None
            scope = f"session:{turn.session}"
            valid_from, valid_until = turn.at, turn.at + TEMPORARY_LIFETIME
        elif PROJECT.search(core) or h.project_default:
            if turn.project:
                scope = f"project:{turn.project}"
            elif h.project_default:
                scope = "global"
            else:
                refuse(REFUSED_NO_PROJECT)
                return None
        else:
            scope = "global"
        rec: dict[str, Any] = {
            "tenant": turn.tenant,
            "user": turn.user,
            "kind": h.kind.value,
            "attribute": h.attribute,
            "scope": scope,
            "value": h.value,
            "statement": quote,
            "authority": "user_explicit",
            "confidence": h.confidence,
            "observed_at": iso(turn.at),
            "evidence": [{"source_type": "conversation", "source_id": turn.source_id(), "quote": quote}],
        }
        if valid_from is not None:
            rec["valid_from"] = iso(valid_from)
        if valid_until is not None:
            rec["valid_until"] = iso(valid_until)
        return rec
