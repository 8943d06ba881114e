r"""The prefilter: which rule families, and which of their patterns, can match a text at all.

Nothing here is a second list of words. Every pattern a family declares (its spec's tables,
expressions and searches, its trigger, the tables its code loops over) is read from its source
(`pattern_syntax.py`: the word lists and pieces a spec names are in it by then), and from that
comes what any match must contain: alternatives, each sets of literal strings of which the match
has one string each (`\bI\s+live\s+in\b`: "i", "live" and "in", as words). An index over all
those strings (Aho–Corasick) then says, in one pass over a text, which sets it has: a pattern the
text cannot hold is not tried, and a family whose trigger it cannot hold is not run. Adding a
phrasing to a family's table adds its words to the index by itself.

The look is exact in one direction only: when it says a pattern cannot match, the pattern cannot
match, so the extractor's results never change; when it says it may, the pattern is tried as
before. Case is read the way the engine reads it (a pattern matched as written is looked for as
written; a character the engine's case folding could equate with a letter of the index in a way
lower case does not makes a text hold everything), and word boundaries as `\b` reads them (a word
next to a character outside words, `\s+it\s+is`, has one there as well: "it" is not in "write").

A family's trigger names everything it cannot fire without: the words it checks first and one of
its patterns (with a pattern's gate, and for a cue or fallback the words that one needs), so that a
turn of chit-chat with a trigger word but nothing a pattern could read is dropped whole. In a
trigger, a pattern only tested is looked at by its alternatives; a quick look reads it whole.

- `required_literals(pattern)`: what any match of a pattern contains.
- `indexed(...)`, `tested(...)`: patterns declared to the index (a tested one is only searched for
  a yes or no, so it is looked at alternative by alternative); `build()` reads them all.
- `seen(text)`: what the index finds in a text; `may_match`, `search`, `finditer`, `test`: a
  pattern tried only where it may match; `Table`: which of a list of patterns may match.
- `Trigger` (`one_of`, `all_of`, `rewritten`): what a family cannot fire without; `Triggers`:
  several families' triggers looked at together (`firing`).
- `disabled()`: nothing is looked at, every pattern is tried everywhere (the reference).
"""

from __future__ import annotations

import itertools
import re
from collections import deque
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from functools import cache, lru_cache
from typing import Any

from . import pattern_syntax
from .pattern_syntax import PatternSyntaxError

_EXACT_MAX = 64  # a group of fixed alternatives is kept as strings up to this many combinations
_CLASS_MAX = 8  # a character class is a set of literals up to this many characters
# Where the extractor (or a family) glues pieces of a sentence together, the piece after the joint
# starts with one of these marks, or with " but ", " and so ", " so " ("A, B; C" without "B" is
# "A; C"; the extractor's clause separators, tests/unit/memory/extraction/test_prefilter.py): a
# literal seen across such a joint was not in the original text, but its part before the joint was.
JOINTS = ",，;；:：."
# whitespace that may start a joint: what follows it, as far as the literal goes, may be a separator
_JOINT_WORDS = re.compile(
    r"\s+(?:$|b(?:$|u(?:$|t(?:$|\s)))|s(?:$|o(?:$|\s))|a(?:$|n(?:$|d(?:$|\s+(?:$|s(?:$|o(?:$|\s)))))))"
)


Literals = frozenset[str]
Clauses = tuple[Literals, ...]  # every match has a string of each set
Options = tuple[Clauses, ...]  # every match is one of these (an empty one: nothing is known)

_OPTIONS_MAX = 32  # alternatives kept apart up to this many; beyond, they are summed up in one
_NOTHING: Options = ((),)
# A word boundary, as a character: the looked-at text has one wherever `\b` would match, and a
# literal has one wherever its own characters make a boundary and where its pattern says `\b`
# ("\bhe\b" is not in "the").
BOUNDARY = "\x00"
_BOUNDARIES = re.compile(r"\b")
# Before a letter of a pattern matched case-insensitively (the analysis' own mark, gone from the
# strings it gives): a literal all of whose letters are matched as written is looked for as written
# ("ET", a zone, is not in "detail"); any other one in lower case.
_FOLDED = "\x02"
# At an end of a literal: the pattern has a character there that is never part of a word (`\s+`):
# a boundary, when the literal's own character at that end is part of one ("\s+it\s+is" is not in
# "write this").
_NONWORD = "\x03"
_MARKS = str.maketrans("", "", BOUNDARY + _FOLDED + _NONWORD)


class _Node:
    """What a part of a pattern matches: `exact`, the strings it matches when they are few (None:
    not known), and `options`, what a match needs besides one of those strings: alternatives, each
    sets of literals of which the match contains one string each."""

    __slots__ = ("exact", "nonword", "options")

    def __init__(self, exact: Literals | None, options: Options = _NOTHING, nonword: bool = False) -> None:
        self.exact = exact
        self.options = options
        self.nonword = nonword  # it matches one character or more, none of them part of a word


_EMPTY = frozenset({""})
_UNKNOWN = _Node(None)
_LITERAL = pattern_syntax.LITERAL


def _weight(literal: str) -> int:
    # a Chinese character narrows a text down about as much as two letters; a boundary, a little
    return sum(1 if ch.isascii() else 2 for ch in literal.translate(_MARKS)) * 2 + literal.count(BOUNDARY)


def _score(clause: Literals) -> tuple[int, int]:
    return (min(_weight(literal) for literal in clause), -len(clause))


def _useful(clause: Literals | None) -> bool:
    # a set with a string that is nothing (or only a boundary) is in every text: it tells nothing
    return bool(clause) and all(literal.translate(_MARKS) for literal in clause)  # type: ignore[union-attr]


def _all(node: _Node) -> Options:
    """The node's options with its exact strings as one more set."""
    if node.exact is None or not _useful(node.exact):
        return node.options
    return tuple((*option, node.exact) for option in node.options)


_SUMMED_SETS = 3  # sets an option summing up many keeps


def _summed(options: Options) -> Options:
    """One option for many: the sets every alternative has, and sets put together from the
    alternatives' most telling sets: the first of each alternative's best, the second of each
    one's second best (or its best again), ... (a match of any alternative has a string of each:
    (A1 and A2) or B1 needs (A1 or B1) and (A2 or B1))."""
    if len(options) == 1:
        return options
    common = set(options[0]).intersection(*options[1:])
    ranked: list[list[Literals]] = []
    for option in options:
        useful = sorted((clause for clause in option if _useful(clause) and clause not in common), key=_score)
        if not useful:
            return (tuple(common),)  # an alternative that needs only what they all need
        ranked.append(useful[::-1])
    width = min(_SUMMED_SETS, max(len(best) for best in ranked))
    summed = [frozenset().union(*(best[min(rank, len(best) - 1)] for best in ranked)) for rank in range(width)]
    return ((*common, *summed),)


def _both(first: Options, second: Options) -> Options:
    """A match of one after the other: an option of each."""
    if second == _NOTHING:
        return first
    if first == _NOTHING:
        return second
    if len(first) * len(second) > _OPTIONS_MAX:
        if len(second) >= len(first):
            second = _summed(second)
        if len(first) * len(second) > _OPTIONS_MAX:
            first = _summed(first)
    return tuple((*left, *right) for left in first for right in second)


def _either(options: list[Options]) -> Options:
    """A match of one alternative or another: an option of either. Past `_OPTIONS_MAX`, the
    alternative with the most options is summed up first (what its options share stays asked)."""
    if any(not option for alternative in options for option in alternative):
        return _NOTHING  # an alternative nothing is known about: a match may have no literal
    options = list(options)
    while sum(len(alternative) for alternative in options) > _OPTIONS_MAX:
        widest = max(range(len(options)), key=lambda position: len(options[position]))
        if len(options[widest]) == 1:
            return _summed(tuple(option for alternative in options for option in alternative))
        options[widest] = _summed(options[widest])
    return tuple(option for alternative in options for option in alternative)


_GROUPS = frozenset({"BRANCH", "SUBPATTERN", "ATOMIC_GROUP", "GROUPREF_EXISTS"})
_LEAD_MAX = 8  # strings before a group carried into each of its alternatives, up to this many


def _sequence(items: Any, words: bool, fold: bool, lead: Literals = _EMPTY) -> _Node:
    r"""`words`: `\b` is a word boundary in Unicode's sense, the one the looked-at text is marked
    with (not so under the ASCII flag); `fold`: letters match case-insensitively; `lead`: the
    strings matched just before the items (from an enclosing sequence)."""
    run: Literals = lead  # the strings the items since the last unknown one match, glued
    glued = ""  # literal characters read since, not yet glued to `run`
    options: Options = _NOTHING
    exact = True
    for op, av in getattr(items, "data", items):  # a parsed pattern's items, as a list
        if op is _LITERAL:  # most of a pattern: glued to the run as it is
            glued += _letter(chr(av), fold)
            continue
        if glued:
            run = frozenset(prefix + glued for prefix in run)
            glued = ""
        if op.name in _GROUPS and run != _EMPTY and len(run) <= _LEAD_MAX:
            # "\b(?:at|by)\s+\d": what comes before a group goes on in each of its alternatives
            node, run = _node(op, av, words, fold, run), _EMPTY
        else:
            node = _node(op, av, words, fold)
        if node.nonword:  # the strings either side end or start next to a character outside words
            run = frozenset(prefix + _NONWORD for prefix in run)
        if node.exact is not None and len(run) * len(node.exact) <= _EXACT_MAX:
            run = frozenset(prefix + suffix for prefix in run for suffix in node.exact)
            options = _both(options, node.options)
            continue
        exact = False
        if _useful(run):
            options = _both(options, ((run,),))
        options = _both(options, node.options)
        run = node.exact if node.exact is not None else _EMPTY  # too many combinations: a new run
        if node.nonword:
            run = frozenset({_NONWORD})
    if glued:
        run = frozenset(prefix + glued for prefix in run)
    if not exact and _useful(run):
        options = _both(options, ((run,),))
    return _Node(run if exact else None, options)


def _alternatives(nodes: list[_Node]) -> _Node:
    exact: Literals | None = frozenset()
    for node in nodes:
        exact = None if exact is None or node.exact is None else exact | node.exact
    if exact is not None and len(exact) <= _EXACT_MAX:
        return _Node(exact, _either([node.options for node in nodes]))
    return _Node(None, _either([_all(node) for node in nodes]))


_ASCII = re.ASCII.value
_IGNORECASE = re.IGNORECASE.value


def _letter(ch: str, fold: bool) -> str:
    return _FOLDED + ch if fold and ch.lower() != ch.upper() else ch


def _node(op: Any, av: Any, words: bool, fold: bool, lead: Literals = _EMPTY) -> _Node:
    name = op.name
    if name == "LITERAL":
        return _Node(frozenset({_letter(chr(av), fold)}))
    if name == "IN":
        chars: set[str] | None = set()
        for item_op, item in av:
            if item_op.name == "LITERAL" and chars is not None:
                chars.add(_letter(chr(item), fold))
            elif item_op.name == "RANGE" and item[1] - item[0] < _CLASS_MAX and chars is not None:
                chars.update(_letter(chr(code), fold) for code in range(item[0], item[1] + 1))
            else:
                chars = None  # a category, a negation or a wide range
        if chars is not None and len(chars) <= _CLASS_MAX:
            return _Node(frozenset(chars))
        # any character (of those outside words, "\s")
        return _Node(None, nonword=True) if _outside_words(av) else _UNKNOWN
    if name == "AT":
        return _Node(frozenset({BOUNDARY}) if words and av.name == "AT_BOUNDARY" else _EMPTY)
    if name == "ASSERT_NOT":
        return _Node(_EMPTY)  # consumes nothing, and says only what is not there
    if name == "ASSERT":
        # a look-around consumes nothing, but what it looks at is in the text as well
        return _Node(_EMPTY, _all(_sequence(av[1], words, fold)))
    if name == "SUBPATTERN":
        _, add_flags, del_flags, item = av
        words = (words and not add_flags & _ASCII) or bool(del_flags & _ASCII)
        fold = (fold or bool(add_flags & _IGNORECASE)) and not del_flags & _IGNORECASE
        return _sequence(item, words, fold, lead)
    if name == "ATOMIC_GROUP":
        return _sequence(av, words, fold, lead)
    if name == "BRANCH":
        return _alternatives([_sequence(alternative, words, fold, lead) for alternative in av[1]])
    if name == "GROUPREF_EXISTS":
        no = _sequence(av[2], words, fold, lead) if av[2] is not None else _Node(lead)
        return _alternatives([_sequence(av[1], words, fold, lead), no])
    if name in ("MAX_REPEAT", "MIN_REPEAT", "POSSESSIVE_REPEAT"):
        low, high, item = av
        inner = _sequence(item, words, fold)
        if low == 0:
            # what is optional is not needed (a look-around inside it neither)
            return _Node(inner.exact | _EMPTY) if high == 1 and inner.exact is not None else _UNKNOWN
        if low == high and inner.exact is not None and len(inner.exact) ** low <= _EXACT_MAX:
            exact = _EMPTY
            for _ in range(low):
                exact = frozenset(prefix + suffix for prefix in exact for suffix in inner.exact)
            return _Node(exact, inner.options)
        # ("\s+": one character outside words or more)
        outside = len(item) == 1 and item[0][0].name == "IN" and _outside_words(item[0][1])
        return _Node(None, _all(inner), nonword=outside)
    return _UNKNOWN  # any character, a back-reference, ...


_NOT_IN_WORDS = frozenset({"CATEGORY_SPACE", "CATEGORY_NOT_WORD"})


def _outside_words(items: Any) -> bool:
    """Whether a character class (the items of an IN) matches only characters that are never part of
    a word, as `\b` tells them apart in any mode: whitespace, or what is not a word character."""
    if not items:
        return False
    for item_op, item in items:
        if item_op.name == "CATEGORY":
            if item.name not in _NOT_IN_WORDS:
                return False
        elif item_op.name == "LITERAL":
            if _is_word(chr(item)) or chr(item).lower() != chr(item).upper():
                return False
        else:
            return False  # a negation, a range: not looked at
    return True


def _is_word(ch: str) -> bool:
    return ch.isalnum() or ch == "_"  # what `\b` tells apart


def _marked(literal: str) -> str | None:
    r"""The literal as the looked-at text shows it: with a boundary wherever its characters make one,
    at an end where its pattern says `\b` (one said between two letters, where none can be, is
    left out) and at an end next to a character outside words where its own is a word's; as
    written when every letter of it is matched as written, else in lower case. None when lower
    case would not line up character for character ("İ") or nothing is left."""
    chars = literal.translate(_MARKS)
    if not chars:
        return None
    # ("Σ" is always lowered: its lower case depends on its neighbours)
    as_written = _FOLDED not in literal and any(ch.lower() != ch.upper() for ch in chars) and "\u03a3" not in chars
    ends = BOUNDARY + _NONWORD
    lead = literal[: len(literal) - len(literal.lstrip(ends + _FOLDED))]
    tail = literal[len(literal.rstrip(ends)) :]
    if _NONWORD in literal.strip(ends + _FOLDED):
        return None  # (never made: a character outside words is only looked at from an end)
    out = [BOUNDARY] if BOUNDARY in lead or (_NONWORD in lead and _is_word(chars[0])) else []
    for at, ch in enumerate(chars):
        if at and _is_word(chars[at - 1]) != _is_word(ch):
            out.append(BOUNDARY)
        shown = ch if as_written else ch.lower()
        if len(shown) != 1:
            return None
        out.append(shown)
    if BOUNDARY in tail or (_NONWORD in tail and _is_word(chars[-1])):
        out.append(BOUNDARY)
    return "".join(out)


@cache
def _lowered(clause: Literals) -> Literals | None:
    """The clause as the looked-at text shows it (`_marked`), without strings that hold a shorter
    one (one is enough), or None when a string cannot be shown."""
    marked = set()
    for literal in clause:
        shown = _marked(literal)
        if shown is None:
            return None
        marked.add(shown)
    kept: list[str] = []
    for literal in sorted(marked, key=len):
        if not any(shorter in literal for shorter in kept):
            kept.append(literal)
    return frozenset(kept)


def _cleaned(options: Options) -> Options:
    """As the looked-at text shows them, each set once, and an option that asks for more than
    another one dropped."""
    cleaned: list[frozenset[Literals]] = []
    for option in options:
        shown = (_lowered(clause) for clause in option if _useful(clause))
        clauses = frozenset(clause for clause in shown if clause)
        if not clauses:
            return _NOTHING  # a match of this alternative needs no literal known
        cleaned.append(clauses)
    minimal = [option for option in cleaned if not any(other < option for other in cleaned)]
    return tuple(dict.fromkeys(tuple(sorted(option, key=sorted)) for option in minimal))


def required_literals(pattern: re.Pattern[str]) -> Options:
    """What any match of `pattern` contains, as the looked-at text shows it (lower case, word
    boundaries marked): alternatives, each a tuple of sets of strings, of each of which the match
    has one. `((),)`: nothing is known, the pattern may match any text."""
    if not isinstance(pattern.pattern, str):
        return _NOTHING
    return _source_literals(pattern.pattern, pattern.flags)


@cache
def _source_literals(source: str, flags: int) -> Options:
    words, fold = not flags & _ASCII, bool(flags & _IGNORECASE)
    try:
        items = pattern_syntax.parse(source, flags)
    except PatternSyntaxError:
        return _NOTHING  # a form the reader does not know: nothing is known, the pattern is always tried
    return _cleaned(_all(_sequence(items, words, fold)))


def _jointed(clause: Literals) -> Literals | None:
    """The clause as it can still be found in the original text when the text read was glued
    together from pieces of it, each piece after a joint starting at a `JOINTS` mark or a
    separator word of the original: each literal up to where, after its first character, such a
    joint may be (a literal seen across joints has that part within one piece, boundaries
    included: on both sides of a joint a word ends before a character that is not part of one)."""
    cut = set()
    for literal in clause:
        end = next(
            (
                at
                for at, ch in enumerate(literal)
                if at and (ch in JOINTS or (ch.isspace() and _JOINT_WORDS.match(literal[at:].translate(_MARKS))))
            ),
            len(literal),
        )
        cut.add(literal[:end])
    kept = frozenset(cut)
    return kept if _useful(kept) else None


# ------------------------------------------------------------------------------------------------
# the patterns families declare: registered as their tables are built, indexed by `build` (or on first use)

_REGISTERED: list[re.Pattern[str]] = []
_REGISTERED_IDS: set[int] = set()


def indexed(*patterns: re.Pattern[str] | None) -> None:
    """Declare patterns a family searches with: their literals go into the index (a pattern declared
    after the index is built is simply always tried)."""
    for pattern in patterns:
        if pattern is not None and id(pattern) not in _REGISTERED_IDS:
            _REGISTERED_IDS.add(id(pattern))
            _REGISTERED.append(pattern)


class _Automaton:
    """Aho–Corasick over the literals in lower case, run on the UTF-8 bytes of the lower-cased text:
    one pass gives every literal in it, as the bits of the clauses holding it. A literal looked for
    as written is found in lower case first, then looked up in the text as written. (Bytes, not
    characters: a byte indexes a state's row of moves directly, where a character needs a dictionary
    look-up; UTF-8 keeps a literal's bytes from matching anywhere but on the literal's characters.)"""

    def __init__(self, literals: dict[str, int]) -> None:
        self.literals = literals
        goto: list[dict[int, int]] = [{}]
        bits_at = [0]
        written_at: list[tuple[tuple[str, int], ...]] = [()]
        for literal, bits in literals.items():
            state = 0
            for byte in literal.lower().encode("utf-8", "surrogatepass"):
                nxt = goto[state].get(byte)
                if nxt is None:
                    nxt = len(goto)
                    goto[state][byte] = nxt
                    goto.append({})
                    bits_at.append(0)
                    written_at.append(())
                state = nxt
            if literal == literal.lower():
                bits_at[state] |= bits
            else:
                written_at[state] += ((literal, bits),)
        fail = [0] * len(goto)
        queue = deque(goto[0].values())
        while queue:
            state = queue.popleft()
            for byte, nxt in goto[state].items():
                queue.append(nxt)
                back = fail[state]
                while back and byte not in goto[back]:
                    back = fail[back]
                target = goto[back].get(byte, 0) if state else 0
                fail[nxt] = target
                bits_at[nxt] |= bits_at[target]
                written_at[nxt] += written_at[target]
        self._goto = goto
        self._fail = fail
        # what a state has found: nothing, or (bits, literals to look up as written)
        self._found: list[tuple[int, tuple[tuple[str, int], ...]] | None] = [
            (bits, written) if bits or written else None for bits, written in zip(bits_at, written_at, strict=True)
        ]
        self.alphabet = frozenset(ch for literal in literals for ch in literal.lower())
        # a literal looked for as written, as a pattern on the text itself (`\\b` where it has a
        # boundary): the same as looking for it in the text with its boundaries marked, without
        # marking them
        self._as_written = {literal: _as_written(literal) for literal in literals if literal != literal.lower()}
        # each byte of the literals a column of a row of moves; column 0: any other byte (to the root)
        used = sorted({byte for row in goto for byte in row})
        self._column = [0] * 256
        for column, byte in enumerate(used, 1):
            self._column[byte] = column
        self._bytes_of_columns = [0, *used]
        # a state's moves, by column: made when the state is first reached (the states texts reach
        # are few; all of them by all columns would take tens of megabytes)
        self._rows: list[list[int] | None] = [None] * len(goto)
        self._rows[0] = self._row(0)

    def _row(self, state: int) -> list[int]:
        row = self._rows[state]
        if row is not None:
            return row
        goto, fail_row = self._goto[state], self._row(self._fail[state]) if state else None
        made = [0] * len(self._bytes_of_columns)
        for column in range(1, len(made)):
            nxt = goto.get(self._bytes_of_columns[column])
            if nxt is not None:
                made[column] = nxt
            elif fail_row is not None:
                made[column] = fail_row[column]
        self._rows[state] = made
        return made

    def scan(self, text: str) -> int:
        """The bits of `text`, read in lower case with its word boundaries marked (`BOUNDARY`)."""
        if text.isascii():
            bits, to_look_up = self._walk(text.lower().encode("ascii"), True)
        else:
            marked = _BOUNDARIES.sub(BOUNDARY, text).lower()
            bits, to_look_up = self._walk(marked.encode("utf-8", "surrogatepass"), False)
        for literal, literal_bits in to_look_up:
            as_written = self._as_written[literal]
            if as_written is not None and as_written.search(text):
                bits |= literal_bits
        return bits

    def _walk(self, data: bytes, mark_boundaries: bool) -> tuple[int, list[tuple[str, int]]]:
        """The bits found in `data`, and the literals it may hold as written. `mark_boundaries`:
        `data` is ASCII, and its word boundaries are walked through where they fall (as `\\b` finds
        them: between a word byte and another byte, and at an end next to a word byte)."""
        columns, rows, found_at = self._column, self._rows, self._found
        boundary = columns[ord(BOUNDARY)]
        row = rows[0]
        assert row is not None
        bits = 0
        to_look_up: list[tuple[str, int]] = []
        position, size = 0, len(data)
        in_word = False
        while True:
            byte = data[position] if position < size else 0
            if mark_boundaries and _ASCII_WORD[byte] != in_word:
                in_word = not in_word
                column = boundary  # the boundary first; the byte at `position` is walked next
            elif position < size:
                column = columns[byte]
                position += 1
            else:
                break
            state = row[column]
            next_row = rows[state]
            row = next_row if next_row is not None else self._row(state)
            found = found_at[state]
            if found is not None:
                bits |= found[0]
                if found[1]:
                    to_look_up.extend(found[1])
        return bits, to_look_up


def _as_written(literal: str) -> re.Pattern[str] | None:
    """The pattern that finds `literal` in a text where it is in the text with its boundaries marked;
    None when it never is (its marks are not where its own characters make a boundary)."""
    parts = literal.split(BOUNDARY)
    if "" in parts[1:-1]:
        return None  # two marks in a row
    for before, after in itertools.pairwise(parts):
        if before and after and _is_word(before[-1]) == _is_word(after[0]):
            return None  # a mark between two characters of a kind
    for part in parts:
        for left, right in itertools.pairwise(part):
            if _is_word(left) != _is_word(right):
                return None  # a boundary of its characters without its mark
    return re.compile(r"\b".join(re.escape(part) for part in parts))


# the bytes of an ASCII text `\b` takes for part of a word: letters, digits, "_"
_ASCII_WORD = [byte < 128 and (chr(byte).isalnum() or byte == ord("_")) for byte in range(256)]


def _positions(bits: int) -> list[int]:
    """The positions of the set bits of `bits` (a way's few clauses)."""
    positions = []
    while bits:
        low = bits & -bits
        positions.append(low.bit_length() - 1)
        bits ^= low
    return positions


class _Lookup:
    """Ways a text may hold something, each the clause bits it needs (it holds the way when it has
    all of them), looked up by one telling clause of each: a text with none of those has none."""

    __slots__ = ("by_clause", "telling")

    def __init__(self, ways: Iterable[tuple[int, int]], score: Callable[[int], tuple[int, int]]) -> None:
        self.telling = 0
        self.by_clause: dict[int, list[tuple[int, int]]] = {}  # clause position -> (key, way)
        for key, way in ways:
            # the way's most telling clause: the one whose strings are longest
            best = max(_positions(way), key=score)
            self.telling |= 1 << best
            self.by_clause.setdefault(best, []).append((key, way))

    def held(self, bits: int) -> list[int]:
        """The keys of the ways `bits` holds."""
        hit = bits & self.telling
        keys = []
        while hit:  # few clauses at a time: peeled off one by one
            low = hit & -hit
            for key, way in self.by_clause[low.bit_length() - 1]:
                if bits & way == way:
                    keys.append(key)
            hit ^= low
        return keys

    def any_held(self, bits: int) -> bool:
        hit = bits & self.telling
        while hit:
            low = hit & -hit
            for _, way in self.by_clause[low.bit_length() - 1]:
                if bits & way == way:
                    return True
            hit ^= low
        return False


class _Ways:
    """Ways a text may hold a match (`_Lookup`, all of one pattern or trigger)."""

    __slots__ = ("lookup", "ways")

    def __init__(self, ways: Iterable[int], score: Callable[[int], tuple[int, int]]) -> None:
        self.ways = list(dict.fromkeys(ways))
        self.lookup = _Lookup(((0, way) for way in self.ways), score)

    def held(self, bits: int) -> bool:
        return self.lookup.any_held(bits)


# what a pattern (or a trigger) needs, as clause bits: those every way needs, and the ways when
# there are several
Need = tuple[int, "_Ways | None"]
_NO_NEED: Need = (0, None)


def _holds(bits: int, need: Need) -> bool:
    common, ways = need
    return bits & common == common and (ways is None or ways.held(bits))


@dataclass
class _Index:
    automaton: _Automaton
    exact: dict[int, Need]  # id(pattern) -> what a match needs in the text read
    jointed: dict[int, Need]  # the same, in a text the text read was glued together from
    options: dict[int, tuple[list[int], list[int]]]  # id(pattern) -> its ways, exact and jointed
    # a tested pattern's ways read whole (fewer: its many alternatives summed up), for a quick look
    read_whole: dict[int, tuple[list[int], list[int]]]
    score: Callable[[int], tuple[int, int]]  # how telling a clause (by its position) is
    patterns: list[re.Pattern[str]]  # kept alive: the ids above stay theirs
    everything: int  # every clause bit: what a text nothing can be said about "has"
    unsafe: frozenset[str]  # characters the lower-case look could miss a match on (`_unsafe_characters`)
    trusted: bool  # False: no look can be trusted, every text holds everything
    unsafe_ascii: bool = False  # an ASCII character is among `unsafe`

    def need(self, ways: list[int]) -> Need:
        """What a text needs to hold one of `ways`."""
        if not ways or 0 in ways:
            return _NO_NEED
        common = ways[0]
        for way in ways[1:]:
            common &= way
        return (common, None) if len(set(ways)) == 1 else (common, _Ways(ways, self.score))


def _unsafe_characters(alphabet: frozenset[str]) -> tuple[frozenset[str], bool]:
    """The characters the lower-case look could miss a literal on, and whether it can be trusted.

    The engine matches a literal case-insensitively through its own case folding, in which "ſ"
    equals "s" and "İ" equals "i" although their lower case is not "s" or "i". A character the
    engine equates with a character of the literals, but whose lower case is not one of them, makes
    a text hold everything. Two characters of the literals equated with each other ("s" and "ſ")
    would mean lower case cannot tell them apart: then nothing is trusted."""
    cased = sorted(ch for ch in alphabet if ch.upper() != ch or ch.lower() != ch)
    alphabet_text = "".join(sorted(alphabet))
    for ch in cased:
        if set(re.findall(re.escape(ch), alphabet_text, re.IGNORECASE)) != {ch}:
            return frozenset(), False
    if not cased:
        return frozenset(), True
    folded = re.compile("[" + "".join(re.escape(ch) for ch in cased) + "]", re.IGNORECASE)
    plane = "".join(map(chr, range(0x10000)))
    # "Σ" lowers to "σ" or "ς" by its neighbours, not on its own
    unsafe = frozenset(
        ch for ch in folded.findall(plane) if len(ch.lower()) != 1 or ch.lower() not in alphabet or ch == "\u03a3"
    )
    return unsafe, True


@cache
def _index() -> _Index:
    # one function on purpose: every step adds to the clause table `bits_of` builds, and the
    # index is only right once all of them have (split up, the table would be passed around)
    clause_bits: dict[Literals, int] = {}
    literal_bits: dict[str, int] = {}
    scores: list[tuple[int, int]] = []  # by clause position

    def bits_of(clauses: Iterable[Literals | None]) -> int:
        bits = 0
        for clause in clauses:
            if not clause:
                continue
            bit = clause_bits.get(clause)
            if bit is None:
                bit = clause_bits[clause] = 1 << len(clause_bits)
                scores.append(_score(clause))
                for literal in clause:
                    literal_bits[literal] = literal_bits.get(literal, 0) | bit
            bits |= bit
        return bits

    patterns = list(_REGISTERED)
    options: dict[int, tuple[list[int], list[int]]] = {}
    for pattern in patterns:
        ways = required_literals(pattern)
        options[id(pattern)] = (
            [bits_of(way) for way in ways],
            [bits_of(_jointed(clause) for clause in way) for way in ways],
        )
    # the patterns only tested, cut into their alternatives, each read from its source; a match of
    # the pattern is a match of one of them, so their ways are the pattern's in a trigger (where
    # reading it whole summed up its many alternatives). `test` looks at a tested pattern as read
    # whole, then at its alternatives' table: the quick no, then the exact look, each done once.
    read_whole: dict[int, tuple[list[int], list[int]]] = {}
    for entry in _TESTED.values():
        entry.sources = _alternatives_of(entry.pattern)
        if entry.sources is not None:
            flags = entry.pattern.flags
            entry.ways = [[bits_of(way) for way in _source_literals(source, flags)] for source in entry.sources]
            entry.compiled = [None] * len(entry.sources)
            read_whole[id(entry.pattern)] = options[id(entry.pattern)]
            exact = [bits for ways in entry.ways for bits in ways]
            jointed = [
                bits_of(_jointed(clause) for clause in way)
                for source in entry.sources
                for way in _source_literals(source, flags)
            ]
            # (an alternative nothing is known about says nothing of the pattern: read whole, it may)
            options[id(entry.pattern)] = (
                exact if all(exact) else read_whole[id(entry.pattern)][0],
                jointed if all(jointed) else read_whole[id(entry.pattern)][1],
            )
    automaton = _Automaton(literal_bits)
    # the characters literals looked for in lower case can have (and more: lower case of all)
    unsafe, trusted = _unsafe_characters(frozenset(ch.lower() for ch in automaton.alphabet if len(ch.lower()) == 1))
    everything = (1 << len(clause_bits)) - 1
    index = _Index(
        automaton,
        {},
        {},
        options,
        read_whole,
        scores.__getitem__,
        patterns,
        everything,
        unsafe,
        trusted,
        unsafe_ascii=any(ch.isascii() for ch in unsafe),
    )
    for key, (exact, jointed) in options.items():
        exact, jointed = read_whole.get(key, (exact, jointed))
        index.exact[key] = index.need(exact)
        index.jointed[key] = index.need(jointed)
    return index


_WHEN_BUILT: list[Callable[[], object]] = []  # lookups made from the index, made with it


def when_built(make: Callable[[], object]) -> None:
    """Have `build` make a lookup (which would be made on first use otherwise)."""
    _WHEN_BUILT.append(make)


def build() -> None:
    """Build the index now, and the lookups made from it (tables, triggers), rather than on first
    use: reading every declared pattern takes a moment, better spent before the first text."""
    _index()
    for entry in _TESTED.values():
        if entry.table is None and entry.sources is not None:
            entry.table = Table(entry.ways)
    while _WHEN_BUILT:
        _WHEN_BUILT.pop(0)()


_ASTRAL = re.compile("[\U00010000-\U0010ffff]")


def _bits(text: str) -> int:
    index = _index()
    if not index.trusted:
        return index.everything
    if text.isascii():
        # (the unsafe characters found so far are all past ASCII: an ASCII text is not looked through)
        if index.unsafe_ascii and not index.unsafe.isdisjoint(text):
            return index.everything
    elif not index.unsafe.isdisjoint(text):
        return index.everything
    elif _ASTRAL.search(text) and any(ch.lower() != ch.upper() for ch in text):
        return index.everything  # a cased character past the first plane: not looked at above
    return index.automaton.scan(text)


def literal_in(literal: str, text: str) -> bool:
    """Whether the index sees `literal` (as `required_literals` gives it) in `text`."""
    written = _BOUNDARIES.sub(BOUNDARY, text)
    return literal in (written.lower() if literal == literal.lower() else written)


# `RuleExtractor(prefilter=False)` looks at nothing: every text holds everything (the reference the
# prefilter is checked against)
_OFF: ContextVar[bool] = ContextVar("prefilter_off", default=False)


@contextmanager
def disabled() -> Iterator[None]:
    """Within the block, every pattern and every family is tried everywhere."""
    token = _OFF.set(True)
    try:
        yield
    finally:
        _OFF.reset(token)


class Seen:
    """The clauses whose literals occur in one text."""

    __slots__ = ("bits", "everything", "needs")

    def __init__(self, bits: int, needs: dict[int, Need], everything: bool = False) -> None:
        self.bits = bits
        self.needs = needs
        self.everything = everything  # nothing could be said about the text: it may hold anything

    def may_match(self, pattern: re.Pattern[str]) -> bool:
        """False only when `pattern` cannot match the text."""
        need = self.needs.get(id(pattern))
        if need is None:
            return True
        common, ways = need
        bits = self.bits
        return bits & common == common and (ways is None or ways.held(bits))


def seen(text: str) -> Seen:
    """What the index finds in `text`."""
    return _everything() if _OFF.get() else _seen(text)


@lru_cache(maxsize=256)
def _seen(text: str) -> Seen:
    index = _index()
    bits = _bits(text)
    return Seen(bits, index.exact, bits == index.everything)


@cache
def _everything() -> Seen:
    index = _index()
    return Seen(index.everything, index.exact, True)


def may_match(pattern: re.Pattern[str], text: str) -> bool:
    """False only when `pattern` cannot match `text`: a literal every match needs is missing."""
    return seen(text).may_match(pattern)


class Table:
    """A list of patterns tried in turn: which of them may match a text, found at once (through one
    telling clause of each of their ways) rather than pattern by pattern. An entry of several
    patterns is tried only where all of them may match (a pattern and its gate)."""

    def __init__(self, entries: Sequence[list[int]]) -> None:
        """The table of entries given by their ways (as clause bits)."""
        self._made(entries)

    @classmethod
    def of_patterns(cls, entries: Sequence[Alternative]) -> Table:
        """The table of entries given as patterns (a pattern, or a pattern and its gate)."""
        index = _index()
        return cls(
            [_combined([index.options.get(id(pattern), ([0], [0]))[0] for pattern in entry]) for entry in entries]
        )

    def _made(self, entries: Sequence[list[int]]) -> None:
        self.size = len(entries)
        self._always: list[int] = []  # entries nothing is known about: always tried
        ways: list[tuple[int, int]] = []  # (position, a way of matching it, as clause bits)
        for position, entry_ways in enumerate(entries):
            if not entry_ways or 0 in entry_ways:
                self._always.append(position)
            else:
                ways += [(position, way) for way in entry_ways]
        self._lookup = _Lookup(ways, _index().score)

    def may_match(self, seen: Seen) -> list[int]:
        """The positions of the entries that may match the text `seen` was taken from, in order."""
        if seen.everything:
            return list(range(self.size))
        found = self._lookup.held(seen.bits)
        if not found:
            return self._always
        return sorted(set(found).union(self._always))


def _combined(parts: list[list[int]]) -> list[int]:
    """The ways patterns that must all match may: a way of each, together. Past `_OPTIONS_MAX`
    combinations, the patterns with the fewest ways are combined so (at least the first, however
    many ways it has), and of the others only what every way of each needs is added to each (a
    match of them all holds a way of each one)."""
    combined = [0]
    common = 0
    for part in sorted(parts, key=len):
        if len(combined) == 1 or len(combined) * len(part) <= _OPTIONS_MAX:
            combined = [way | option for way in combined for option in part]
            continue
        shared = part[0]
        for option in part[1:]:
            shared &= option
        common |= shared
    return [way | common for way in combined]


_GLOBAL_FLAGS = re.compile(r"\(\?[aiLmsux]+\)")
_REFERENCES = re.compile(r"\\[1-9]|\(\?P=|\(\?\(")


def _skip(source: str, at: int, verbose: bool) -> int:
    """Past what `at` starts that holds no structure of the pattern: an escape, a class, a comment;
    else past the one character."""
    end = len(source)
    ch = source[at]
    if ch == "\\":
        return at + 2
    if ch == "[":  # a class: to its closing "]" (one first, or after "^", is a member)
        at += 2 if source.startswith("[^", at) else 1
        at += 1 if at < end and source[at] == "]" else 0
        while at < end and source[at] != "]":
            at += 2 if source[at] == "\\" else 1
        return at + 1
    if ch == "#" and verbose:  # a comment, to the end of the line
        while at < end and source[at] != "\n":
            at += 1
        return at
    if source.startswith("(?#", at):
        while at < end and source[at] != ")":
            at += 1
        return at + 1
    return at + 1


_STRUCTURE = re.compile(r"[\\\[#()|]")  # the characters a pattern's structure is read from


def _top_level(source: str, verbose: bool) -> tuple[list[int], list[tuple[int, int]]]:
    """Where the pattern's source has its top-level `|`, and its top-level groups (where each
    opens and closes)."""
    bars: list[int] = []
    groups: list[tuple[int, int]] = []
    depth, opened, at = 0, 0, 0
    while (found := _STRUCTURE.search(source, at)) is not None:
        at = found.start()
        ch = source[at]
        if ch in "\\[" or (ch == "#" and verbose) or source.startswith("(?#", at):
            at = _skip(source, at, verbose)
            continue
        if ch == "(":
            if depth == 0:
                opened = at
            depth += 1
        elif ch == ")":
            depth -= 1
            if depth == 0:
                groups.append((opened, at))
        elif ch == "|" and depth == 0:
            bars.append(at)
        at += 1
    return bars, groups


# a group whose alternatives can be taken one by one: a plain, named or flagged one (not an atomic
# one, which does not go back to try another alternative, nor a look-around), not repeated
_GROUP_OPENING = re.compile(r"\((?:\?(?:[aiLmsux]*(?:-[imsx]+)?:|P<\w+>))?(?![?])")
_COMMENTS = re.compile(r"(?m)#.*$|\s+")
_ALTERNATIVES_MAX = 256  # a pattern is cut into at most this many alternatives


def _cut(source: str, verbose: bool, budget: int = _ALTERNATIVES_MAX) -> list[str]:
    """The pattern's source as alternatives (a text holds a match of the pattern when it holds a
    match of one of them): its top-level ones, and those of a group at their top level ("a(?:b|c)d"
    is "a(?:b)d" or "a(?:c)d"), in turn, up to `budget` of them."""
    bars, groups = _top_level(source, verbose)
    if bars:
        starts = [0] + [bar + 1 for bar in bars]
        pieces = [source[start:stop] for start, stop in zip(starts, [*bars, len(source)], strict=True)]
        if len(pieces) > budget:
            return [source]
        out: list[str] = []
        for number, piece in enumerate(pieces):
            out += _cut(piece, verbose, budget - len(out) - (len(pieces) - number - 1))
        return out
    for opened, closed in groups:
        opening = _GROUP_OPENING.match(source, opened)
        rest = source[closed + 1 :]
        if opening is None or (_COMMENTS.sub("", rest) if verbose else rest)[:1] in ("*", "+", "?", "{"):
            continue
        inner = _cut(source[opening.end() : closed], verbose, budget)
        if len(inner) < 2:
            continue
        head = source[: opening.end()]
        tails = _cut(rest, verbose, max(1, budget // len(inner)))
        return [head + alternative + ")" + tail for alternative in inner for tail in tails]
    return [source]


def _alternatives_of(pattern: re.Pattern[str]) -> list[str] | None:
    """The sources of the pattern's alternatives (with its global flags); None when it is not an
    alternation, or its parts refer to each other's groups."""
    source = pattern.pattern
    flags = _GLOBAL_FLAGS.match(source)
    lead = flags.group(0) if flags else ""
    body = source[len(lead) :]
    if _REFERENCES.search(body):
        return None
    parts = _cut(body, bool(pattern.flags & re.VERBOSE))
    return [lead + part for part in parts] if len(parts) > 1 else None


class _Tested:
    """A pattern only tested for a match anywhere, with its alternatives: their sources and what a
    match of each needs (read when the index is built), their table, each compiled when first tried."""

    __slots__ = ("compiled", "pattern", "sources", "table", "ways")

    def __init__(self, pattern: re.Pattern[str]) -> None:
        self.pattern = pattern
        self.sources: list[str] | None = None
        self.ways: list[list[int]] = []
        self.table: Table | None = None
        self.compiled: list[re.Pattern[str] | None] = []

    def alternative(self, position: int) -> re.Pattern[str]:
        compiled = self.compiled[position]
        if compiled is None:
            assert self.sources is not None
            compiled = self.compiled[position] = re.compile(self.sources[position], self.pattern.flags)
        return compiled


_TESTED: dict[int, _Tested] = {}  # id(pattern) -> it


def tested(*patterns: re.Pattern[str] | None) -> None:
    """Declare patterns only tested for a match anywhere (`test`): indexed, and cut into their
    alternatives when the index is built, so that only the alternatives whose words a text has are
    tried."""
    for pattern in patterns:
        if pattern is not None and id(pattern) not in _TESTED:
            _TESTED[id(pattern)] = _Tested(pattern)
            indexed(pattern)


def test(pattern: re.Pattern[str], text: str) -> bool:
    """Whether `pattern` matches anywhere in `text` (a pattern declared with `tested`: any of its
    alternatives whose words are there; another one: where its own words are)."""
    if _OFF.get():
        return pattern.search(text) is not None  # the reference: the pattern itself, everywhere
    seen_here = _seen(text)
    if not seen_here.may_match(pattern):
        return False  # the pattern as a whole cannot match: the quickest no
    entry = _TESTED.get(id(pattern))
    if entry is None or entry.sources is None:
        return pattern.search(text) is not None
    if entry.table is None:
        entry.table = Table(entry.ways)
    return any(entry.alternative(position).search(text) for position in entry.table.may_match(seen_here))


def search(pattern: re.Pattern[str], text: str) -> re.Match[str] | None:
    """`pattern.search(text)`, without trying where it cannot match."""
    return pattern.search(text) if may_match(pattern, text) else None


def finditer(pattern: re.Pattern[str], text: str) -> Iterator[re.Match[str]]:
    """`pattern.finditer(text)`, without trying where it cannot match."""
    return pattern.finditer(text) if may_match(pattern, text) else iter(())


# ------------------------------------------------------------------------------------------------
# family triggers

Alternative = tuple[re.Pattern[str], ...]  # patterns that must all match


@dataclass(frozen=True)
class Trigger:
    """What a family cannot fire without, in the text it reads: in every group, one alternative
    whose patterns all match. No groups: the family may fire on anything.

    `rewritten`: the family reads the text glued together again after cutting a part out (at
    `JOINTS` or whitespace), so its trigger is looked for as it can be seen in the text given."""

    groups: tuple[tuple[Alternative, ...], ...] = ()
    rewritten: bool = False
    # the groups as clause bits, by `jointed` and `quick` (filled on first use: the index is built by then)
    _compiled: dict[tuple[bool, bool], tuple[Need, ...]] = field(
        default_factory=dict, init=False, repr=False, compare=False
    )

    def __post_init__(self) -> None:
        for group in self.groups:
            for alternative in group:
                indexed(*alternative)

    def __and__(self, other: Trigger) -> Trigger:
        return Trigger(self.groups + other.groups, self.rewritten or other.rewritten)

    def may_fire(self, seen: Seen, jointed: bool = False) -> bool:
        """False only when the family cannot fire on the text `seen` was taken from (`jointed`: or
        on any text glued together from its pieces at `JOINTS` or whitespace)."""
        jointed = jointed or self.rewritten
        needs = self._compiled.get((jointed, False))
        if needs is None:
            needs = self._needs(jointed)
        bits = seen.bits
        for common, ways in needs:  # noqa: SIM110 - a plain loop: this runs for every family on every sentence
            if bits & common != common or (ways is not None and not ways.held(bits)):
                return False
        return True

    def _needs(self, jointed: bool, quick: bool = False) -> tuple[Need, ...]:
        """What each group needs: the ways its alternatives may match (an alternative's patterns
        all matching: a way of each, together; past `_OPTIONS_MAX` ways, what they all need).
        `quick`: tested patterns read whole (fewer ways, for a quick look)."""
        key = (jointed, quick)
        if key not in self._compiled:
            index = _index()
            read = index.options if not quick else {**index.options, **index.read_whole}
            needs: list[Need] = []
            for group in self.groups:
                ways: list[int] = []
                for alternative in group:
                    ways += _combined([read.get(id(pattern), ([0], [0]))[jointed] for pattern in alternative])
                need = index.need(ways)
                if need != _NO_NEED:
                    needs.append(need)
            # one need for the groups of one way each: fewer checks
            single = 0
            for common, many in needs:
                if many is None:
                    single |= common
            merged = [need for need in needs if need[1] is not None]
            self._compiled[key] = ((single, None), *merged) if single else tuple(merged)
        return self._compiled[key]

    def _read_whole(self) -> bool:
        """Whether a tested pattern of it has fewer ways read whole than by its alternatives."""
        index = _index()
        return any(
            id(pattern) in index.read_whole and index.read_whole[id(pattern)] != index.options[id(pattern)]
            for group in self.groups
            for alternative in group
            for pattern in alternative
        )


ANYTHING = Trigger()


class Firing:
    """The triggers of a `Triggers` that may fire on one text (`trigger in firing`)."""

    __slots__ = ("_ids",)

    def __init__(self, ids: set[int]) -> None:
        self._ids = ids

    def __contains__(self, trigger: Trigger) -> bool:
        return id(trigger) in self._ids

    def __bool__(self) -> bool:
        return bool(self._ids)


class Triggers:
    """Several families' triggers looked at together: which of them may fire on a text. A quick
    look at one need of each, through one telling clause of each of its ways, then the rest of the
    trigger for those that pass it (most families have one need: the quick look is all).
    `jointed`: looked for in a text the families read glued together from pieces of it.
    `quick`: the quick look only, for families that look at the rest themselves before anything
    costly (a family's patterns, which its scan looks up anyway: the rest would be done twice)."""

    def __init__(self, triggers: Iterable[Trigger], jointed: bool = False, quick: bool = False) -> None:
        self.triggers = tuple(triggers)
        self.jointed = jointed
        self.quick = quick
        self._look: tuple[_Lookup, list[int], list[bool]] | None = None
        when_built(self._looked)

    def _looked(self) -> tuple[_Lookup, list[int], list[bool]]:
        if self._look is None:
            ways: list[tuple[int, int]] = []
            always: list[int] = []
            whole: list[bool] = []  # whether the quick look is the whole trigger
            for position, trigger in enumerate(self.triggers):
                needs = trigger._needs(self.jointed or trigger.rewritten, quick=True)
                # (the rest of the trigger: its other needs, and its tested patterns' alternatives)
                whole.append(self.quick or (len(needs) <= 1 and not trigger._read_whole()))
                if not needs:
                    always.append(position)
                    continue
                # the need with the fewest ways: the narrowest look at the trigger
                common, many = min(needs, key=lambda need: len(need[1].ways) if need[1] is not None else 1)
                ways += [(position, common | way) for way in (many.ways if many is not None else [0])]
            self._look = (_Lookup(ways, _index().score), always, whole)
        return self._look

    def firing(self, seen: Seen) -> Firing:
        """The triggers that may fire on the text `seen` was taken from."""
        if seen.everything:
            return Firing({id(trigger) for trigger in self.triggers})
        lookup, always, whole = self._looked()
        return Firing(
            {
                id(self.triggers[position])
                for position in {*always, *lookup.held(seen.bits)}
                if whole[position] or self.triggers[position].may_fire(seen, self.jointed)
            }
        )

    def may_fire(self, seen: Seen) -> bool:
        """Whether any of them may fire."""
        if seen.everything:
            return bool(self.triggers)
        lookup, always, whole = self._looked()
        for position in (*always, *lookup.held(seen.bits)):
            if whole[position] or self.triggers[position].may_fire(seen, self.jointed):
                return True
        return False


def one_of(*alternatives: re.Pattern[str] | Alternative) -> Trigger:
    """A trigger of one group: any of the patterns (a tuple: patterns that must all match)."""
    return Trigger((tuple(item if isinstance(item, tuple) else (item,) for item in alternatives),))


def all_of(*patterns: re.Pattern[str]) -> Trigger:
    """A trigger whose patterns must all match."""
    return Trigger(tuple(((pattern,),) for pattern in patterns))


def rewritten(trigger: Trigger) -> Trigger:
    """The trigger, for a family that reads its text after gluing pieces of it together."""
    return Trigger(trigger.groups, True)
