"""`slotstream eval phrasings` and `slotstream eval everyday`: how much of a blind-written corpus of
statements the rule extractor keeps, per rule family and language, and how often it proposes
anything for ordinary chat.

A corpus (`slotstream/eval/corpora/phrasings`, `.../everyday`) has two files:
- the statements (`rule_families.jsonl` in the phrasing corpus, `statements.jsonl` in the everyday
  one): `{"family", "lang", "text", "value"?}`, statements a rule family should keep;
- `ordinary_chat.jsonl`: `{"lang", "text"}`, sentences that state nothing to remember.

Each line runs through `RuleExtractor` as a user turn. A family line is *kept* when the extraction
holds a proposal of that family (a record with the family's attribute, or for forget/retract a
command with that op) and, for the families whose lines carry a `value` we check, the same value.
An ordinary-chat line is a *false positive* when the extraction proposes anything at all.

Splits (`corpus.split_of`): lines whose 0-based index in their file is 2 mod 3 are the holdout, the
rest dev; the report prints no text of a holdout line unless asked (`--show-holdout`). The fresh
corpora (`phrasings_fresh`, `everyday_fresh`), written later by other authors, are the check that a
figure holds on sentences nobody tuned against.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

from slotstream.memory.extraction import Extraction, RuleExtractor, Turn

from .corpus import LANGS, Cell, check_split, corpus_path, fraction, pct, read_jsonl, split_of

FAMILY_FILE = "rule_families.jsonl"
CHAT_FILE = "ordinary_chat.jsonl"
AT = datetime(2026, 9, 23, 10, 0, tzinfo=UTC)  # a Wednesday; every line is a turn at this time

RECALL_TARGET = 0.90
FP_TARGET = 0.02

# family -> (attribute, prefix): with prefix, `attribute.<anything>` counts as well
RECORD_FAMILIES: dict[str, tuple[str, bool]] = {
    "detail": ("preference.response.detail", False),
    "length": ("preference.response.length", False),
    "language": ("preference.language", False),
    "explanation_style": ("preference.explanation_style", False),
    "order": ("preference.response.order", False),
    "home_city": ("profile.home_city", False),
    "timezone": ("profile.timezone", False),
    "expertise": ("profile.expertise", True),
    "decision": ("knowledge.decision", True),
    "priority": ("priority.focus", False),
    "goal": ("goal.main", True),
    "confirm_before": ("rule.confirm_before", False),
}
COMMAND_FAMILIES = ("forget", "retract")  # the family is the command's op
FAMILIES: tuple[str, ...] = (*RECORD_FAMILIES, *COMMAND_FAMILIES)
VALUE_CHECKED = frozenset({"detail", "language", "explanation_style", "expertise"})

_EXTRACTOR = RuleExtractor()


@dataclass(frozen=True)
class CorpusSpec:
    """What makes a corpus measurable by this module: its files and its family table.

    `records` maps a family to the attributes that count for it (`(attribute, prefix)`: with prefix,
    `attribute.<anything>` counts as well); `commands` are families whose proposal is a command with
    that op; `value_checked` families must also give the line's `value`; `negative` maps a family to
    the attributes that count instead for its lines with `polarity: negative`."""

    name: str
    corpus: str  # the shipped corpus's name (`corpus.corpus_path`)
    family_file: str
    chat_file: str
    records: dict[str, tuple[tuple[str, bool], ...]]
    commands: tuple[str, ...] = ()
    value_checked: frozenset[str] = frozenset()
    negative: dict[str, tuple[tuple[str, bool], ...]] = field(default_factory=dict)

    @property
    def families(self) -> tuple[str, ...]:
        return (*self.records, *self.commands)


def _matches(attribute: str, attrs: tuple[tuple[str, bool], ...]) -> bool:
    return any(attribute == a or (prefix and attribute.startswith(a + ".")) for a, prefix in attrs)


PHRASINGS = CorpusSpec(
    "phrasing corpus",
    "phrasings",
    FAMILY_FILE,
    CHAT_FILE,
    {family: (spec,) for family, spec in RECORD_FAMILIES.items()},
    COMMAND_FAMILIES,
    VALUE_CHECKED,
)


@dataclass(frozen=True, slots=True)
class CorpusLine:
    index: int  # 0-based line index within its file
    lang: str
    text: str
    family: str | None = None  # None: an ordinary-chat line
    value: str | None = None
    polarity: str | None = None  # "negative": a dislike (everyday likes lines)

    @property
    def split(self) -> str:
        return split_of(self.index)


def in_split(line: CorpusLine, split: str) -> bool:
    return split == "all" or line.split == split


def load_corpus(corpus: Path | None = None, spec: CorpusSpec = PHRASINGS) -> tuple[list[CorpusLine], list[CorpusLine]]:
    """(family lines, ordinary-chat lines), every split, in file order."""
    corpus = corpus or corpus_path(spec.corpus)
    fam = [
        CorpusLine(i, d["lang"], d["text"], d["family"], d.get("value"), d.get("polarity"))
        for i, d in enumerate(read_jsonl(corpus / spec.family_file))
    ]
    chat = [CorpusLine(i, d["lang"], d["text"]) for i, d in enumerate(read_jsonl(corpus / spec.chat_file))]
    return fam, chat


def extract(text: str) -> Extraction:
    """One corpus line as a user turn (fixed tenant, user, session, project and time)."""
    turn = Turn(tenant="t", user="u", session="s1", project="p1", role="user", text=text, at=AT)
    return _EXTRACTOR.extract(turn)


def _attribute_family(attribute: str, spec: CorpusSpec = PHRASINGS) -> str | None:
    for family, attrs in spec.records.items():
        if _matches(attribute, attrs):
            return family
    for family, attrs in spec.negative.items():
        if _matches(attribute, attrs):
            return family
    return None


def families_fired(extraction: Extraction, spec: CorpusSpec = PHRASINGS) -> set[str]:
    """The families the extraction holds a proposal of (records by attribute, commands by op)."""
    out: set[str] = set()
    for p in extraction.items:
        if p.record is not None:
            family = _attribute_family(str(p.record.get("attribute", "")), spec)
            out.add(family or p.rule or "?")
        elif p.command is not None:
            out.add(str(p.command.get("op", "?")))
    return out


def kept(
    family: str,
    value: str | None,
    extraction: Extraction,
    spec: CorpusSpec = PHRASINGS,
    polarity: str | None = None,
) -> bool:
    """Whether the extraction keeps a statement of `family` (with `value`, where it is checked)."""
    if family in spec.commands:
        return any(p.command is not None and p.command.get("op") == family for p in extraction.items)
    attrs = spec.records[family]
    if polarity == "negative" and family in spec.negative:
        attrs = spec.negative[family]
    for p in extraction.items:
        if p.record is None:
            continue
        if not _matches(str(p.record.get("attribute", "")), attrs):
            continue
        checked = family in spec.value_checked and value is not None
        if checked and str(p.record.get("value", "")).casefold() != str(value).casefold():
            continue
        return True
    return False


def miss_kind(family: str, extraction: Extraction, spec: CorpusSpec = PHRASINGS) -> str:
    """Why a family line was missed, in aggregate terms: nothing proposed, another family, or the
    family with another value (a language name or level the line does not give)."""
    fired = families_fired(extraction, spec)
    if not fired:
        return "nothing"
    if family in fired:
        return "other value"
    return "other family"


def describe(extraction: Extraction) -> str:
    """A short account of what the extractor proposed, for -v."""
    parts = []
    for p in extraction.items:
        if p.record is not None:
            parts.append(f"{p.record['attribute']}={p.record['value']!r}")
        elif p.command is not None:
            parts.append(f"{p.command.get('op')}({p.command.get('match')})")
    return "; ".join(parts) or "nothing"


@dataclass
class Result:
    split: str
    spec: CorpusSpec = PHRASINGS
    recall: dict[tuple[str, str], Cell] = field(default_factory=dict)  # (family, lang)
    fp: dict[str, Cell] = field(default_factory=dict)  # lang and "all"
    fired: dict[str, Cell] = field(default_factory=dict)  # family -> chat lines it fired on
    misses: list[tuple[CorpusLine, Extraction]] = field(default_factory=list)
    false_positives: list[tuple[CorpusLine, Extraction]] = field(default_factory=list)

    def recall_ok(self) -> bool:
        return all(c.rate >= RECALL_TARGET for c in self.recall.values() if c.n)

    def fp_ok(self) -> bool:
        return all(c.rate <= FP_TARGET for c in self.fp.values() if c.n)

    def targets_met(self) -> bool:
        return self.recall_ok() and self.fp_ok()


def evaluate(
    family_lines: Iterable[CorpusLine],
    chat_lines: Iterable[CorpusLine],
    split: str = "all",
    spec: CorpusSpec = PHRASINGS,
) -> Result:
    """Recall per (family, lang) and the false-positive rates over the lines of `split`."""
    res = Result(split, spec)
    for fam in spec.families:
        for lang in LANGS:
            res.recall[(fam, lang)] = Cell()
    for line in family_lines:
        if not in_split(line, split):
            continue
        assert line.family is not None
        ex = extract(line.text)
        hit = kept(line.family, line.value, ex, spec, line.polarity)
        res.recall.setdefault((line.family, line.lang), Cell()).add(hit)
        if not hit:
            res.misses.append((line, ex))
    for key in ("all", *LANGS):
        res.fp[key] = Cell()
    for fam in spec.families:
        res.fired[fam] = Cell()
    for line in chat_lines:
        if not in_split(line, split):
            continue
        ex = extract(line.text)
        fired = families_fired(ex, spec)
        res.fp["all"].add(bool(ex.items))
        res.fp.setdefault(line.lang, Cell()).add(bool(ex.items))
        for fam in res.fired:
            res.fired[fam].add(fam in fired)
        if ex.items:
            res.false_positives.append((line, ex))
    return res


def report_lines(res: Result, *, verbose: bool = False, show_holdout: bool = False) -> list[str]:
    """The printed report. Texts of holdout lines appear only with `show_holdout` (asked explicitly),
    whatever `verbose` says."""
    out = [f"{res.spec.name}, split={res.split} (holdout: line index % 3 == 2)", ""]
    out.append(f"{'family':<18} {'en n':>5} {'en recall':>10} {'zh n':>5} {'zh recall':>10} {'chat FP':>8}")
    for fam in res.spec.families:
        en, zh_ = res.recall[(fam, "en")], res.recall[(fam, "zh")]
        out.append(f"{fam:<18} {en.n:>5} {pct(en):>10} {zh_.n:>5} {pct(zh_):>10} {pct(res.fired[fam]):>8}")
    tot = {lang: Cell() for lang in LANGS}
    for (_, lang), c in res.recall.items():
        tot.setdefault(lang, Cell())
        tot[lang].n += c.n
        tot[lang].hits += c.hits
    out.append(f"{'(all families)':<18} {tot['en'].n:>5} {pct(tot['en']):>10} {tot['zh'].n:>5} {pct(tot['zh']):>10}")
    out.append("")
    fp = res.fp
    out.append(
        "ordinary chat, false positives (any proposal): " + ", ".join(f"{k} {fraction(fp[k])}" for k in ("all", *LANGS))
    )
    if res.misses:
        kinds: dict[str, int] = {}
        for line, ex in res.misses:
            k = miss_kind(line.family or "", ex, res.spec)
            kinds[k] = kinds.get(k, 0) + 1
        out.append(
            f"misses by kind ({len(res.misses)}): "
            + ", ".join(f"{k} {kinds[k]}" for k in ("nothing", "other family", "other value") if k in kinds)
        )
    if verbose or show_holdout:
        splits = ("dev", "holdout") if show_holdout else ("dev",)
        shown_misses = [(line, ex) for line, ex in res.misses if line.split in splits]
        shown_fps = [(line, ex) for line, ex in res.false_positives if line.split in splits]
        which = "all lines" if show_holdout else "dev lines only"
        out.append("")
        out.append(f"missed ({which}; {len(res.misses) - len(shown_misses)} holdout misses not shown):")
        for line, ex in shown_misses:
            want = f" value={line.value!r}" if line.value is not None else ""
            out.append(f"  [{line.family}/{line.lang} #{line.index} {line.split}]{want} {line.text}  -> {describe(ex)}")
        out.append(f"false positives ({which}; {len(res.false_positives) - len(shown_fps)} holdout ones not shown):")
        for line, ex in shown_fps:
            out.append(f"  [chat/{line.lang} #{line.index} {line.split}] {line.text}  -> {describe(ex)}")
    out.append("")
    failing = [f"{f}/{lang}" for (f, lang), c in sorted(res.recall.items()) if c.n and c.rate < RECALL_TARGET]
    fp_bad = [k for k, c in fp.items() if c.n and c.rate > FP_TARGET]
    verdict = "MET" if res.targets_met() else "NOT MET"
    detail = []
    if failing:
        detail.append("recall below 90%: " + ", ".join(failing))
    if fp_bad:
        detail.append("FP above 2%: " + ", ".join(fp_bad))
    out.append(
        f"targets (recall >= 90% per family per language, FP <= 2% overall and per language): {verdict}"
        + (f" ({'; '.join(detail)})" if detail else "")
    )
    return out


def main(corpus: Path | None = None, split: str = "all", verbose: bool = False, show_holdout: bool = False) -> int:
    check_split(split)
    fam, chat = load_corpus(corpus)
    res = evaluate(fam, chat, split)
    for line in report_lines(res, verbose=verbose, show_holdout=show_holdout):
        print(line)
    return 0


# ---------------------------------------------------------------------------------------------------
# The everyday corpus (docs/evaluation.md): what a user tells an assistant about
# their life. Same counting, its own family table: a line is kept when a record's attribute belongs to
# the family's attribute set (a `likes` line with polarity negative counts `profile.dislikes`).

EVERYDAY = CorpusSpec(
    "everyday corpus",
    "everyday",
    "statements.jsonl",
    "ordinary_chat.jsonl",
    {
        "diet": (("profile.diet", True),),
        "allergy": (("profile.allergies", False), ("profile.intolerances", False)),
        "likes": (("profile.likes", False),),
        "family": (("profile.family", False),),
        "pets": (("profile.pets", False),),
        "work": (("profile.work", True),),
        "routine": (("profile.routine", False),),
        "devices": (("profile.devices", False),),
        "travel": (("preference.travel", True), ("profile.travel_fears", False)),
        "hobbies": (("profile.hobbies", False), ("profile.sports_teams", False), ("profile.music", False)),
        "dates": (("profile.dates", False),),
        "budget": (("preference.budget", True),),
        "accessibility": (("profile.accessibility", False),),
        "languages": (("profile.languages", False),),
    },
    negative={"likes": (("profile.dislikes", False),)},
)


def everyday_fp_on(chat_lines: Iterable[CorpusLine], split: str = "all") -> tuple[Cell, dict[str, Cell]]:
    """How often the everyday families fire on another corpus's ordinary chat: (any of them, per lang)."""
    total = Cell()
    per_lang: dict[str, Cell] = {lang: Cell() for lang in LANGS}
    for line in chat_lines:
        if not in_split(line, split):
            continue
        fired = families_fired(extract(line.text), EVERYDAY) & set(EVERYDAY.families)
        total.add(bool(fired))
        per_lang.setdefault(line.lang, Cell()).add(bool(fired))
    return total, per_lang


def main_everyday(corpus: Path | None = None, split: str = "all", verbose: bool = False) -> int:
    """`slotstream eval everyday`: the everyday table, then the new families on the phrasing chat."""
    check_split(split)
    fam, chat = load_corpus(corpus, EVERYDAY)
    res = evaluate(fam, chat, split, EVERYDAY)
    for line in report_lines(res, verbose=verbose):
        print(line)
    _, phrasing_chat = load_corpus(None, PHRASINGS)
    total, per_lang = everyday_fp_on(phrasing_chat, split)
    print(
        "everyday families on the phrasing corpus's ordinary chat: "
        + ", ".join(f"{k} {fraction(c)}" for k, c in (("all", total), *per_lang.items()))
    )
    return 0
