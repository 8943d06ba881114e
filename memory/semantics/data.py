"""The semantic package's data files (`memory/data/`), read once."""

from __future__ import annotations

import json
from functools import cache
from importlib import resources
from typing import Any


@cache
def data_file(name: str) -> Any:
    return json.loads(resources.files("slotstream.memory").joinpath("data", name).read_text(encoding="utf-8"))


def plain_words(language: str) -> list[str]:
    """Words with no topic in them, in a language (`plain_words.json`)."""
    words: list[str] = data_file("plain_words.json")[language]
    return words
