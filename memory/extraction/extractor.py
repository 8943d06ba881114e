"""The rule extractor: sentences in, proposals out, with the scope, linking and refusal rules."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from ..models import Cardinality, Consequence, Kind, Sensitivity, iso
from ..registry import TEMPORARY_LIFETIME, resolve
from ..secret_spans import armed, find_secrets, redact, refusal_spans
from ..semantics.lasting_model import clearly_lasting, reads_as_chat, stated_in_other_words
from ..semantics.topics import main_area
from . import prefilter
from .everyday import EVERYDAY_REQUIRES, everyday_hits
from .families import GOAL_REQUIRES, RULE_FAMILIES, analyze
from .family import Hit
from .forget import ABOUT, FORGET_REQUIRES, forget_command
from .home import AFTER_A_MOVE_REQUIRES, HOME_AFTER_A_MOVE, MOVE_TOLD
from .interface import (
    REFUSED_CHAT,
    REFUSED_NO_PROJECT,
    REFUSED_NO_SESSION,
    REFUSED_SECRET,
    Extraction,
    Proposal,
    Turn,
)
from .markers import (
    AS_IF,
    ASKS_THE_ASSISTANT,
    CORRECTION,
    CURRENT_ITEM,
    HOLD,
    HYPOTHETICAL,
    LASTING,
    LEAD_CORRECTION,
    LEAD_FILLER,
    LEAD_NO,
    OTHERS,
    PROJECT,
    QUESTION_OK,
    STANDING,
    TEMPORARY,
)
from .open_statement import (
    STATEMENT_RULE,
    asks_about_someone,
    bare_instruction,
    continued,
    lasting_statements,
    may_state,
    momentary,
    news_of_change,
    one_off,
    passing,
    refers_to_material,
    said_of_the_moment,
    statement_hit,
    time_bound,
    turn_context,
    unworded_statements,
)
from .prefilter import Trigger
from .prefilter import build as build_prefilter
from .restatement import (
    Restatement,
    holds_now,
    may_tell_a_change,
    only_a_change,
    restatement,
    retraction,
)
from .retract import RETRACT_REQUIRES, retract_match
from .text import TRAIL, Sentence, split_sentences, to_simplified

_HOME = HOME_AFTER_A_MOVE.attribute

RULES = (
    "forget",
    "retract",
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


def _lead_stripped(text: str) -> str:
    """Without discourse lead-ins, hedges and a leading correction, repeatedly ("Thanks. Also, actually, …")."""
    for _ in range(4):
        before = text
        text = LEAD_CORRECTION.sub("", LEAD_FILLER.sub("", text)).strip()
        if text == before:
            break
    return text


_CLAUSES = re.compile(r"([,，;；:：]\s*|\s+(?:but|and\ so|so)\s+)")
# "我们领导喜欢结论先行，你以后也这样写" / "my boss likes it short, do the same for me": the user adopts it
_ADOPTS = re.compile(
    r"(?i)^(?:so\s+|and\s+)?(?:please\s+)?(?:do|write|answer|treat\s+me)\s+(?:the\s+same|that|it\s+that\s+way|likewise)"
    r"(?:\s+(?:for|with)\s+me)?|\bme\s+too\b|\bsame\s+for\s+me\b|\bso\s+do\s+I\b|"
    r"(?:你)?(?:以后|今后|对我)?(?:也|同样)(?:这样|这么|照这个|按这个|一样)|我也(?:是|一样|喜欢|要)"
)


# a decision made at work ("my boss approved the new pricing", "老板批了，…") is project knowledge
_WORK_DECISION = re.compile(
    r"(?i)^(?:my|our)\s+(?:boss|manager|lead|director|cto|ceo)\s+(?:has\s+)?(?:signed\s+off\s+on|approved|chose|picked|"
    r"decided\s+on|went\s+with|greenlit)\b|^(?:我们?的?)?(?:老板|领导|上司|经理|总监)(?:已经)?(?:批了|同意了|拍板了"
    r"|定了|决定了|点头了)"
)


# a clause with a subject of its own: the user, or the assistant addressed
_OWN_SUBJECT = re.compile(
    r"(?i)\b(?:I|I'm|I've|I'd|me|my|you|your|please|so|therefore|from\s+now\s+on|always)\b|我|你|您|请|帮|麻烦|所以|因此|以后|今后"
)


def _about_user(text: str) -> str:
    """The sentence without the clauses whose subject is someone else ("my friend lives in …"),
    unless the user takes it on ("…，你以后也这样写"). A clause without a subject of its own goes
    with the one before ("我哥要买车，预算十五万": his budget)."""
    parts = _CLAUSES.split(text)
    clauses = [parts[i].strip() for i in range(0, len(parts), 2)]
    kept: list[str] = []
    theirs = False
    for i in range(0, len(parts), 2):
        clause = parts[i].strip()
        k = i // 2
        adopted = (k + 1 < len(clauses) and bool(_ADOPTS.search(clauses[k + 1]))) or bool(_WORK_DECISION.search(clause))
        theirs = bool(OTHERS.match(clause)) or (theirs and not _OWN_SUBJECT.search(clause))
        if clause and (adopted or not theirs):
            if kept:
                kept.append(parts[i - 1] if i else "")
            kept.append(parts[i])
    return "".join(kept).strip(" ,，;；:：")


# thanks for something done ("thanks for the detailed answer", "谢谢你详细的回答"): nothing to keep
_GRATITUDE = re.compile(
    r"(?i)^(?:thanks|thank\s+you|thx|ty|cheers|much\s+appreciated)(?:\s+(?:so\s+much|a\s+lot|a\s+ton))?\s+for\b"
    r"(?!.*\b(?:from\s+now\s+on|going\s+forward|always|in\s+future|next\s+time)\b)|"
    r"^(?:谢谢|多谢|感谢)(?:你|您)(?:的|这么)?(?!.*(?:以后|今后|下次|每次|一直))[^，,。！!]*[！!。~～]*$"
)


class _AsWritten:
    """A value read from the simplified form of a sentence, given back in the characters the user wrote
    ("臺北" stays "臺北"): the two forms line up character for character."""

    __slots__ = ("norm", "orig")

    def __init__(self, norm: str, orig: str) -> None:
        self.norm, self.orig = norm, orig

    def __call__(self, value: str) -> str:
        if self.norm == self.orig:
            return value
        i = self.norm.find(value)
        return self.orig[i : i + len(value)] if i >= 0 else value


# a turn that opens with another speaker's label: a bracketed name, or a name with a role in
# parentheses, then a colon ("Update:" or "Note:" alone is the user's own heading)
QUOTED_SPEAKER = re.compile(r"^\s*(?:\[[^\]\n]{1,60}\]|[A-Z][\w .'-]{0,40}?\s*\([^)\n]{1,40}\))\s*[:：]")


# Every family `extract` runs, by what it cannot fire without (the prefilter's triggers; the rule
# families first, they are the likeliest). A turn on which none of them may fire anywhere, looked at
# as a whole before it is split into sentences and clauses, gives nothing to keep. A family added to
# `extract` is added here too.
TURN_TRIGGERS: tuple[Trigger, ...] = (
    *(requires for _, requires in RULE_FAMILIES),
    GOAL_REQUIRES,
    FORGET_REQUIRES,
    RETRACT_REQUIRES,
    *EVERYDAY_REQUIRES,
    AFTER_A_MOVE_REQUIRES,
)
_ANY_FAMILY = prefilter.Triggers(TURN_TRIGGERS, jointed=True)


def turn_may_hold(text: str) -> bool:
    """False only when no family can fire on any sentence of `text`, whatever the sentence
    becomes before the families read it (traditional characters simplified, lead-ins stripped,
    other people's clauses cut out and the rest glued together)."""
    return _ANY_FAMILY.may_fire(prefilter.seen(to_simplified(text)))


class RuleExtractor:
    """Deterministic English/Chinese rules. Pure: the same turn always gives the same extraction.

    `prefilter` (on by default) skips, on each sentence, the families and patterns the prefilter
    shows cannot match (`prefilter.py`), and a turn on which none can match is not split at all;
    the extraction is the same either way (off: every family and pattern is tried everywhere)."""

    def __init__(self, prefilter: bool = True) -> None:
        self.prefilter = prefilter
        if prefilter:
            build_prefilter()  # the index is read from every family's patterns once, up front
        # the word lists are read once, up front too: the first turn costs what every turn does
        lasting_statements("")
        restatement("")
        main_area("")
        reads_as_chat("")

    def extract(self, turn: Turn) -> Extraction:
        if self.prefilter:
            return self._extract(turn)
        with prefilter.disabled():
            return self._extract(turn)

    def _extract(self, turn: Turn) -> Extraction:
        # the secret patterns the turn can hold, looked up once: its sentences are parts of it
        patterns = armed(turn.text)
        found = find_secrets(turn.text, patterns)  # (once a turn: the redacted text and the refusals both read them)
        redacted_text = redact(turn.text, found)
        if turn.role != "user":
            return Extraction(redacted_text=redacted_text)  # an assistant's answer is never evidence
        if QUOTED_SPEAKER.match(turn.text):
            # "[Sarah (VP Operations)]: let's go with B", "David (Product Director): …": someone
            # else's words pasted into the chat, not the user's own statement
            return Extraction(redacted_text=redacted_text)
        reading = _TurnReading(turn, patterns, refusal_spans(turn.text, found))
        if not turn_may_hold(turn.text):
            # no family can use any of it: only a secret in it is still reported, and a new value
            # for something already stored ("Make that $150,000.") is still read
            for s in split_sentences(turn.text):
                if reading.has_secret(s):
                    reading.refuse(REFUSED_SECRET)
                else:
                    reading.restate(s)  # (a pasted or pretend turn restates nothing: checked on a find)
        else:
            for s in split_sentences(turn.text):
                reading.sentence(s)
        reading.open_statements()
        items = _vetted(reading.items, turn.text)
        if len(items) < len(reading.items):
            reading.refuse(REFUSED_CHAT)
        return Extraction(items=items, refused=reading.refused, redacted_text=redacted_text)

    @staticmethod
    def _record(
        turn: Turn, core: str, quote: str, h: Hit, refuse: Callable[[str], None], passing: bool = False
    ) -> dict[str, Any] | None:
        # (a statement kept in the user's words was read for what it refers to already: "make it
        # flare" is not the answer at hand)
        """`passing`: the turn speaks of the moment ("I'm exhausted today"): what it asks holds for
        the session only, unless it says otherwise ("from now on")."""
        valid_from, valid_until = h.valid_from, h.valid_until
        if valid_until is None:
            # "这周我不吃甜的", "no alcohol until Friday": it ends when the sentence says
            until = time_bound(core, turn.at)
            if until is not None:
                valid_from, valid_until = turn.at, until
        lasting = prefilter.test(LASTING, core)
        temporary = (
            passing
            or prefilter.test(TEMPORARY, core)
            or (h.rule != STATEMENT_RULE and prefilter.test(CURRENT_ITEM, core))
        )
        if h.temporal and temporary and not lasting:
            if not turn.session:
                refuse(REFUSED_NO_SESSION)  # never widened to global
                return None
            scope = f"session:{turn.session}"
            valid_from, valid_until = turn.at, turn.at + TEMPORARY_LIFETIME
        elif prefilter.test(PROJECT, core) or h.project_default:
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


# how to answer: what a turn about the moment scopes to the session
_INSTRUCTIONS = (
    "preference.response.",
    "preference.language",
    "preference.explanation_style",
    "preference.tone",
)
# the structured slots, read only in the shapes their families know (a zone, a city, a diet, a date,
# a budget): the rules decide them, not the lasting model
_STRUCTURED_SLOTS = ("profile.timezone", "profile.home_city", "profile.diet", "profile.dates", "preference.budget.")


def _new_and_lasting(p: Proposal) -> bool:
    """A record of what the user says about themself that would start a lasting memory: new, beyond
    the session, with no end of its own. (A correction or a new value for what is stored changes
    what the user already said; "this week I'm in Berlin" ends when it says. How to answer, goals,
    priorities, decisions, rules and the structured slots have rules of their own for what holds
    beyond the moment.)"""
    r = p.record
    if r is None or r.get("kind") != Kind.PREFERENCE.value:
        return False
    attribute = str(r.get("attribute", ""))
    if attribute.startswith(_INSTRUCTIONS + _STRUCTURED_SLOTS):
        return False
    spec = resolve(attribute, Kind.PREFERENCE)
    if spec.sensitivity == Sensitivity.SPECIAL or spec.consequence in (Consequence.HIGH, Consequence.CRITICAL):
        return False  # a lost allergy is worse than a false one: the model does not veto what is safety-relevant
    return not (
        p.link_current or r.get("corrects") or r.get("valid_until") or str(r.get("scope", "")).startswith("session:")
    )


_OPENING = 12  # letters: a record's words open the turn when it starts with their first ones


def _vetted(items: list[Proposal], text: str) -> list[Proposal]:
    """The rules read what a turn says; the lasting model may still read the whole turn as chat (a
    request about the task at hand, a state of the moment, someone else's habit). Then a new
    lasting record is kept only if the turn opens with its words and they read as clearly lasting
    ("I'm vegetarian btw, what should I cook tonight?"), and what a dropped one would have replaced
    stays."""
    vetted = [p for p in items if _new_and_lasting(p)]
    if not vetted or not reads_as_chat(text):
        return items
    letters = _letters(text)
    # a fact the user leads with is spared; not one inside material they pasted or set up
    dropped = [
        p
        for p in vetted
        if not (letters.startswith(_letters(_statement(p))[:_OPENING]) and clearly_lasting(_statement(p)))
    ]
    gone = {id(p) for p in dropped}
    words = {_statement(p) for p in dropped}
    return [
        p
        for p in items
        if id(p) not in gone
        and not (p.command is not None and p.rule == "replace" and p.command.get("replaced_by") in words)
    ]


def _statement(p: Proposal) -> str:
    return str((p.record or {}).get("statement") or "")


def _described(command: dict[str, Any]) -> bool:
    """A command found in the user's words (a restatement, a retraction by description): it may be
    no command at all once applied ("I'm pregnant, 14 weeks along now" finds nothing to restate),
    so the sentence is still read as a statement."""
    return command.get("op") == "restate" or (command.get("op") == "retract" and "about" in command)


def _single(record: dict[str, Any]) -> bool:
    kind = Kind(record["kind"]) if record.get("kind") else None
    return resolve(str(record["attribute"]), kind).cardinality == Cardinality.SINGLE


def _letters(text: str) -> str:
    """Text without its punctuation and spacing: a span and a family's quote of the same words
    compare equal however each was cut and joined."""
    return re.sub(r"[\W_]+", "", text.casefold())


_LEAD_WORDS = re.compile(r"^(?:(?:please|then|and|also|ok|okay)\b\s*,?\s*)+", re.I)


class _TurnReading:
    """One user turn read sentence by sentence: the proposals so far, the refusals, and what one
    sentence passes to the next (a standalone "that was wrong." applies to the next understood one)."""

    def __init__(self, turn: Turn, patterns: Any, spans: list[tuple[str, int, int]]) -> None:
        self.turn, self.patterns, self.spans = turn, patterns, spans
        self.items: list[Proposal] = []
        self.refused: list[str] = []
        self.carry = False
        self.change_said = False  # the sentence before was only a word of change ("I'm overriding that.")
        # (the markers too are tried only where the prefilter finds their words)
        self.hold = prefilter.test(HOLD, to_simplified(turn.text))
        # a turn carrying pasted material, or a role-play or hypothetical, leaves no memory; one
        # that speaks of the moment scopes its instructions to the session
        self._context: str | bool | None = False  # False: not read yet
        self._passing: bool | None = None
        self.commanding: list[str] = []  # the sentences that gave a command
        self.moved = False  # the sentence before told a move without its place

    @property
    def context(self) -> str | None:
        """What the whole turn is (`turn_context`), read when something in it would be kept: most
        turns keep nothing, and finding that out is cheaper than reading the turn whole."""
        if self._context is False:
            self._context = turn_context(self.turn.text)
        return self._context  # type: ignore[return-value]

    @property
    def passing(self) -> bool:
        # read only when a family proposes something: most turns propose nothing
        if self._passing is None:
            self._passing = passing(self.turn.text)
        return self._passing

    def refuse(self, code: str) -> None:
        if code not in self.refused:
            self.refused.append(code)

    def has_secret(self, s: Sentence) -> bool:
        return any(a < s.end and b > s.start for _, a, b in self.spans)

    def open_statements(self) -> None:
        """What the user says of themself in any phrasing, kept verbatim: each span no rule family
        took (a family's record already keeps its sentence) and that holds no secret."""
        if self.refused and REFUSED_SECRET in self.refused:
            return
        if not may_state(self.turn.text):
            self.news()
            self.in_other_words()
            return
        if self.context is not None:
            return
        taken = [_letters(str(p.record.get("statement", ""))) for p in self.items if p.record is not None]
        taken += [_letters(sentence) for sentence in self.commanding]
        for span in continued(self.turn.text, lasting_statements(self.turn.text, whole_read=True)):
            letters = _letters(span)
            if any(letters in quote or quote in letters for quote in taken if quote):
                continue
            if asks_about_someone(span, self.turn.text):
                continue
            kept = self.keep_statement(span)
            if kept is not None and holds_now(span) and not kept.get("valid_until"):
                # what holds now ends the earlier record closest to it in meaning, if one is
                command = {
                    "op": "retract",
                    "tenant": self.turn.tenant,
                    "user": self.turn.user,
                    "replaced_by": kept["statement"],
                }
                self.items.append(Proposal(rule="replace", command=command))
        self.news()
        self.in_other_words()

    def keep_statement(self, span: str) -> dict[str, Any] | None:
        """A span kept verbatim as a statement (its secrets redacted in the quote): the record, or
        None when it could not be kept (refused)."""
        hit = statement_hit(span, self.turn.at)
        quote = redact(span, find_secrets(span, self.patterns))
        rec = RuleExtractor._record(self.turn, span, quote, hit, self.refuse)
        if rec is not None:
            self.items.append(Proposal(record=rec, rule=hit.rule))
        return rec

    def in_other_words(self) -> None:
        """A turn nothing was read from, whose declarative spans the lasting model reads as lasting
        on their own with near certainty: kept verbatim as a statement (the veto still reads the
        turn whole)."""
        if self.items or self.refused:
            return
        # (most turns that keep nothing are requests and questions: no span, and nothing else read)
        spans = unworded_statements(self.turn.text)
        if not spans or reads_as_chat(self.turn.text) or self.context is not None:
            return
        for span in spans:
            if not asks_about_someone(span, self.turn.text) and stated_in_other_words(span):
                self.keep_statement(span)

    def news(self) -> None:
        """A turn nothing else was read from that tells the user's news, a change among it ("sold the
        car last week"): it replaces the earlier record closest to it in meaning,
        kept in the user's words in its place; with none, nothing is kept."""
        # (the look for a word of change first: what the whole turn is, read only then)
        if self.items or self.refused or not may_tell_a_change(self.turn.text) or self.context is not None:
            return
        told = news_of_change(self.turn.text)
        if told is None:
            return
        command = {
            "op": "retract",
            "tenant": self.turn.tenant,
            "user": self.turn.user,
            "replaced_by": redact(told, find_secrets(told, self.patterns)),
            "said_in": {"source_type": "conversation", "source_id": self.turn.source_id()},
        }
        self.items.append(Proposal(rule="replace", command=command))

    def sentence(self, s: Sentence) -> None:
        before = len(self.items)
        self._sentence(s)
        self._commanded(s, before)
        # a move told without its place: the next sentence (only) may say where the user is now
        told = MOVE_TOLD.search(to_simplified(s.text)) is not None
        homes = any(p.record is not None and p.record.get("attribute") == _HOME for p in self.items[before:])
        self.moved = told and not homes

    def _commanded(self, s: Sentence, before: int) -> None:
        # a sentence that gave a command ("I quit the gym", "forget my band") is not also kept
        # as a statement; the turn's other sentences may be
        # ("I quit the gym, I lift at home now": a retraction in the user's words may say what holds now)
        if any(p.command is not None and not _described(p.command) for p in self.items[before:]):
            self.commanding.append(s.text)

    def _sentence(self, s: Sentence) -> None:
        if self.has_secret(s):
            self.refuse(REFUSED_SECRET)
            return
        if self.context is not None:
            return
        quote = redact(s.text, find_secrets(s.text, self.patterns))
        # traditional characters read as simplified ones; values are given back as written
        text = to_simplified(s.text)
        written = _AsWritten(text, s.text)
        body = LEAD_CORRECTION.sub("", text).strip()
        corrected = bool(LEAD_NO.match(text) or prefilter.test(CORRECTION, text))
        if _GRATITUDE.match(body):
            return  # "Thanks for the detailed answer!": about an answer given, not a preference
        stripped = _lead_stripped(body)
        if s.question and not QUESTION_OK.search(stripped):
            self.carry = self.carry or corrected
            return
        core = stripped.rstrip(TRAIL + " ").strip()
        if not core or HYPOTHETICAL.match(core):
            self.carry = self.carry or corrected
            return
        if self._forget(core, written):
            return
        before = len(self.items)
        self._statements(core, quote, written, corrected)
        made = self.items[before:]
        # a family that understood the sentence has said what it changes; a restatement beside it
        # only when the sentence names a thing a record elsewhere may hold ("the priority is ...")
        if not any(p.command is not None for p in made):
            beside = sorted({str(p.record["attribute"]) for p in made if p.record is not None})
            found = self._restatement(s.text, quote, beside)
            if found is not None and found.change:
                # "the priority is market expansion now": worded as a change, so the family's
                # record replaces its slot's current value
                for p in made:
                    if p.record is not None and _single(p.record):
                        p.link_current = True
            elif (
                self.context is None
                and any(
                    p.record is not None and not _single(p.record) and str(p.record["attribute"]).startswith("profile.")
                    for p in made
                )
                and holds_now(s.text)
            ):
                # "ditched the Kindle, I'm on a Kobo now": one of several things the user has or does,
                # said as what holds now, ends the earlier record clearly closest to it in meaning (a
                # rule or a goal adds to the others)
                command = {"op": "retract", "tenant": self.turn.tenant, "user": self.turn.user, "replaced_by": quote}
                self.items.append(Proposal(rule="replace", command=command))

    def restate(self, s: Sentence) -> None:
        """A sentence no family can read: it may still restate or retract something stored."""
        before = len(self.items)
        # the sentence as the families would have read it (lead-ins and hedges off), so that the
        # prefilter never changes what is extracted
        if not s.question and self._described_retraction(
            _lead_stripped(LEAD_CORRECTION.sub("", to_simplified(s.text)).strip())
        ):
            return  # what it says now is read as any statement is
        self._restatement(s.text, redact(s.text, find_secrets(s.text, self.patterns)))
        self._commanded(s, before)

    def _described_retraction(self, sentence: str) -> bool:
        """ "I quit the gym", "在职那个我退了": a retract command naming what no longer holds in the
        user's words (found among their records when it applies)."""
        about = retraction(_LEAD_WORDS.sub("", sentence))
        if about is None or self.context is not None:
            return False
        command = {"op": "retract", "tenant": self.turn.tenant, "user": self.turn.user, "about": list(about)}
        self.items.append(Proposal(rule="retract", command=command))
        self.carry = False
        return True

    def _restatement(self, sentence: str, quote: str, beside: list[str] | None = None) -> Restatement | None:
        """A new value for something the memory may hold ("make that $150,000"): a restate
        command, its target found among the user's records when it applies."""
        carried, self.change_said = self.change_said, False
        if only_a_change(sentence):
            self.change_said = True
            return None
        found = restatement(to_simplified(sentence), carried)
        if found is None or (beside and not found.about):
            return found  # beside a family's record, only a restatement that names its thing
        if self.context is not None:
            return None  # pasted material or a role-play restates nothing of the user's
        turn = self.turn
        command: dict[str, Any] = {
            "op": "restate",
            "tenant": turn.tenant,
            "user": turn.user,
            "value": found.value,
            "about": list(found.about),
            "change": found.change,
            "statement": quote,
            "session": turn.session,
            "project": turn.project,
            "evidence": [{"source_type": "conversation", "source_id": turn.source_id(), "quote": quote}],
        }
        if found.old_value:
            command["old_value"] = found.old_value
        if beside:
            command["except_attributes"] = beside
        self.items.append(Proposal(rule="restate", command=command))
        return found

    def _forget(self, core: str, written: _AsWritten) -> bool:
        """A forget command, when the sentence asks for one."""
        # the prefilter's look at the sentence as each family reads it: a family whose trigger is
        # missing there is not run (it would give nothing)
        if not FORGET_REQUIRES.may_fire(prefilter.seen(core)):
            return False
        forget = forget_command(_LEAD_WORDS.sub("", core), self.turn.at)
        if forget is None:
            return False
        for match in forget:
            if ABOUT in match:
                # named in the user's words: the engine finds it among what is stored
                about = [written(w) for w in match[ABOUT]]
                named: dict[str, Any] = {"op": "forget", "tenant": self.turn.tenant, "user": self.turn.user}
                self.items.append(Proposal(rule="forget", command={**named, ABOUT: about}))
                continue
            if isinstance(match.get("value"), str):
                match["value"] = written(match["value"])
            command = {"op": "forget", "tenant": self.turn.tenant, "user": self.turn.user, "match": match}
            self.items.append(Proposal(rule="forget", command=command))
        self.carry = False
        return True

    def _retract(self, core: str, written: _AsWritten) -> bool:
        """ "That conclusion no longer holds": the record it names (by its value when the sentence
        gives it, else the latest live one under the attribute) leaves its slot."""
        target = retract_match(core) if core and RETRACT_REQUIRES.may_fire(prefilter.seen(core)) else None
        if target is None:
            return False
        command: dict[str, Any] = {
            "op": "retract",
            "tenant": self.turn.tenant,
            "user": self.turn.user,
            "match": target.match(),
        }
        if isinstance(command["match"].get("value"), str):
            command["match"]["value"] = written(command["match"]["value"])
        if target.latest:
            command["latest"] = True
        self.items.append(Proposal(rule="retract", command=command))
        self.carry = False
        return True

    def _statements(self, core: str, quote: str, written: _AsWritten, corrected: bool) -> None:
        full = core
        core = _about_user(AS_IF.sub("", core))
        # family, pets, dates and a manager are about other people through the user's own
        # possessive ("my wife Ana"): those families read the whole sentence
        everyday = everyday_hits(core, full, self.turn.at)
        if not core and not everyday:
            return
        if asks_about_someone(full, self.turn.text):
            # "my brother's a huge F1 fan, what should I get him?": the setting of a request about
            # someone else, nothing lasting of the user (an instruction in it is about that answer)
            return
        if self._retract(core, written):
            return
        hits = analyze(core, self.turn.at) if core else []
        if core and (self.moved or MOVE_TOLD.search(core)) and not any(h.attribute == _HOME for h in hits):
            hits += HOME_AFTER_A_MOVE.hits(core, self.turn.at)  # "we moved! we're in Bristol now"
        if any(h.attribute == "profile.languages" for h in everyday):
            # "I speak fluent Spanish" is a language the user speaks, not the one to answer in
            hits = [h for h in hits if h.attribute != "preference.language"]
        if any(h.attribute.startswith("preference.") and not h.attribute.startswith("preference.budget") for h in hits):
            # "I like detailed explanations", "我更喜欢先看例子": how to answer, not a like about one's life
            everyday = [h for h in everyday if h.attribute not in ("profile.likes", "profile.dislikes")]
        retracted = self._everyday_retractions(everyday, hits, written)
        if not hits and not retracted:
            # "I don't drink coffee anymore": what it ends goes, and what it says now is kept too
            self._described_retraction(full)
        if not hits:
            self.carry = False if retracted else self.carry or corrected
            return
        link = corrected or self.carry or prefilter.test(LASTING, core)
        self.carry = False
        # an instruction about the answer at hand holds for the session; what a sentence about the
        # moment says of the user ("I'm sitting in the dentist's waiting room") is not kept
        one_off_here = one_off(full, self.turn.text)
        material = refers_to_material(full)
        # ("I hate everything about today lol": the day, not a dislike; a priority, how to answer
        # and the structured slots have rules of their own for the moment: "today my top priority
        # is the login bug", "we moved! we're in Bristol now, got the keys yesterday")
        of_me = [
            h.kind == Kind.PREFERENCE and not h.attribute.startswith(_INSTRUCTIONS + _STRUCTURED_SLOTS) for h in hits
        ]
        of_the_moment = any(of_me) and said_of_the_moment(full)  # (read only when a hit would heed it)
        for h, said_of_me in zip(hits, of_me, strict=True):
            of_me_now = of_the_moment and said_of_me
            if of_me_now or (not h.temporal and (material or momentary(full, events=h.kind != Kind.PRIORITY))):
                continue
            if isinstance(h.value, str):
                h.value = written(h.value)
            # a turn that speaks of the moment ("I'm exhausted today, keep it short") makes an
            # instruction on how to answer hold for the session; what the user says of themself
            # ("horror games are not for me ... I can't sleep") is not made passing by it
            # an instruction on how to answer that says nothing beyond the answer at hand ("cut it
            # down to 100 words", "分步骤说明") holds for the session, unless it corrects one
            instruction = h.attribute.startswith(_INSTRUCTIONS)
            for_now = (
                one_off_here
                or (instruction and self.passing)
                or (instruction and not link and not prefilter.test(PROJECT, full) and bare_instruction(full))
                # a budget said with a request is the request's ("帮我出一份团建策划 预算两万左右"), unless it
                # says it holds beyond it ("our monthly grocery budget is $400")
                or (
                    h.attribute.startswith("preference.budget.")
                    and ASKS_THE_ASSISTANT.search(full) is not None
                    and STANDING.search(full) is None
                )
            )
            rec = RuleExtractor._record(self.turn, core, quote, h, self.refuse, for_now)
            if rec is None:
                continue
            # Only a single-valued slot has one "current record" to replace; a multi-valued one
            # (goals, confirm-before rules) simply adds, so it is never linked.
            single = resolve(h.attribute, h.kind).cardinality == Cardinality.SINGLE
            linked = single and (link or h.change or (self.hold and h.kind == Kind.PRIORITY))
            self.items.append(Proposal(record=rec, rule=h.rule, link_current=linked))

    def _everyday_retractions(self, everyday: list[Hit], hits: list[Hit], written: _AsWritten) -> bool:
        """Everyday hits join `hits`; a negated one ("I'm not vegetarian any more", "我现在吃肉了")
        becomes a retraction of the value the user negates. Whether there was one."""
        retracted = False
        for h in everyday:
            if not h.retract:
                hits.append(h)
                continue
            value = written(h.value) if isinstance(h.value, str) else h.value
            command = {
                "op": "retract",
                "tenant": self.turn.tenant,
                "user": self.turn.user,
                "match": {"attribute": h.attribute, "value": value},
            }
            self.items.append(Proposal(rule=h.rule, command=command))
            retracted = True
        return retracted
