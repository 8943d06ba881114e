"""Scenario runner (docs/evaluation.md): apply record/command lines, answer query lines as of their `at`.

One JSON object per line; blank lines and lines starting with `#` are ignored. Besides the
design's four line types, a record/command line may carry `"expect": {"rejected": "<reason>"}` or
`"expect": {"outcome": "<outcome>"}`, and a query's `expect` may also name `used` (how many records).
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

import orjson

from slotstream.memory.errors import Rejected
from slotstream.memory.models import ContextRequest, ContextResponse, OpIn, parse_time

if TYPE_CHECKING:
    from slotstream.config.settings import Settings

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


def _query_result(backend: Backend, obj: dict[str, Any], at: Any, where: tuple[str, int]) -> LineResult:
    """A query line, answered as of its `at` and checked against its `expect`."""
    source, n = where
    try:
        req = ContextRequest.model_validate({**obj["query"], "explain": True})
        resp = backend.context(req, at)
    except (Rejected, ValueError) as err:
        return LineResult(source, n, "query", False, f"query rejected: {err}")
    problems = check_context(resp.context, obj.get("expect") or {}, len(resp.used_ids))
    label = (req.text or "")[:48]
    text = "; ".join(problems) if problems else f"ok ({len(resp.used_ids)} records)"
    return LineResult(source, n, "query", not problems, f"{label!r}: {text}")


def _write_result(backend: Backend, obj: dict[str, Any], kind: str, at: Any, where: tuple[str, int]) -> LineResult:
    """A turn, record or command line, applied, and its outcome checked against its `expect`."""
    source, n = where
    expect = obj.get("expect") or {}
    op_id = f"{Path(source).name}:{n}"
    try:
        if kind == "turn":
            result = backend.turn(at, obj["turn"], op_id)
        else:
            result = backend.apply(OpIn(at=at, op_id=op_id, **{kind: obj[kind]}))
    except NotImplementedError as err:
        return LineResult(source, n, kind, False, f"unsupported: {err}")
    outcome = getattr(result, "outcome", "applied")
    reason = getattr(result, "reason", None)
    said = f"{outcome} {reason or ''}".strip()
    if "rejected" in expect:
        ok = outcome == "rejected" and reason == expect["rejected"]
        return LineResult(source, n, kind, ok, said + ("" if ok else f" (expected rejected {expect['rejected']})"))
    if "outcome" in expect:
        ok = outcome == expect["outcome"] and ("reason" not in expect or reason == expect["reason"])
        wanted = f" (expected {expect['outcome']} {expect.get('reason', '')})"
        return LineResult(source, n, kind, ok, said + ("" if ok else wanted))
    if outcome == "rejected":
        # an invalid line is reported with its reason and the run goes on; state is untouched
        detail = getattr(result, "detail", "")
        return LineResult(source, n, kind, True, f"rejected {reason}: {detail}", counted=False)
    return LineResult(source, n, kind, True, f"{outcome}", counted=False)


def _line_result(backend: Backend, obj: dict[str, Any] | Exception, where: tuple[str, int]) -> LineResult:
    source, n = where
    if isinstance(obj, Exception):
        return LineResult(source, n, "invalid", False, f"invalid_json: {obj}")
    kinds = [k for k in LINE_TYPES if k in obj]
    if len(kinds) != 1 or "at" not in obj:
        return LineResult(source, n, "invalid", False, "a line needs `at` and exactly one of " + "/".join(LINE_TYPES))
    kind = kinds[0]
    try:
        at = parse_time(obj["at"])
    except (ValueError, TypeError) as err:
        return LineResult(source, n, kind, False, f"invalid at: {err}")
    if kind == "query":
        return _query_result(backend, obj, at, where)
    return _write_result(backend, obj, kind, at, where)


def run_lines(
    backend: Backend,
    lines: Iterable[tuple[int, dict[str, Any] | Exception]],
    source: str,
    emit: Callable[[LineResult], None] = lambda r: None,
) -> ScenarioReport:
    """Each line in order: applied, or answered and checked; every result reported to `emit`."""
    report = ScenarioReport()
    for n, obj in lines:
        result = _line_result(backend, obj, (source, n))
        report.results.append(result)
        emit(result)
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


def run_files_direct(
    files: Iterable[Path], settings: Settings, emit: Callable[[LineResult], None] = lambda _: None
) -> tuple[int, int]:
    """Each scenario file straight into the engine, in a fresh namespace dropped after it: (passed,
    failed) over them all."""
    from slotstream.local.redis_server import configured_or_local
    from slotstream.state.engine import Engine
    from slotstream.state.namespaces import drop_namespace
    from slotstream.worker.wiring import extractor_for

    passed = failed = 0
    with configured_or_local(settings) as client:
        for path in files:
            ns = fresh_namespace()
            try:
                backend = DirectBackend(Engine(client, namespace=ns), extractor_for(settings))
                report = run_lines(backend, read_lines(path), str(path), emit=emit)
            finally:
                drop_namespace(client, ns)
            passed += report.passed
            failed += report.failed
    return passed, failed
