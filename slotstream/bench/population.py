"""The capacity benches' users: each a realistic mix of records, deterministic from a seed.

A user's records are drawn from `USER_MIX`, a list of shapes (what the rule extractor writes:
answer preferences, profile facts, a few multi-valued attributes, project knowledge that is valid
until a date, goals, a current focus, a session task, a rule), 25 records in all; fewer are the
first of the mix in the user's own shuffled order, more repeat it with numbered attributes.
Statements run 20-160 characters and each record has one evidence quote, the statement itself,
as the extractor keeps it. Every record has an explicit id, so a correction can name it without
the bench keeping what the load returned.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from slotstream.memory.models import iso
from slotstream.memory.validation import derive_id


@dataclass(frozen=True, slots=True)
class Shape:
    """One kind of record a user has. `attribute` may hold `{n}`: the record's number among the
    user's records of this shape. `scope`: global, project (one of the user's projects) or session.
    `valid_days`: valid_until this many days after it was said, drawn in the range."""

    kind: str
    attribute: str
    values: tuple[str, ...]
    said: tuple[str, ...]  # what the user said; `{v}` is the value
    count: int = 1
    multi: bool = False
    scope: str = "global"
    valid_days: tuple[int, int] | None = None


WORK = ("billing", "search", "login", "payments", "reporting", "mobile", "onboarding", "pricing", "backup", "api")
USER_MIX: tuple[Shape, ...] = (
    Shape(
        "preference",
        "preference.response.detail",
        ("short", "detailed", "step by step"),
        ("Please keep your answers {v}.", "I want {v} answers from now on."),
    ),
    Shape(
        "preference",
        "preference.response.format",
        ("bullet points", "tables", "plain prose"),
        ("Format answers as {v} please.",),
    ),
    Shape(
        "preference",
        "preference.language",
        ("English", "German", "French", "Spanish", "Japanese"),
        ("Answer in {v}.", "Please always reply in {v}."),
    ),
    Shape("preference", "preference.tone", ("friendly", "formal", "direct"), ("Keep the tone {v}.",)),
    Shape(
        "preference",
        "profile.home_city",
        ("Berlin", "Lisbon", "Osaka", "Toronto", "Nairobi", "Lima", "Hanoi", "Oslo"),
        ("I live in {v}.", "Actually, I moved to {v} last spring."),
    ),
    Shape("preference", "profile.timezone", ("UTC+1", "UTC-5", "UTC+9", "UTC+3"), ("My timezone is {v}.",)),
    Shape(
        "preference",
        "profile.work.role",
        ("backend engineer", "product manager", "data analyst", "designer"),
        ("I work as a {v}.",),
    ),
    Shape(
        "preference",
        "profile.likes",
        ("green tea", "jazz", "hiking", "sci-fi novels", "sushi", "board games", "cycling"),
        ("I really like {v}.", "I love {v}."),
        count=2,
        multi=True,
    ),
    Shape(
        "preference",
        "profile.hobbies",
        ("climbing", "chess", "photography", "gardening", "running"),
        ("My hobby is {v}.",),
        multi=True,
    ),
    Shape(
        "preference",
        "profile.languages",
        ("Spanish", "Portuguese", "Mandarin", "Italian"),
        ("I also speak {v}.",),
        multi=True,
    ),
    Shape(
        "knowledge",
        "knowledge.decision_{n}",
        WORK,
        ("We decided to move {v} to the new service.", "For {v} we chose the managed database."),
        count=6,
        scope="project",
        valid_days=(30, 365),
    ),
    Shape(
        "knowledge",
        "knowledge.note_{n}",
        WORK,
        ("The {v} contract renews in March.", "Note that {v} is owned by the platform team."),
        count=2,
        valid_days=(30, 365),
    ),
    Shape(
        "goal",
        "goal.plan_{n}",
        WORK,
        ("My goal this quarter is to ship the {v} redesign.", "I plan to finish the {v} migration."),
        count=2,
        multi=True,
    ),
    Shape("priority", "priority.focus", WORK, ("This week focus on the {v} work.",), scope="project"),
    Shape(
        "session_context",
        "session.task_{n}",
        WORK,
        ("Right now I'm writing the {v} test plan.",),
        scope="session",
    ),
    Shape(
        "rule",
        "rule.confirm_before",
        ("sending email", "paying invoices", "deleting files"),
        ("Always ask me before {v}.",),
        multi=True,
    ),
    Shape(
        "preference",
        "preference.budget.travel",
        ("500 euros", "1000 dollars", "300 pounds"),
        ("Keep travel under {v}.",),
    ),
)
RECORDS_PER_USER = sum(s.count for s in USER_MIX)  # 25
PROJECTS = ("apollo", "hermes", "atlas")
SESSIONS = ("s1", "s2")
# words a statement goes on with, up to the length drawn for it: what people add around a fact
CLAUSES = (
    "as I mentioned before",
    "at least for the next few months",
    "unless the team says otherwise",
    "because that worked well last time",
    "and please remember it for later",
    "which matters for the quarterly review",
    "so keep that in mind when you plan",
    "after we talked it over with the client",
)
STATEMENT_CHARS = (20, 160)
# requests of the kind an assistant sends for context
REQUESTS = (
    "what did we decide about the api latency budget",
    "draft a reply to the client about the launch schedule",
    "plan my week around the billing migration",
    "book a trip to the conference next month",
    "summarize the open decisions for the project",
    "what should I focus on today",
    "write the test plan for the payments service",
    "recommend a restaurant for dinner tonight",
)
TENANTS = 4


def tenant_of(u: int) -> str:
    return f"cap-t{u % TENANTS}"


def user_of(u: int) -> str:
    return f"u{u}"


def _statement(shape: Shape, value: str, rng: random.Random) -> str:
    text = rng.choice(shape.said).format(v=value)
    want = rng.randint(*STATEMENT_CHARS)
    while len(text) < want:
        text = f"{text[:-1]}, {rng.choice(CLAUSES)}."
    while len(text) > STATEMENT_CHARS[1]:  # cut at a clause (a head alone is always shorter)
        text = text[: text.rindex(",")] + "."
    return text


@dataclass(frozen=True, slots=True)
class Planned:
    """One record of a user's load, and what the benches need of it afterwards."""

    op_id: str
    record: dict[str, Any]
    multi: bool

    @property
    def record_id(self) -> str:
        return str(self.record["id"])


def user_records(u: int, n: int, at: datetime, seed: int = 1) -> list[Planned]:
    """User `u`'s `n` records, said at `at` (each a millisecond after the one before)."""
    rng = random.Random(seed * 1_000_003 + u)
    entries = [(shape, k) for shape in USER_MIX for k in range(shape.count)]
    rng.shuffle(entries)
    # a multi-valued shape's records take its values in turn from a place of the user's own: distinct
    first = {shape.attribute: rng.randrange(len(shape.values)) for shape in USER_MIX if shape.multi}
    tenant, user = tenant_of(u), user_of(u)
    out = []
    for i in range(n):
        shape, k = entries[i % len(entries)]
        turn = i // len(entries)  # past the mix: its shapes again, under numbered attributes
        attribute = shape.attribute.format(n=k + turn * shape.count)
        if turn and "{n}" not in shape.attribute:
            attribute = f"{attribute}_{turn}"
        if shape.multi:
            value = shape.values[(first[shape.attribute] + k) % len(shape.values)] + (f" {turn}" if turn else "")
        else:
            value = rng.choice(shape.values)
        said_at = at + timedelta(milliseconds=i)
        statement = _statement(shape, value, rng)
        op_id = f"cap:{tenant}:{user}:{i}"
        record: dict[str, Any] = {
            "id": derive_id("r_", op_id),
            "tenant": tenant,
            "user": user,
            "kind": shape.kind,
            "attribute": attribute,
            "scope": _scope(shape.scope, rng),
            "value": value,
            "statement": statement,
            "evidence": [{"source_type": "conversation", "source_id": f"turn-{user}-{i}", "quote": statement}],
        }
        if shape.valid_days:
            record["valid_until"] = iso(said_at + timedelta(days=rng.randint(*shape.valid_days)))
        out.append(Planned(op_id, record, shape.multi))
    return out


def _scope(kind: str, rng: random.Random) -> str:
    if kind == "project":
        return f"project:{rng.choice(PROJECTS)}"
    if kind == "session":
        return f"session:{rng.choice(SESSIONS)}"
    return "global"


CORRECTED_EVERY = 5  # one record in five is corrected


def corrected(planned: list[Planned]) -> Iterator[Planned]:
    """The records of a user's load that the correction pass corrects: one in five."""
    return (p for i, p in enumerate(planned) if i % CORRECTED_EVERY == CORRECTED_EVERY - 1)


def correction(p: Planned, n: int) -> dict[str, Any]:
    """A `correct` command for a planned record: a new value, in the user's words."""
    rec = p.record
    statement = f"No, that's wrong: it is {rec['value']} {n} now."
    return {
        "op": "correct",
        "tenant": rec["tenant"],
        "user": rec["user"],
        "record_id": p.record_id,
        "value": f"{rec['value']} {n}",
        "statement": statement,
        "evidence": [{"source_type": "conversation", "source_id": f"fix-{rec['user']}-{n}", "quote": statement}],
    }


def context_request(u: int, rng: random.Random) -> dict[str, Any]:
    """A realistic request for user `u`: one of their projects and sessions, an everyday text."""
    return {
        "tenant": tenant_of(u),
        "user": user_of(u),
        "project": rng.choice(PROJECTS),
        "session": rng.choice(SESSIONS),
        "text": rng.choice(REQUESTS),
        "max_items": 8,
        "max_chars": 2000,
    }
