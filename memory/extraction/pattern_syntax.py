r"""How the prefilter reads a pattern: its source, parsed into the items a match is made of.

The rule families' patterns come from their specs as text; the prefilter needs to know what any
match of one must contain. This reads Python's regular-expression syntax (the subset the specs and
the extractor's code use, in full: literals and escapes, character classes, groups of every kind,
scoped and global flags, quantifiers, anchors, look-arounds, back-references, conditionals, and
verbose mode's whitespace and comments) into a tree of `(op, argument)` items:

- `LITERAL` (a code point), `ANY`, `IN` (a class: its items are `LITERAL`, `RANGE` (low, high),
  `CATEGORY` (\d, \s, \w and their negations), `NEGATE`), `AT` (an anchor: `\b`, `^`, `$`, …);
- `BRANCH` (None, [alternatives]), `SUBPATTERN` (group number or None, flags added, flags taken
  away, items), `ATOMIC_GROUP` (items), `GROUPREF` (a back-reference), `GROUPREF_EXISTS`
  (group, yes, no);
- `MAX_REPEAT`, `MIN_REPEAT`, `POSSESSIVE_REPEAT` (least, most, items);
- `ASSERT`, `ASSERT_NOT` (direction, items): look-arounds.

A group that neither captures nor sets flags is spliced into the sequence around it, as the engine
reads it. Only what a match contains is read here; what the engine does with it is not (a pattern
this cannot read is an error the prefilter treats as "nothing known": every such pattern is simply
tried).
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from typing import Any


class PatternSyntaxError(ValueError):
    """A source this reader cannot read (the engine compiled it: the reader is missing a form)."""


@dataclass(frozen=True, slots=True)
class Op:
    """An item's kind, by name (the prefilter looks at `name`)."""

    name: str


LITERAL, ANY, IN, AT, BRANCH, SUBPATTERN = (Op(n) for n in ("LITERAL", "ANY", "IN", "AT", "BRANCH", "SUBPATTERN"))
RANGE, CATEGORY, NEGATE = Op("RANGE"), Op("CATEGORY"), Op("NEGATE")
MAX_REPEAT, MIN_REPEAT, POSSESSIVE_REPEAT = Op("MAX_REPEAT"), Op("MIN_REPEAT"), Op("POSSESSIVE_REPEAT")
ASSERT, ASSERT_NOT, ATOMIC_GROUP = Op("ASSERT"), Op("ASSERT_NOT"), Op("ATOMIC_GROUP")
GROUPREF, GROUPREF_EXISTS = Op("GROUPREF"), Op("GROUPREF_EXISTS")
MANY = 1 << 32  # the most of an unbounded repeat

Item = tuple[Op, Any]

_CATEGORIES = {
    "d": Op("CATEGORY_DIGIT"),
    "D": Op("CATEGORY_NOT_DIGIT"),
    "s": Op("CATEGORY_SPACE"),
    "S": Op("CATEGORY_NOT_SPACE"),
    "w": Op("CATEGORY_WORD"),
    "W": Op("CATEGORY_NOT_WORD"),
}
_ANCHORS = {
    "b": Op("AT_BOUNDARY"),
    "B": Op("AT_NON_BOUNDARY"),
    "A": Op("AT_BEGINNING_STRING"),
    "Z": Op("AT_END_STRING"),
}
_BEGINNING, _END = Op("AT_BEGINNING"), Op("AT_END")
_CONTROL = {"a": 7, "f": 12, "n": 10, "r": 13, "t": 9, "v": 11}
_FLAGS = {
    "a": re.ASCII.value,
    "i": re.IGNORECASE.value,
    "L": re.LOCALE.value,
    "m": re.MULTILINE.value,
    "s": re.DOTALL.value,
    "u": re.UNICODE.value,
    "x": re.VERBOSE.value,
}
_VERBOSE = re.VERBOSE.value
_QUANTIFIER = re.compile(r"\{(\d*)(?:(,)(\d*))?\}")
_WHITESPACE = " \t\n\r\v\f"


def parse(source: str, flags: int = 0) -> list[Item]:
    """The items of `source` read with `flags` (the compiled pattern's: global inline flags in it
    included)."""
    reader = _Reader(source)
    try:
        items = reader.alternation(bool(flags & _VERBOSE))
    except (IndexError, KeyError, ValueError) as e:  # a form cut short ("\\x4", "(?P<a", "[\\")
        raise PatternSyntaxError(f"{e} in {source[:60]!r}") from e
    if reader.at < len(source):
        raise PatternSyntaxError(f"unbalanced parenthesis at {reader.at} of {source[:60]!r}")
    return items


class _Reader:
    __slots__ = ("at", "groups", "source")

    def __init__(self, source: str) -> None:
        self.source = source
        self.at = 0
        self.groups = 0

    def _peek(self) -> str:
        return self.source[self.at] if self.at < len(self.source) else ""

    def _skip_layout(self, verbose: bool) -> None:
        """Verbose mode's whitespace and comments (outside classes)."""
        if not verbose:
            return
        source = self.source
        while self.at < len(source):
            ch = source[self.at]
            if ch in _WHITESPACE:
                self.at += 1
            elif ch == "#":
                end = source.find("\n", self.at)
                self.at = len(source) if end < 0 else end + 1
            else:
                return

    def alternation(self, verbose: bool) -> list[Item]:
        """Alternatives up to a closing parenthesis or the end."""
        alternatives = [self.sequence(verbose)]
        while self._peek() == "|":
            self.at += 1
            alternatives.append(self.sequence(verbose))
        if len(alternatives) == 1:
            return alternatives[0]
        return [(BRANCH, (None, alternatives))]

    def sequence(self, verbose: bool) -> list[Item]:
        items: list[Item] = []
        source = self.source
        while True:
            self._skip_layout(verbose)
            ch = self._peek()
            if ch in ("", "|", ")"):
                return items
            start = self.at
            if ch == "(":
                spliced, verbose = self._group(verbose)
                if spliced is None:
                    continue  # a global flag or a comment: nothing to repeat
                added = spliced
            elif ch == "[":
                added = [(IN, self._class())]
            elif ch == ".":
                self.at += 1
                added = [(ANY, None)]
            elif ch == "^":
                self.at += 1
                items.append((AT, _BEGINNING))
                continue
            elif ch == "$":
                self.at += 1
                items.append((AT, _END))
                continue
            elif ch == "\\":
                added = [self._escape()]
                if added[0][0] is AT:
                    items += added
                    continue
            elif ch in "*+?" or (ch == "{" and _QUANTIFIER.match(source, self.at)):
                raise PatternSyntaxError(f"nothing to repeat at {start} of {source[:60]!r}")
            else:
                self.at += 1
                added = [(LITERAL, ord(ch))]
            repeat = self._repeat(verbose)
            if repeat is None:
                items += added
                continue
            least, most, kind = repeat
            # a repeated group that neither captures nor sets flags repeats its items
            inner = added
            if len(added) == 1 and added[0][0] is SUBPATTERN:
                group, add, remove, body = added[0][1]
                if group is None and not add and not remove:
                    inner = body
            items.append((kind, (least, most, inner)))

    def _repeat(self, verbose: bool) -> tuple[int, int, Op] | None:
        self._skip_layout(verbose)
        source = self.source
        ch = self._peek()
        if ch == "*":
            least, most = 0, MANY
            self.at += 1
        elif ch == "+":
            least, most = 1, MANY
            self.at += 1
        elif ch == "?":
            least, most = 0, 1
            self.at += 1
        elif ch == "{":
            m = _QUANTIFIER.match(source, self.at)
            if m is None:
                return None
            low, comma, high = m.groups()
            least = int(low) if low else 0
            most = (int(high) if high else MANY) if comma else least
            self.at = m.end()
        else:
            return None
        kind = MAX_REPEAT
        if self._peek() == "?":
            self.at += 1
            kind = MIN_REPEAT
        elif self._peek() == "+":
            self.at += 1
            kind = POSSESSIVE_REPEAT
        return least, most, kind

    def _group(self, verbose: bool) -> tuple[list[Item] | None, bool]:
        """A group: the items it adds to the sequence (None for a global flag or a comment), and
        the sequence's verbose mode after it (a global `(?x)` turns it on)."""
        source = self.source
        self.at += 1  # "("
        if source.startswith("?", self.at):
            self.at += 1
            ch = self._peek()
            if ch == "#":
                end = source.find(")", self.at)
                if end < 0:
                    raise PatternSyntaxError(f"unterminated comment in {source[:60]!r}")
                self.at = end + 1
                return None, verbose
            if ch == ":":
                self.at += 1
                return self._body(None, 0, 0, verbose), verbose
            if ch in "=!":
                self.at += 1
                body = self._closed(verbose)
                return [(ASSERT if ch == "=" else ASSERT_NOT, (1, body))], verbose
            if source.startswith("<=", self.at) or source.startswith("<!", self.at):
                negative = source[self.at + 1] == "!"
                self.at += 2
                body = self._closed(verbose)
                return [(ASSERT_NOT if negative else ASSERT, (-1, body))], verbose
            if ch == ">":
                self.at += 1
                return [(ATOMIC_GROUP, self._closed(verbose))], verbose
            if ch == "P" or ch == "<":
                if source.startswith("P=", self.at):
                    end = source.index(")", self.at)
                    name = source[self.at + 2 : end]
                    self.at = end + 1
                    return [(GROUPREF, name)], verbose
                self.at += 1 if ch == "<" else 2  # "(?<name>" or "(?P<name>"
                end = source.index(">", self.at)
                self.at = end + 1
                self.groups += 1
                return self._body(self.groups, 0, 0, verbose), verbose
            if ch == "(":
                end = source.index(")", self.at)
                reference = source[self.at + 1 : end]
                self.at = end + 1
                yes = self.sequence(verbose)
                no: list[Item] | None = None
                if self._peek() == "|":
                    self.at += 1
                    no = self.sequence(verbose)
                if self._peek() != ")":
                    raise PatternSyntaxError(f"unterminated conditional in {source[:60]!r}")
                self.at += 1
                return [(GROUPREF_EXISTS, (reference, yes, no))], verbose
            # flags: "(?i)" for the whole pattern, "(?i-x:...)" for a group
            add = remove = 0
            taking_away = False
            while (self._peek() and self._peek() in _FLAGS) or self._peek() == "-":
                letter = self._peek()
                self.at += 1
                if letter == "-":
                    taking_away = True
                elif taking_away:
                    remove |= _FLAGS[letter]
                else:
                    add |= _FLAGS[letter]
            if self._peek() == ")":
                self.at += 1
                return None, verbose or bool(add & _VERBOSE)  # global: already in the pattern's flags
            if self._peek() != ":":
                raise PatternSyntaxError(f"unknown group at {self.at} of {source[:60]!r}")
            self.at += 1
            inner_verbose = (verbose or bool(add & _VERBOSE)) and not remove & _VERBOSE
            body = self._closed(inner_verbose)
            return [(SUBPATTERN, (None, add, remove, body))], verbose
        self.groups += 1
        return self._body(self.groups, 0, 0, verbose), verbose

    def _closed(self, verbose: bool) -> list[Item]:
        items = self.alternation(verbose)
        if self._peek() != ")":
            raise PatternSyntaxError(f"missing ) in {self.source[:60]!r}")
        self.at += 1
        return items

    def _body(self, group: int | None, add: int, remove: int, verbose: bool) -> list[Item]:
        body = self._closed(verbose)
        if group is None and not add and not remove:
            # spliced into the sequence, unless a quantifier follows (`_repeat` unwraps it then)
            return [(SUBPATTERN, (None, 0, 0, body))] if self._quantified(verbose) else body
        return [(SUBPATTERN, (group, add, remove, body))]

    def _quantified(self, verbose: bool) -> bool:
        at = self.at
        self._skip_layout(verbose)
        ch = self._peek()
        quantified = ch in ("*", "+", "?") or (ch == "{" and _QUANTIFIER.match(self.source, self.at) is not None)
        self.at = at
        return quantified

    def _escape(self) -> Item:
        """An escape outside a class: a literal, a class shorthand, an anchor, a back-reference."""
        source = self.source
        ch = source[self.at + 1 : self.at + 2]
        if not ch:
            raise PatternSyntaxError(f"a trailing backslash in {source[:60]!r}")
        if ch in _ANCHORS:
            self.at += 2
            return (AT, _ANCHORS[ch])
        if ch in _CATEGORIES:
            self.at += 2
            return (IN, [(CATEGORY, _CATEGORIES[ch])])
        if ch.isdigit() and ch != "0":
            digits = source[self.at + 1 : self.at + 4]
            if len(digits) == 3 and all(c in "01234567" for c in digits):
                self.at += 4  # "\123": a character by its octal code
                return (LITERAL, int(digits, 8))
            number = digits[:2] if digits[1:2].isdigit() else digits[:1]
            self.at += 1 + len(number)
            return (GROUPREF, int(number))
        return (LITERAL, self._code())

    def _code(self) -> int:
        """The code point of a character escape (the backslash at `at`), or of an escaped one."""
        source = self.source
        ch = source[self.at + 1]
        if ch in _CONTROL:
            self.at += 2
            return _CONTROL[ch]
        for letter, width in (("x", 2), ("u", 4), ("U", 8)):
            if ch == letter:
                digits = source[self.at + 2 : self.at + 2 + width]
                if len(digits) != width:
                    raise PatternSyntaxError(f"incomplete escape \\{letter}{digits}")
                self.at += 2 + width
                return int(digits, 16)
        if ch == "N":
            end = source.index("}", self.at)
            name = source[self.at + 3 : end]
            self.at = end + 1
            return ord(unicodedata.lookup(name))
        if ch == "0":
            end = self.at + 2
            while end < len(source) and end < self.at + 4 and source[end] in "01234567":
                end += 1
            code = int(source[self.at + 1 : end], 8)
            self.at = end
            return code
        self.at += 2
        return ord(ch)

    def _class(self) -> list[Item]:
        source = self.source
        self.at += 1  # "["
        items: list[Item] = []
        if self._peek() == "^":
            self.at += 1
            items.append((NEGATE, None))
        first = True
        while True:
            ch = self._peek()
            if not ch:
                raise PatternSyntaxError(f"unterminated class in {source[:60]!r}")
            if ch == "]" and not first:
                self.at += 1
                return items
            first = False
            if ch == "\\":
                letter = source[self.at + 1 : self.at + 2]
                if letter in _CATEGORIES:
                    self.at += 2
                    items.append((CATEGORY, _CATEGORIES[letter]))
                    continue
                low = 8 if letter == "b" else None  # "\b" in a class is a backspace
                if low is None:
                    low = self._code()
                else:
                    self.at += 2
            else:
                self.at += 1
                low = ord(ch)
            if self._peek() == "-" and source[self.at + 1 : self.at + 2] not in ("]", ""):
                self.at += 1
                if self._peek() == "\\":
                    high = self._code()
                else:
                    high = ord(self._peek())
                    self.at += 1
                items.append((RANGE, (low, high)))
            else:
                items.append((LITERAL, low))
