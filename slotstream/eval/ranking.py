"""`slotstream eval ranking`: do everyday memories reach the requests they matter to?

The request set (`corpora/everyday/requests.jsonl`, written blind to the lexicon: docs/evaluation.md)
holds, per everyday family, requests whose good answer needs a memory of that family without
naming it ("Suggest a dinner recipe" needs the diet). One user holds one record of every everyday
family plus the records a typical user of the rule families has (answer detail, language,
timezone, home city, a goal, a current focus, a decision, a confirm-before rule). Each request is
a context lookup with a small item budget; it is a *hit* when its family's record is used.

Pure: records are built and selected in memory by the engine's own validation and selection (the
read path on Redis runs the same `select`).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from slotstream.memory.models import ContextRequest, Record
from slotstream.memory.selection import Candidate, from_record, select
from slotstream.memory.validation import build_record, parse_record

from .corpus import LANGS, Cell, corpus_path, read_jsonl, split_of

AT = datetime(2026, 9, 23, 10, 0, tzinfo=UTC)
BUDGETS = (3, 5, 8)

# family -> the record a user of that family holds: (attribute, English value, Chinese value)
FAMILY_RECORDS: dict[str, tuple[str, str, str]] = {
    "diet": ("profile.diet", "vegetarian", "吃素"),
    "allergy": ("profile.allergies", "peanuts", "花生"),
    "likes": ("profile.likes", "hiking", "爬山"),
    "family": ("profile.family", "wife: Ana", "老婆: 小美"),
    "pets": ("profile.pets", "a golden retriever called Max", "一只叫咪咪的猫"),
    "work": ("profile.work.occupation", "nurse", "护士"),
    "routine": ("profile.routine", "gym on Tuesdays and Thursdays", "每周二周四去健身房"),
    "devices": ("profile.devices", "a Mac", "华为手机"),
    "travel": ("preference.travel.seat", "aisle seat", "靠过道的座位"),
    "hobbies": ("profile.hobbies", "guitar", "弹吉他"),
    "dates": ("profile.dates", "anniversary: June 12", "结婚纪念日: 6月12日"),
    "budget": ("preference.budget.hotel", "under 150 EUR a night", "每晚500元以内"),
    "accessibility": ("profile.accessibility", "red-green colour blindness", "色盲"),
    "languages": ("profile.languages", "Spanish (intermediate)", "日语 (N2)"),
}
# what a user of the rule families also has: the everyday record must win its place among these
BACKGROUND: list[dict[str, Any]] = [
    {"attribute": "preference.response.detail", "value": "concise", "statement": "Prefers concise answers."},
    {"attribute": "preference.language", "value": "English", "statement": "Answer in English."},
    {"attribute": "profile.timezone", "value": "UTC+1", "statement": "Timezone: UTC+1."},
    {"attribute": "profile.home_city", "value": "Lisbon", "statement": "Lives in Lisbon."},
    {"kind": "goal", "attribute": "goal.main", "value": "run a marathon", "statement": "Goal: run a marathon."},
    {
        "kind": "priority",
        "attribute": "priority.focus",
        "value": "the Q3 report",
        "statement": "Focus this week: the Q3 report.",
        "valid_from": (AT - timedelta(days=1)).isoformat(),
        "valid_until": (AT + timedelta(days=5)).isoformat(),
    },
    {
        "kind": "knowledge",
        "attribute": "knowledge.decision.database",
        "value": "Postgres",
        "statement": "We chose Postgres.",
    },
    {
        "kind": "rule",
        "attribute": "rule.confirm_before",
        "value": "sending email to clients",
        "statement": "Confirm before sending email to clients.",
    },
]


@dataclass(frozen=True, slots=True)
class RankingRequest:
    index: int
    family: str
    lang: str
    text: str


@dataclass(slots=True)
class RankingResult:
    split: str
    cells: dict[tuple[int, str, str], Cell] = field(default_factory=dict)  # (budget, family, lang)
    misses: list[tuple[int, RankingRequest, list[str]]] = field(default_factory=list)

    def total(self, budget: int, lang: str | None = None) -> Cell:
        out = Cell()
        for (b, _, lg), c in self.cells.items():
            if b == budget and (lang is None or lg == lang):
                out.merge(c)
        return out


def load_requests(path: Path | None = None) -> list[RankingRequest]:
    rows = read_jsonl(path or corpus_path("everyday") / "requests.jsonl")
    return [RankingRequest(i, r["family"], r["lang"], r["text"]) for i, r in enumerate(rows)]


def _record(data: dict[str, Any], n: int) -> Record:
    wire = {"tenant": "t", "user": "u", "kind": "preference", "authority": "user_explicit", **data}
    return build_record(parse_record(wire), op_id=f"rank-{n}", at=AT - timedelta(days=3))


def user_records(lang: str) -> dict[str, Record]:
    """family -> its record, and the background records under their attributes."""
    out: dict[str, Record] = {}
    for n, (family, (attribute, en, zh)) in enumerate(FAMILY_RECORDS.items()):
        value = en if lang == "en" else zh
        out[family] = _record({"attribute": attribute, "value": value}, n)
    for n, data in enumerate(BACKGROUND, start=len(out)):
        out[data["attribute"]] = _record(data, n)
    return out


def evaluate(requests: Iterable[RankingRequest], split: str = "all", budgets: Iterable[int] = BUDGETS) -> RankingResult:
    res = RankingResult(split)
    users = {lang: user_records(lang) for lang in LANGS}
    candidates: dict[str, list[Candidate]] = {lang: [from_record(r) for r in users[lang].values()] for lang in LANGS}
    for budget in budgets:
        for req in requests:
            if split != "all" and split_of(req.index) != split:
                continue
            want = users[req.lang][req.family].id
            ctx = ContextRequest(tenant="t", user="u", text=req.text, max_items=budget, max_chars=100_000)
            out = select(ctx, candidates[req.lang], AT)
            hit = want in out.used_ids
            res.cells.setdefault((budget, req.family, req.lang), Cell()).add(hit)
            if not hit:
                res.misses.append((budget, req, [i.attribute for i in out.items]))
    return res


def report_lines(res: RankingResult, budgets: Iterable[int] = BUDGETS, verbose: bool = False) -> list[str]:
    budgets = list(budgets)
    out = [f"everyday ranking, split={res.split} (holdout: line index % 3 == 2): hit = the family's record is used", ""]
    head = "".join(f" {'en@' + str(b):>7} {'zh@' + str(b):>7}" for b in budgets)
    out.append(f"{'family':<14}{head}")
    for family in FAMILY_RECORDS:
        row = ""
        for b in budgets:
            for lang in LANGS:
                c = res.cells.get((b, family, lang), Cell())
                row += f" {100 * c.rate:6.1f}%" if c.n else "       -"
        out.append(f"{family:<14}{row}")
    row = ""
    for b in budgets:
        for lang in LANGS:
            c = res.total(b, lang)
            row += f" {100 * c.rate:6.1f}%" if c.n else "       -"
    out.append(f"{'(all)':<14}{row}")
    if verbose:
        out.append("")
        out.append("misses (dev lines only):")
        for budget, req, used in res.misses:
            if split_of(req.index) == "dev":
                out.append(f"  @{budget} [{req.family}/{req.lang} #{req.index}] {req.text} -> {', '.join(used)}")
    return out


def main(path: Path | None = None, split: str = "all", verbose: bool = False) -> int:
    res = evaluate(load_requests(path), split)
    for line in report_lines(res, verbose=verbose):
        print(line)
    return 0
