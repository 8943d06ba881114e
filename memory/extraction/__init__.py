"""Extraction: a conversation turn -> proposed records and commands (pure, deterministic).

`RuleExtractor` understands a fixed set of English and Chinese phrasings: one module per rule
family, run in the order of the table in `analyze.py`. It never reads a clock (time comes from the
turn's `at`), never does I/O, and for a sentence it does not understand it yields nothing rather
than a guess. An LLM extractor can plug in
behind the same `Extractor` protocol; whatever it returns goes through the same validation.

What it emits per understood sentence:
- a record proposal: a dict in the `RecordIn` wire format (authority `user_explicit`, evidence
  quoting the redacted sentence, `observed_at` = the turn's time, no `id`: the engine derives it),
  with `link_current=True` when the user explicitly corrects or changes the value ("actually …",
  "不对，…", "改成…", "I moved to …", a standalone "that was wrong." before it) or restates the
  lasting slot ("from now on …", "以后…": an explicit instruction for the slot going forward, which
  the "newer is not more authoritative" rule would otherwise park as pending_review next to the old
  value); the extraction
  processor marks it `corrects_current`, and reconciliation resolves which record that is. Only single-valued
  slots are linked: a multi-valued one (goals, confirm-before rules) has no one current record and
  simply adds;
- or a command proposal: `forget` with a `match` on attribute and, when given, value (a personal topic
  the registry has no name for, "forget what I told you about my salary", matches `profile.<topic>`
  with `family: true`; "everything you know about me" gives one family match per personal root), or
  `retract` (below).

Retractions (rule "retract"): the user says an earlier conclusion / decision / estimate / analysis /
finding no longer holds, is invalid, was based on bad data, needs redoing or was scrapped, without
giving a replacement ("that conclusion is invalid", "scrap that estimate, it needs recalculating",
"we can no longer stand behind the forecast", "那个结论作废了", "我收回之前的估算"). The proposal is the
command `{"op": "retract", "tenant", "user", "match": {...}}`:
- when the sentence quotes or states the conclusion itself ("our previous conclusion 'X' was based on
  incorrect information", "the conclusion that X turned out to be false", `之前"X"的结论是基于错误数据
  得出的`, "说X的那个结论是错的"), the match is `{"attribute": "knowledge", "family": true, "value": X}`
  (X as written) and there is no `latest`: reconciliation retracts the record holding that value, not
  whatever knowledge was observed last (which can be the corrected basis of the conclusion);
- otherwise `{"attribute": A, "family": true}` with `"latest": true`: A is
  `knowledge.decision.<topic-slug>` when the sentence names a decision topic the way the decision family
  slugs it ("the database decision no longer holds" -> `knowledge.decision.database`, "数据库的决定作废了"
  -> `knowledge.decision.数据库`), else `knowledge` (every `knowledge.*` attribute), and only the most
  recently observed live record among them is retracted.
A sentence that also gives the replacement ("…was wrong, we're going with C instead", "…，应该是B") is a
correction, not a retraction; "forget …" stays a forget; another person's analysis ("the client's
estimate was wrong", "我导师的结论错了"), a question or a hypothetical retracts nothing.

How a sentence is read (before the families): traditional characters are read as their simplified
forms, one for one (values are given back as written: "我住在臺北" keeps "臺北"); thanks for an answer
("thanks for the detailed answer", "谢谢你详细的回答") states nothing; discourse lead-ins and hedges are
dropped from its front
("Thanks! By the way, …", "Just so you know, …", "I think …", "我觉得…", "对了，…", "顺便说下，…");
a hypothetical about the user or someone else ("if I moved to Berlin…", "假如我在东京…") gives
nothing; clauses whose subject is someone else ("my friend lives in Shanghai", "Tom's goal is…",
"我哥想当飞行员") are dropped, unless the user takes them on ("我们领导喜欢结论先行，你以后也这样写")
or they report a decision at work ("my boss approved the new pricing"). Each family has its specific
patterns, then general shapes (a decision: a subject the user speaks for and a verb of choosing,
switching, dropping or agreeing in any tense, or a clause saying a choice was made — "final call: …",
"…，这个已经定下来了"; a focus: a priority noun and what it is, where the user's time or energy goes,
what comes first, nothing else matters; a goal: wanting / planning / saving / training toward something
one works toward; a level: said outright wins over one read from a duration or a description), then
(for the open-ended ones) a cue fallback that reads the family's wording wherever it
sits in a request or a first-person statement (a level word and the skill it is about; a time window
and what comes first; an approval by the user and a "before / unless" link; which of two kinds comes
first; a language named next to how to answer; a zone named in a sentence about the user's own time).

What is not tried (the prefilter, `prefilter.py`): from every family's own patterns (its table, its
trigger, the tables its code loops over, read with the regex engine's parser) an index knows the words
any match needs, and one pass over a text tells which of them it has. A family whose trigger cannot
match a sentence is not run, a pattern that cannot match is not tried, and a turn on which no family
can fire anywhere is not split into sentences at all. It never changes an extraction:
`RuleExtractor(prefilter=False)` tries everything everywhere, and the tests compare the two.

Rules it keeps (docs/concepts.md):
- temporary vs lasting: "this time / just this once / 这次 / 本次" (or wording about the current item, "this
  question", "a short answer", "这道题") gives a `session:<id>` record living
  `registry.TEMPORARY_LIFETIME`; with no session on the turn it gives nothing (never widened to
  global) and `refused` gets "temporary_without_session". "from now on / always / 以后 / 今后", or no
  marker at all, gives the lasting record (global, or `project:<id>` when the sentence says "in this
  project / 这个项目", which without a project on the turn gives nothing and
  "project_scope_without_project"). Decisions are project knowledge: `project:<id>` whenever the
  turn has a project, else global.
- secrets: a sentence with a secret in it yields nothing and `refused` gets "secret_value"; every
  quote and statement kept is redacted, and so is `Extraction.redacted_text`.
- an assistant's (or system) turn never becomes an assertion: the extraction is empty.

Attribute choices (the registry's names where it has them):
- answer detail and short/long wording -> `preference.response.detail` = "concise" | "detailed"
  (one slot, so "short" later corrected to "detailed" lands in the same place); a quantitative
  limit ("under 100 words", "三句话") -> `preference.response.length` = "3 sentences" /
  "at most 100 words".
- language -> `preference.language` = "English" | "Chinese" | "Japanese" | ...
- "example first" / "theory first" -> `preference.explanation_style`; "conclusion first" ->
  `preference.response.order`.
- home city -> `profile.home_city` (the city as written); timezone -> `profile.timezone`
  ("UTC+8", "PST", "Asia/Shanghai"; 东八区/北京时间 -> "UTC+8").
- expertise -> `profile.expertise` = beginner | intermediate | advanced | expert when no domain is
  named, `profile.expertise.<domain-slug>` (e.g. `profile.expertise.python`) when one is, so each
  domain is its own single-valued slot.
- goals -> kind goal, `goal.main` (the registry's `goal.` family is multi-valued: goals add up;
  forgetting "my goals" matches the one attribute); value = the goal phrase.
- time-boxed priorities -> `priority.focus`, valid from the turn's time until the end of the
  period: "this week / 本周 / 这周" -> Monday 00:00 UTC of the next ISO week, "today / 今天" ->
  next midnight UTC, "this month / 本月" -> the 1st of next month, "next week / 下周" and
  "tomorrow / 明天" -> that period; "for now / 目前" -> the registry's default lifetime. Priority
  proposals in a turn that puts something on hold ("put A on hold", "A 先停一下") are linked to
  the current focus.
- collaboration rules -> `rule.confirm_before` = the action ("send to the client", "发给客户").
- project decisions -> `knowledge.decision.<topic-slug>` when the sentence names a topic ("API
  design B" -> `knowledge.decision.api_design`, "接口方案采用版本 B" ->
  `knowledge.decision.接口方案`, "we chose X for the database" -> `knowledge.decision.database`),
  otherwise `knowledge.decision` (one single-valued slot: a second, unlinked decision waits for
  review rather than silently standing next to the first).
"""

from __future__ import annotations

from .extractor import RULES, RuleExtractor
from .families import FAMILIES, analyze
from .interface import (
    REFUSED_CHAT,
    REFUSED_NO_PROJECT,
    REFUSED_NO_SESSION,
    REFUSED_SECRET,
    Extraction,
    Extractor,
    Proposal,
    Turn,
)
from .text import Sentence, day_end, month_end, split_sentences, week_end

__all__ = [
    "FAMILIES",
    "REFUSED_CHAT",
    "REFUSED_NO_PROJECT",
    "REFUSED_NO_SESSION",
    "REFUSED_SECRET",
    "RULES",
    "Extraction",
    "Extractor",
    "Proposal",
    "RuleExtractor",
    "Sentence",
    "Turn",
    "analyze",
    "day_end",
    "month_end",
    "split_sentences",
    "week_end",
]
