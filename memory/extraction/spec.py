"""Family specs: a rule family declared in a data file (`memory/data/families/<name>.toml`).

A spec holds what a family reads, as data:

- `uses = ["…"]`: other specs whose word lists, maps and pieces this one reads as its own.
- `[words]`: word lists. `{name}` in a pattern matches any one of them (a space in an entry matches
  any run of whitespace; the longest entry the rest of the pattern allows wins).
- `[maps]`: tables from what was written to what is stored ("para" -> "paragraph"); `{name}` in a
  pattern matches any one of what is written, as a word list does.
- `[parts]`: pieces of patterns shared by several of them; `{name}` in a pattern is the piece.
  A piece may use word lists and other pieces.
- `[expressions.<name>]`: single patterns the family's code tests (a guard, what states a change).
- `[[tables.<name>]]`: ordered lists of patterns; the first that matches (and is not negated) gives
  the value. An entry gives:
  - `match`: a verbose regex; letters match in any case unless `case = "sensitive"`;
  - what its match gives, one of: `value` (what is stored); `template` (the match's groups put
    into a string, by name or number: `"{rel}: {name}"`, nothing when one of them did not take
    part); `read` with `args` (a named reader in the family's module: `read = "city"`, `args = [2]`);
  - `negation_in_meaning = true` when a negation in the clause is part of what the pattern means
    ("don't be so verbose");
  - `gate` (a verbose regex, letters as written) or `gate_expression` (one of the expressions): a
    cheap test the pattern is tried only after.
- `[[searches.<name>]]`: ordered lists of patterns the family's code looks through itself, each
  with `match` and `case`, and what a match gives where it gives something by itself (as a table
  entry does: `value`, `template` or `read`). A module may fill names of its own in them (slots:
  the shapes of order are read with each family's kinds).
- `[families.<name>]`: the family: `rule`, `kind`, `attribute`, `table`, and optionally
  `changes` (an expression: wording in the match that states a change), `trigger`, `guard`,
  `temporal`, `confidence`.

The family's module keeps only what cannot be data: the readers that turn a match into a value, and
how a sentence is read with the patterns. Loading checks every name a spec uses (an unknown list,
piece, expression or reader is an error at import, not a pattern that silently matches nothing).
"""

from __future__ import annotations

import functools
import re
import tomllib
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from importlib import resources
from typing import Any

from ..models import Kind
from .family import Family
from .text import Getter, Pattern, alternation

_NAME = re.compile(r"(?<!\\)\{([a-z_][a-z0-9_]*)\}")
_GROUP = re.compile(r"\{(\w+)\}")
_ENTRY_KEYS = {"match", "case", "value", "read", "args", "template", "negation_in_meaning", "gate", "gate_expression"}
_FAMILY_KEYS = {"rule", "kind", "attribute", "table", "changes", "trigger", "guard", "temporal", "confidence"}


class SpecError(ValueError):
    """A family spec that cannot be read: the file, the entry and what is wrong with it."""


@dataclass(frozen=True, slots=True)
class _Read:
    """A reader of the family's module applied to a match, with the arguments the spec gives it."""

    reader: Callable[..., Any]
    args: tuple[Any, ...]

    def __call__(self, m: re.Match[str]) -> Any:
        return self.reader(m, *self.args)


@dataclass(frozen=True, slots=True)
class _Template:
    """The match's groups, by name or number, put into a string ("{rel}: {name}", "{1}个孩子"); a
    group that did not take part leaves no value (no hit)."""

    template: str

    def __call__(self, m: re.Match[str]) -> str | None:
        missing: list[str] = []  # the groups that did not take part

        def put(ref: re.Match[str]) -> str:
            name = ref.group(1)
            text = m.group(int(name) if name.isdigit() else name)
            if text is None:
                missing.append(name)
                return ""
            return text

        value = _GROUP.sub(put, self.template)
        return None if missing else value


@dataclass(frozen=True, slots=True)
class InGroup:
    """A reader of the text of a group: `fn` applied to the first of `groups` that took part and is
    not empty (the last one as it is, when none is); in a spec, `read = "clean"`, `args = [1]`."""

    fn: Callable[[Any], Any]

    def __call__(self, m: re.Match[str], *groups: int | str) -> Any:
        text = m.group(groups[0])
        for group in groups[1:]:
            text = text or m.group(group)
        return self.fn(text)


class Spec:
    """One spec file, read: its word lists, maps, pieces and expressions at once; its tables and
    families when the module asks for them with its readers."""

    def __init__(self, name: str, text: str | None = None) -> None:
        """The spec `memory/data/families/<name>.toml` (or, given, its `text`)."""
        self.name = name
        try:
            if text is None:
                source = resources.files("slotstream.memory").joinpath("data", "families", f"{name}.toml")
                text = source.read_text(encoding="utf-8")
            self._data: dict[str, Any] = tomllib.loads(text)
        except (OSError, tomllib.TOMLDecodeError) as e:
            raise SpecError(f"{name}.toml: {e}") from e
        unknown = set(self._data) - {"uses", "words", "maps", "parts", "expressions", "searches", "tables", "families"}
        if unknown:
            raise SpecError(f"{name}.toml: unknown sections {sorted(unknown)}")
        # the word lists, maps and pieces of the specs this one uses, then its own
        self.words: dict[str, list[str]] = {}
        self.maps: dict[str, dict[str, str]] = {}
        self._parts: dict[str, str] = {}
        for used in self._data.get("uses", []):
            other = _spec(used)
            self.words.update(other.words)
            self.maps.update(other.maps)
            self._parts.update(other._parts)
        self.words.update({k: list(v) for k, v in self._data.get("words", {}).items()})
        self.maps.update({k: dict(v) for k, v in self._data.get("maps", {}).items()})
        self._parts.update(self._data.get("parts", {}))
        self._expanded: dict[str, str] = {}
        self.expressions: dict[str, re.Pattern[str]] = {
            key: self._compile(entry, f"expressions.{key}") for key, entry in self._data.get("expressions", {}).items()
        }

    def searches(self, name: str) -> list[re.Pattern[str]]:
        """The patterns of `[[searches.<name>]]`, in order (where the family's code looks, one after
        the other, for what a value is read from)."""
        entries = self._data.get("searches", {}).get(name)
        if entries is None:
            raise SpecError(f"{self.name}.toml: no searches {name}")
        return [self._compile(entry, f"searches.{name}[{i}]") for i, entry in enumerate(entries)]

    def tagged(
        self, name: str, case: str | None = None, slots: Mapping[str, str] | None = None
    ) -> list[tuple[str, re.Pattern[str]]]:
        """The patterns of `[[searches.<name>]]` with the `value` each entry gives (what a match of
        it says: "intermediate" for "not an expert"). `slots` fills names the module gives (a shape
        of order read for each family: `{a}`, the kind that comes first); `case` overrides the
        entries' own."""
        entries = self._data.get("searches", {}).get(name)
        if entries is None:
            raise SpecError(f"{self.name}.toml: no searches {name}")
        if any("value" not in entry for entry in entries):
            raise SpecError(f"{self.name}.toml: searches.{name}: every entry gives a value")
        return [
            (
                str(entry["value"]),
                self._compile({**entry, "case": case} if case else entry, f"searches.{name}[{i}]", slots),
            )
            for i, entry in enumerate(entries)
        ]

    def pairs(
        self, name: str, readers: Mapping[str, Callable[..., Any]] | None = None
    ) -> list[tuple[re.Pattern[str], Any]]:
        """The patterns of `[[searches.<name>]]`, each with what its match gives: a `value`, a
        `template`, or a `read`er with its `args`, or nothing (a family that looks through them itself)."""
        entries = self._data.get("searches", {}).get(name)
        if entries is None:
            raise SpecError(f"{self.name}.toml: no searches {name}")
        out: list[tuple[re.Pattern[str], Any]] = []
        for i, entry in enumerate(entries):
            where = f"searches.{name}[{i}]"
            given = any(key in entry for key in ("value", "read", "template"))
            out.append((self._compile(entry, where), self._value(entry, where, readers or {}) if given else None))
        return out

    def part(self, name: str) -> str:
        """A piece with its names put in (for the module's own patterns built around it)."""
        return self._expand(f"{{{name}}}", f"parts.{name}")

    def _expand(
        self, source: str, where: str, seen: tuple[str, ...] = (), slots: Mapping[str, str] | None = None
    ) -> str:
        def put(m: re.Match[str]) -> str:
            key = m.group(1)
            if slots is not None and key in slots:
                return slots[key]
            if key in self.words:
                return f"(?:{alternation(self.words[key])})"
            if key in self.maps:
                return f"(?:{alternation(list(self.maps[key]))})"
            if key in self._parts:
                if key in seen:
                    raise SpecError(f"{self.name}.toml: {where}: the piece {key} uses itself")
                if key not in self._expanded:
                    self._expanded[key] = self._expand(self._parts[key], f"parts.{key}", (*seen, key))
                return self._expanded[key]
            raise SpecError(f"{self.name}.toml: {where}: no word list or piece named {key}")

        return _NAME.sub(put, source)

    def _compile(self, entry: Mapping[str, Any], where: str, slots: Mapping[str, str] | None = None) -> re.Pattern[str]:
        if "match" not in entry:
            raise SpecError(f"{self.name}.toml: {where}: no match")
        case = entry.get("case", "any")
        if case not in ("any", "sensitive"):
            raise SpecError(f"{self.name}.toml: {where}: case is 'any' or 'sensitive', not {case!r}")
        flags = re.VERBOSE | (re.IGNORECASE if case == "any" else 0)
        try:
            return re.compile(self._expand(entry["match"], where, slots=slots), flags)
        except re.error as e:
            raise SpecError(f"{self.name}.toml: {where}: {e}") from e

    def table(self, name: str, readers: Mapping[str, Callable[..., Any]]) -> list[Pattern]:
        """The patterns of `[[tables.<name>]]`, in order, their values read with `readers`."""
        entries = self._data.get("tables", {}).get(name)
        if entries is None:
            raise SpecError(f"{self.name}.toml: no table {name}")
        return [self._pattern(entry, f"tables.{name}[{i}]", readers) for i, entry in enumerate(entries)]

    def _pattern(self, entry: Mapping[str, Any], where: str, readers: Mapping[str, Callable[..., Any]]) -> Pattern:
        unknown = set(entry) - _ENTRY_KEYS
        if unknown:
            raise SpecError(f"{self.name}.toml: {where}: unknown keys {sorted(unknown)}")
        value = self._value(entry, where, readers)
        gate = None
        if "gate" in entry:
            gate = re.compile(self._expand(entry["gate"], where), re.VERBOSE)
        elif "gate_expression" in entry:
            if entry["gate_expression"] not in self.expressions:
                raise SpecError(f"{self.name}.toml: {where}: no expression named {entry['gate_expression']}")
            gate = self.expressions[entry["gate_expression"]]
        return Pattern(self._compile(entry, where), value, bool(entry.get("negation_in_meaning", False)), gate)

    def _value(self, entry: Mapping[str, Any], where: str, readers: Mapping[str, Callable[..., Any]]) -> Any:
        given = [key for key in ("value", "read", "template") if key in entry]
        if len(given) != 1:
            raise SpecError(f"{self.name}.toml: {where}: one of value, read or template, not {given}")
        if "value" in entry:
            return entry["value"]
        if "template" in entry:
            return _Template(entry["template"])
        reader = readers.get(entry["read"])
        if reader is None:
            raise SpecError(f"{self.name}.toml: {where}: no reader named {entry['read']}")
        return _Read(reader, tuple(entry.get("args", ())))

    def family(self, name: str, readers: Mapping[str, Callable[..., Any]] | None = None) -> Family:
        """The family `[families.<name>]`, its table read with `readers`."""
        entry = self._data.get("families", {}).get(name)
        if entry is None:
            raise SpecError(f"{self.name}.toml: no family {name}")
        unknown = set(entry) - _FAMILY_KEYS
        if unknown:
            raise SpecError(f"{self.name}.toml: families.{name}: unknown keys {sorted(unknown)}")
        try:
            kind = Kind(entry["kind"])
        except (KeyError, ValueError) as e:
            raise SpecError(f"{self.name}.toml: families.{name}: kind {entry.get('kind')!r}") from e

        def expression(key: str) -> re.Pattern[str] | None:
            if key not in entry:
                return None
            if entry[key] not in self.expressions:
                raise SpecError(f"{self.name}.toml: families.{name}: no expression named {entry[key]}")
            return self.expressions[entry[key]]

        return Family(
            entry["rule"],
            kind,
            entry["attribute"],
            self.table(entry["table"], readers or {}),
            temporal=bool(entry.get("temporal", False)),
            confidence=float(entry.get("confidence", 0.9)),
            changes=expression("changes"),
            trigger=expression("trigger"),
            guard=expression("guard"),
        )


@functools.cache
def _spec(name: str) -> Spec:
    """A spec another one uses, read once."""
    return Spec(name)


Reader = Callable[..., Any]
__all__ = ["Getter", "InGroup", "Reader", "Spec", "SpecError"]
