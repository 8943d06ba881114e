"""How the prefilter reads a pattern's source (`pattern_syntax.py`)."""

from __future__ import annotations

import re

import pytest

from slotstream.memory.extraction import RuleExtractor, prefilter
from slotstream.memory.extraction.pattern_syntax import (
    ASSERT,
    ASSERT_NOT,
    AT,
    BRANCH,
    GROUPREF,
    GROUPREF_EXISTS,
    IN,
    LITERAL,
    MANY,
    MAX_REPEAT,
    MIN_REPEAT,
    POSSESSIVE_REPEAT,
    SUBPATTERN,
    PatternSyntaxError,
    parse,
)

X = re.VERBOSE.value
FOLD = re.IGNORECASE.value


def _text(items: list) -> str:  # type: ignore[type-arg]
    """The literal characters of a flat run of items."""
    return "".join(chr(av) for op, av in items if op is LITERAL)


def test_every_pattern_the_extractor_declares_is_read() -> None:
    RuleExtractor()
    prefilter.build()
    sources = {(p.pattern, p.flags) for p in prefilter._index().patterns}
    for tested in prefilter._TESTED.values():
        sources |= {(source, tested.pattern.flags) for source in tested.sources or ()}
    assert len(sources) > 1000
    unread = []
    for source, flags in sources:
        try:
            parse(source, flags)
        except PatternSyntaxError:
            unread.append(source[:80])
    assert not unread, unread


def test_verbose_mode_drops_layout_and_comments_but_keeps_escaped_spaces_and_classes() -> None:
    items = parse("a b  # a comment\n c\\ d[ e]", X)
    assert _text(items[:4]) == "abc "
    assert items[5] == (IN, [(LITERAL, ord(" ")), (LITERAL, ord("e"))])
    assert _text(parse("a b", 0)) == "a b"


def test_groups_that_neither_capture_nor_set_flags_are_spliced() -> None:
    assert _text(parse("(?:ab)c", 0)) == "abc"
    ((op, (group, add, remove, body)),) = parse("(?i:ab)", 0)
    assert (op, group, add, remove, _text(body)) == (SUBPATTERN, None, FOLD, 0, "ab")
    ((op, (group, _, _, body)),) = parse("(?P<name>ab)", 0)
    assert (op, group, _text(body)) == (SUBPATTERN, 1, "ab")
    # a repeated group repeats its items
    ((op, (least, most, body)),) = parse("(?:ab)+", 0)
    assert (op, least, most, _text(body)) == (MAX_REPEAT, 1, MANY, "ab")


def test_alternatives_and_quantifiers() -> None:
    ((op, (_, alternatives)),) = parse("at|by|in", 0)
    assert op is BRANCH and [_text(a) for a in alternatives] == ["at", "by", "in"]
    kinds = [op for op, _ in parse("a*?b{2,3}c{,4}d++e{x}", 0)]
    assert kinds[:4] == [MIN_REPEAT, MAX_REPEAT, MAX_REPEAT, POSSESSIVE_REPEAT]
    assert _text(parse("a*?b{2,3}c{,4}d++e{x}", 0)[4:]) == "e{x}"  # not a quantifier: literal braces
    assert parse("c{,4}", 0)[0][1][:2] == (0, 4)


def test_look_arounds_back_references_and_conditionals() -> None:
    items = parse(r"(?<=\ )(?<!x)(?=y)(?!z)", X)
    assert [(op, av[0]) for op, av in items] == [(ASSERT, -1), (ASSERT_NOT, -1), (ASSERT, 1), (ASSERT_NOT, 1)]
    items = parse(r"(?P<a>x)(?P=a)\1(a)?(?(2)b|c)", 0)
    assert items[1] == (GROUPREF, "a") and items[2] == (GROUPREF, 1)
    assert items[-1][0] is GROUPREF_EXISTS and _text(items[-1][1][2]) == "c"


def test_escapes_classes_and_anchors() -> None:
    items = parse(r"^\bx\u4e2d\x41\101\n\.$", 0)
    assert [op for op, _ in items][:2] == [AT, AT] and items[1][1].name == "AT_BOUNDARY"
    assert _text(items) == "x中AA\n."
    ((op, cls),) = parse(r"[^a-z\]\s\-]", 0)
    assert op is IN and [item[0].name for item in cls] == ["NEGATE", "RANGE", "LITERAL", "CATEGORY", "LITERAL"]
    assert cls[1][1] == (ord("a"), ord("z")) and cls[3][1].name == "CATEGORY_SPACE"
    ((op, cls),) = parse(r"[\b]", 0)
    assert cls == [(LITERAL, 8)]  # a backspace inside a class


@pytest.mark.parametrize("source", ["(abc", "abc)", "a**", "[abc", "(?Zx)", "ab\\", "[a\\", "(?P<a", "\\x4", "(?P=a"])
def test_what_cannot_be_read_is_an_error_and_the_prefilter_then_knows_nothing(source: str) -> None:
    with pytest.raises(PatternSyntaxError):
        parse(source, 0)
    assert prefilter._source_literals(source, 0) == ((),)  # nothing known: always tried
