"""Family specs: the data files the rule families read, and the loader that turns them into patterns."""

from __future__ import annotations

import importlib
import re
from pathlib import Path

import pytest

from slotstream.memory.extraction.spec import InGroup, Spec, SpecError

ROOT = Path(__file__).resolve().parents[4]
SPECS = ROOT / "memory" / "data" / "families"
MODULES = ROOT / "memory" / "extraction"
NAMES = sorted(path.stem for path in SPECS.glob("*.toml"))


def test_every_family_spec_is_read_by_its_module() -> None:
    assert len(NAMES) >= 20
    for name in NAMES:
        readers = [path for path in (MODULES / f"{name}.py", MODULES / f"{name}_shared.py") if path.exists()]
        reading = [path for path in readers if f'Spec("{name}")' in path.read_text(encoding="utf-8")]
        assert len(reading) == 1, f"{name}.toml is read by {reading or 'no module'}"
        importlib.import_module(f"slotstream.memory.extraction.{reading[0].stem}")


def _defined(text: str, section: str) -> set[str]:
    """The names a spec defines in a section: `[section]` keys, `[section.name]`, `[[section.name]]`."""
    names = set(re.findall(rf"^\[\[?{section}\.(\w+)\]\]?$", text, re.M))
    block = re.search(rf"^\[{section}\]\n(.*?)(?=^\[|\Z)", text, re.M | re.S)
    if block:
        names |= set(re.findall(r"^(\w+) = ", block.group(1), re.M))
    return names


def test_nothing_a_spec_declares_is_left_unused() -> None:
    """A word list, map, piece, expression or search nobody reads is data that silently does nothing."""
    python = "\n".join(path.read_text(encoding="utf-8") for path in MODULES.glob("*.py"))
    specs = {name: (SPECS / f"{name}.toml").read_text(encoding="utf-8") for name in NAMES}
    every_match = "\n".join(specs.values())
    unused = []
    for name, text in specs.items():
        for section in ("words", "maps", "parts", "expressions", "searches", "tables", "families"):
            for key in _defined(text, section):
                referenced = f"{{{key}}}" in every_match
                read_by_code = f'"{key}"' in python
                named_by_a_family = re.search(
                    rf'^(?:table|trigger|guard|changes|gate_expression) = "{key}"$', text, re.M
                )
                if not (referenced or read_by_code or named_by_a_family):
                    unused.append(f"{name}.toml {section}.{key}")
    assert not unused, unused


def test_a_pattern_uses_word_lists_maps_and_pieces_by_name() -> None:
    spec = Spec(
        "sample",
        """
        [words]
        diets = ["low carb", "low", "vegan"]
        [maps.units]
        para = "paragraph"
        paragraph = "paragraph"
        [parts]
        diet = '''(?P<diet>{diets})'''
        [expressions.diet_said]
        match = '''\\bI\\s+eat\\s+{diet}\\b'''
        [expressions.unit]
        match = '''\\b{units}s?\\b'''
        """,
    )
    m = spec.expressions["diet_said"].search("Honestly I eat LOW   carb mostly")
    assert m is not None and m.group("diet") == "LOW   carb"  # the longest entry; a space is any run
    assert spec.expressions["unit"].search("two paragraphs").group(0) == "paragraphs"  # type: ignore[union-attr]
    assert spec.maps["units"]["para"] == "paragraph"
    assert spec.part("diet").startswith("(?P<diet>")


def test_a_table_gives_values_templates_and_readers() -> None:
    spec = Spec(
        "sample",
        """
        [[tables.kin]]
        match = '''\\bmy\\s+(?P<rel>wife|son)\\s+(?P<name>(?-i:[A-Z]\\w+))?'''
        template = "{rel}: {name}"
        [[tables.kin]]
        match = '''(?P<n>\\d+)\\s+(kids|children)'''
        read = "counted"
        args = ["n"]
        [[tables.kin]]
        case = "sensitive"
        match = '''我有(.)个孩子'''
        template = "{1}个孩子"
        [[tables.kin]]
        match = '''\\bdon'?t\\s+be\\s+so\\s+verbose'''
        value = "concise"
        negation_in_meaning = true
        """,
    )

    def counted(m: re.Match[str], group: str) -> str:
        return f"{m.group(group)} kids"

    table = spec.table("kin", {"counted": counted})
    wife, kids, zh_kids, concise = table
    assert wife.value(wife.rx.search("my wife Ana")) == "wife: Ana"
    assert wife.value(wife.rx.search("my wife is here")) is None  # a group that did not take part: no value
    assert kids.value(kids.rx.search("we have 3 children")) == "3 kids"
    assert zh_kids.value(zh_kids.rx.search("我有两个孩子")) == "两个孩子"
    assert zh_kids.rx.search("我有两个孩子") and not zh_kids.rx.flags & re.IGNORECASE
    assert concise.value == "concise" and concise.neg_ok


def test_searches_give_patterns_pairs_and_tagged_values() -> None:
    spec = Spec(
        "sample",
        """
        [[searches.levels]]
        value = "beginner"
        match = '''\\bnewbie\\b'''
        [[searches.levels]]
        value = "expert"
        match = '''\\bguru\\b'''
        [[searches.seats]]
        match = '''\\baisle\\b'''
        value = "preference.travel.seat"
        [[searches.seats]]
        match = '''\\bwindow\\b'''
        [[searches.shapes]]
        value = "a"
        match = '''{a}\\s+first'''
        """,
    )
    assert [value for value, _ in spec.tagged("levels")] == ["beginner", "expert"]
    (aisle, seat), (window, nothing) = spec.pairs("seats", {})
    assert aisle.search("AISLE please") and seat == "preference.travel.seat"
    assert window.search("window") and nothing is None
    ((_, shape),) = spec.tagged("shapes", slots={"a": "(?P<a>examples|theory)"})
    assert shape.search("theory first").group("a") == "theory"  # type: ignore[union-attr]
    with pytest.raises(SpecError, match="every entry gives a value"):
        spec.tagged("seats")


def test_a_family_is_built_from_its_table_and_expressions() -> None:
    spec = Spec(
        "sample",
        """
        [expressions.move]
        match = '''\\bmoved\\b'''
        [families.home]
        rule = "home_city"
        kind = "preference"
        attribute = "profile.home_city"
        table = "home"
        changes = "move"
        confidence = 0.8
        [[tables.home]]
        case = "sensitive"
        match = '''(?i:\\bI\\s+moved\\s+to\\s+)([A-Z]\\w+)'''
        read = "city"
        args = [1]
        """,
    )
    family = spec.family("home", {"city": InGroup(str.strip)})
    (hit,) = family.hits("I moved to Lisbon", at=None)  # type: ignore[arg-type]
    assert (hit.attribute, hit.value, hit.change, hit.confidence) == ("profile.home_city", "Lisbon", True, 0.8)
    assert family.hits("I moved to lisbon", at=None) == []  # type: ignore[arg-type]


def test_in_group_reads_the_first_group_that_took_part() -> None:
    read = InGroup(str.upper)
    m = re.match(r"(?P<a>x)?(?P<b>y)", "y")
    assert m is not None
    assert read(m, "a", "b") == "Y"
    assert read(re.match(r"(?P<a>x)", "x"), "a") == "X"  # type: ignore[arg-type]


def test_a_spec_uses_another_specs_pieces() -> None:
    spec = Spec("sample", "uses = [\"everyday\"]\n[expressions.me]\nmatch = '''I{adv}\\s+run'''")
    assert spec.expressions["me"].search("I really just run")


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("[expressions.x]\nmatch = '''{nowhere}'''", "no word list or piece named nowhere"),
        ("[colours]\nred = 1", "unknown sections"),
        ("[parts]\nloop = '''a{loop}'''\n[expressions.x]\nmatch = '''{loop}'''", "uses itself"),
        ("[expressions.x]\nmatch = '''(unclosed'''", "expressions.x: missing \\)"),
        ("[expressions.x]\ncase = 'upper'\nmatch = 'a'", "case is 'any' or 'sensitive'"),
        ("[expressions.x]\nnot_a_match = 'a'", "no match"),
        ("[[tables.t]]\nmatch = 'a'\nvalue = 'x'\ntemplate = 'y'", "one of value, read or template"),
        ("[[tables.t]]\nmatch = 'a'\nread = 'nobody'", "no reader named nobody"),
        ("[[tables.t]]\nmatch = 'a'\nvalue = 'x'\ncolour = 'red'", "unknown keys"),
        ("[families.f]\nrule = 'r'\nkind = 'mood'\nattribute = 'a'\ntable = 't'", "kind 'mood'"),
        ("[families.f]\nrule = 'r'\nkind = 'rule'\nattribute = 'a'\ntable = 't'\nguard = 'g'", "no table t"),
        ("not toml = = =", "sample.toml"),
    ],
)
def test_a_spec_that_cannot_be_read_says_where_and_why(text: str, reason: str) -> None:
    with pytest.raises(SpecError, match=re.escape(reason) if "\\" not in reason else reason):
        spec = Spec("sample", text)
        if "[families" in text:
            spec.family("f", {})
        spec.table("t", {})
