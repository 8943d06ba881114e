"""The parts of composite keys (Redis key names and hash tags, Kafka record keys, the binding of a
user's data key, expiry index members, file names), escaped so that two different tuples of ids
never make the same key, whatever characters the ids hold.

Percent-escaping (UTF-8 bytes as `%XX`) of every character outside `[A-Za-z0-9_.@+-]`: the escaped
form holds no separator the keys use (":", "/", "{", "}", "|"), no glob or whitespace character,
and "%" only as an escape, so a key splits back into exactly the parts it was made of. An id the
API accepts (`memory.models.ID_RE`) is made of those characters only: its escaped form is itself,
so keys written for such ids keep their names.

Pure: no I/O.
"""

from __future__ import annotations

import re
import string

# the characters that stand for themselves
SAFE = frozenset(string.ascii_letters + string.digits + "_.@+-")
_ESCAPED = re.compile(r"^(?:[A-Za-z0-9_.@+\-]|%[0-9A-F]{2})*$")
_HEX_PAIR = re.compile(r"%([0-9A-F]{2})")


class MalformedKey(ValueError):
    """A key, or a part of one, that is not what `escape`/`join` make."""


def escape(part: str) -> str:
    if all(c in SAFE for c in part):
        return part  # every accepted id: no work
    return "".join(c if c in SAFE else "".join(f"%{b:02X}" for b in c.encode("utf-8", "surrogatepass")) for c in part)


def unescape(text: str) -> str:
    if "%" not in text and all(c in SAFE for c in text):
        return text
    if not _ESCAPED.fullmatch(text):
        raise MalformedKey(f"not an escaped key part: {text[:64]!r}")
    raw = _HEX_PAIR.sub(lambda m: chr(int(m.group(1), 16)), text).encode("latin-1")
    try:
        return raw.decode("utf-8", "surrogatepass")
    except UnicodeDecodeError:
        raise MalformedKey(f"an escaped key part that is not UTF-8: {text[:64]!r}") from None


def join(parts: tuple[str, ...] | list[str], separator: str = "/") -> str:
    return separator.join(escape(p) for p in parts)


def split(key: str, count: int, separator: str = "/") -> list[str]:
    """The `count` parts `join` made `key` from (MalformedKey when it was not made so)."""
    pieces = key.split(separator)
    if len(pieces) != count:
        raise MalformedKey(f"{count} parts expected, {len(pieces)} found")
    return [unescape(p) for p in pieces]
