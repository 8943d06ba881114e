"""The project speaks of the product only: no tracked file tells how the project was developed
(numbered stops or issues, sessions, throwaway measurements, burned holdouts, rounds of work),
and the docs quote no commit hashes or hours of the day."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
# wording about how the work was organised, anywhere
DEVELOPMENT = re.compile(
    r"(?i)\bstops?\s+\d+\b|\bissues?\s+#?\d+\b|\bthe\s+issue'?s\s+targets?\b|\bmilestones?\b|\bthis\s+session(?!\s+only)"
    r"\b|\bthrowaway\b|\bholdout\s+(?:was\s+|is\s+)?burn(?:ed|t)\b|\bburn(?:ed|t)\s+(?:the\s+)?holdout\b|"
    r"\b(?:first|second|third|fourth|last|previous|next)\s+round\s+of\s+(?:work|tuning|changes)\b|"
    r"\b(?:first|second|third)\s+round\b(?!\s+trip)"
)
# in prose (docs and comments): a commit hash, an hour of the day in UTC
COMMIT = re.compile(r"(?<![\w/.-])(?=[0-9a-f]*[a-f])(?=[0-9a-f]*[0-9])[0-9a-f]{7,12}(?![\w/.-])")
HOUR = re.compile(r"\b\d{1,2}:\d{2}(?:[–-]\d{1,2}:\d{2})?\s+UTC\b")
SKIPPED = ("slotstream/eval/corpora/", "tests/scenarios/", "tests/unit/test_wording.py")


def tracked_text_files() -> list[Path]:
    listed = subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True, check=True).stdout
    out = []
    for name in listed.split():
        path = ROOT / name
        if name.startswith(SKIPPED) or path.is_symlink() or not path.is_file():
            continue
        try:
            path.read_text(encoding="utf-8")
        except UnicodeDecodeError:
            continue
        out.append(path)
    return out


def findings(path: Path, text: str) -> list[str]:
    found = [f"{path.relative_to(ROOT)}: {m.group(0)!r}" for m in DEVELOPMENT.finditer(text)]
    if path.suffix == ".md":
        found += [f"{path.relative_to(ROOT)}: hash {m.group(0)!r}" for m in COMMIT.finditer(text)]
        found += [f"{path.relative_to(ROOT)}: hour {m.group(0)!r}" for m in HOUR.finditer(text)]
    return found


def test_no_tracked_file_speaks_of_how_the_project_was_developed() -> None:
    problems = [f for path in tracked_text_files() for f in findings(path, path.read_text(encoding="utf-8"))]
    assert not problems, "\n".join(problems[:50])


def test_the_check_sees_each_kind_of_wording() -> None:
    probe = ROOT / "docs" / "probe.md"
    samples = [
        "at stop 31 the figure moved",
        "see issue 35",
        "measured in this session",
        "a throwaway measurement",
        "the holdout was burned",
        "the second round of tuning",
        "at 74e1f31 it was slower",
        "between 18:20 UTC and",
    ]
    for sample in samples:
        assert findings(probe, sample), sample
    for fine in ("the round trip", "(this session only)", "three rounds, medians printed", "sha1 of the slot"):
        assert not findings(probe, fine), fine
