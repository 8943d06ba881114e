"""Scenario runner (docs/scenarios.md): apply record/command lines, answer query lines as of their `at`.

One JSON object per line; blank lines and lines starting with `#` are ignored. Besides the
design's four line types, a record/command line may carry `"expect": {"rejected": "<reason>"}` or
`"expect": {"outcome": "<outcome>"}`, and a query's `expect` may also name `used` (how many records).
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

import orjson

from slotstream.memory.errors import Rejected
from slotstream.memory.models import ContextRequest, ContextResponse, OpIn, parse_time

LINE_TYPES = ("turn", "record", "command", "query")


class Backend(Protocol):
    """Where scenario lines go: the engine directly, or the Kafka pipeline."""

    def apply(self, op: OpIn) -> Any: ...

    def turn(self, at: Any, turn: dict[str, Any], op_id: str) -> Any: ...

    def context(self, request: ContextRequest, at: Any) -> ContextResponse: ...


@dataclass
class LineResult:
    source: str
    line: int
    kind: str
    ok: bool
    message: str
    counted: bool = True


@dataclass
class ScenarioReport:
    results: list[LineResult] = field(default_factory=list)

    @property
    def passed(self) -> int:
        return sum(1 for r in self.results if r.counted and r.ok)

    @property
    def failed(self) -> int:
        return sum(1 for r in self.results if r.counted and not r.ok)


def read_lines(path: str | Path) -> list[tuple[int, dict[str, Any] | Exception]]:
    out: list[tuple[int, dict[str, Any] | Exception]] = []
    for n, raw in enumerate(Path(path).read_text(encoding="utf-8").splitlines(), start=1):
        text = raw.strip()
        if not text or text.startswith("#"):
            continue
        try:
            obj = orjson.loads(text)
            out.append((n, obj if isinstance(obj, dict) else ValueError("line is not a JSON object")))
        except orjson.JSONDecodeError as err:
            out.append((n, err))
    return out


def check_context(text: str, expect: dict[str, Any], used: int) -> list[str]:
    problems = []
    low = text.casefold()
    for s in expect.get("include", []):
        if s.casefold() not in low:
            problems.append(f"missing {s!r}")
    for s in expect.get("exclude", []):
        if s.casefold() in low:
            problems.append(f"present {s!r}")
    if "used" in expect and used != expect["used"]:
        problems.append(f"used {used} records, expected {expect['used']}")
    return problems


def run_lines(
    backend: Backend,
    lines: Iterable[tuple[int, dict[str, Any] | Exception]],
    source: str,
    emit: Callable[[LineResult], None] = lambda r: None,
) -> ScenarioReport:
    report = ScenarioReport()

    def done(r: LineResult) -> None:
        report.results.append(r)
        emit(r)

    for n, obj in lines:
        if isinstance(obj, Exception):
            done(LineResult(source, n, "invalid", False, f"invalid_json: {obj}"))
            continue
        kinds = [k for k in LINE_TYPES if k in obj]
        if len(kinds) != 1 or "at" not in obj:
            done(
                LineResult(source, n, "invalid", False, "a line needs `at` and exactly one of " + "/".join(LINE_TYPES))
            )
            continue
        kind = kinds[0]
        expect = obj.get("expect") or {}
        try:
            at = parse_time(obj["at"])
        except (ValueError, TypeError) as err:
            done(LineResult(source, n, kind, False, f"invalid at: {err}"))
            continue
        op_id = f"{Path(source).name}:{n}"
        if kind == "query":
            try:
                req = ContextRequest.model_validate({**obj["query"], "explain": True})
                resp = backend.context(req, at)
            except (Rejected, ValueError) as err:
                done(LineResult(source, n, kind, False, f"query rejected: {err}"))
                continue
            problems = check_context(resp.context, expect, len(resp.used_ids))
            label = (req.text or "")[:48]
            done(
                LineResult(
                    source,
                    n,
                    kind,
                    not problems,
                    f"{label!r}: " + ("; ".join(problems) if problems else f"ok ({len(resp.used_ids)} records)"),
                )
            )
            continue
        try:
            if kind == "turn":
                result = backend.turn(at, obj["turn"], op_id)
            else:
                result = backend.apply(OpIn(at=at, op_id=op_id, **{kind: obj[kind]}))
        except NotImplementedError as err:
            done(LineResult(source, n, kind, False, f"unsupported: {err}"))
            continue
        outcome = getattr(result, "outcome", "applied")
        reason = getattr(result, "reason", None)
        if "rejected" in expect:
            ok = outcome == "rejected" and reason == expect["rejected"]
            done(
                LineResult(
                    source,
                    n,
                    kind,
                    ok,
                    f"{outcome} {reason or ''}".strip() + ("" if ok else f" (expected rejected {expect['rejected']})"),
                )
            )
        elif "outcome" in expect:
            ok = outcome == expect["outcome"] and ("reason" not in expect or reason == expect["reason"])
            done(
                LineResult(
                    source,
                    n,
                    kind,
                    ok,
                    f"{outcome} {reason or ''}".strip()
                    + ("" if ok else f" (expected {expect['outcome']} {expect.get('reason', '')})"),
                )
            )
        elif outcome == "rejected":
            # an invalid line is reported with its reason and the run goes on; state is untouched
            done(
                LineResult(source, n, kind, True, f"rejected {reason}: {getattr(result, 'detail', '')}", counted=False)
            )
        else:
            done(LineResult(source, n, kind, True, f"{outcome}", counted=False))
    return report


def fresh_namespace(prefix: str = "scn") -> str:
    return f"{prefix}-{uuid.uuid4().hex[:12]}"


@dataclass
class TurnResult:
    results: list[Any]
    refused: list[str]

    @property
    def outcome(self) -> str:
        outs = [r.outcome for r in self.results]
        return outs[0] if len(set(outs)) == 1 else ("refused" if self.refused and not outs else "applied")

    @property
    def reason(self) -> str | None:
        reasons = [r.reason for r in self.results if r.reason] + self.refused
        return reasons[0] if reasons else None

    detail = ""


class DirectBackend:
    """Scenario lines straight into the engine (no Kafka)."""

    def __init__(self, engine: Any, extractor: Any = None) -> None:
        from slotstream.processors.extraction import ExtractionService

        self.engine = engine
        self.extraction = ExtractionService(extractor)

    def apply(self, op: OpIn) -> Any:
        return self.engine.apply(op)

    def turn(self, at: Any, turn: dict[str, Any], op_id: str) -> Any:
        """Extraction in-process (the same service the pipeline's processor runs), then the engine."""
        from slotstream.memory.extraction import Turn

        parsed = Turn.model_validate({**turn, "at": at, "turn_id": op_id})
        out = self.extraction.ops_for_turn(parsed, op_prefix=op_id)
        results = self.engine.apply_many(out.ops)
        return TurnResult(results, out.refused)

    def context(self, request: ContextRequest, at: Any) -> ContextResponse:
        return self.engine.context(request, at)
