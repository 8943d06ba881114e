"""The published OpenAPI document is the sidecar's contract: Schemathesis fuzzes a real sidecar (its
own Redis namespace, Kafka topics and worker) against `GET /openapi.json`, with every check, valid
and invalid requests (examples, coverage, fuzzing) and the stateful phase along the document's
links, and must find no failure. The long suite: a few minutes."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from support import Service

pytestmark = [pytest.mark.long, pytest.mark.kafka, pytest.mark.integration]

MAX_EXAMPLES = 100  # per operation and phase: the run stays within a few minutes on a 2-core machine
# Ingest takes records, commands and turns the engine's rules judge beyond what a JSON Schema can
# state (an event time ahead of the server's clock, a secret in a value, a record kind's needs): the
# document lists these as 422 reason codes, and valid-by-schema data there may get that 422.
RULED_BY_THE_ENGINE = ("/v1/turns", "/v1/ops")
# A correction's value is a record value, held to the same rules (its size and nesting, integers
# within 64 bits, no secret): the document states them in words and as 422 reason codes.
RULED_VALUES = ("/v1/users/{user}/memories/{record_id}/correct",)
# A control on a record that is there but not in a state it applies to answers 409, as documented.
CONTROLS = (
    "/v1/users/{user}/memories/{record_id}",
    "/v1/users/{user}/memories/{record_id}/confirm",
    "/v1/users/{user}/memories/{record_id}/reject",
    "/v1/users/{user}/memories/{record_id}/retract",
)
RULED = '"2xx", "401", "403", "404", "409", "422", "429"'
CONTROLLED = '"2xx", "401", "403", "404", "409", "429"'
# A forget (DELETE of a memory) keeps a tombstone, its value and statement gone, that the record's
# reads and history show by design: the record id stays readable after the DELETE.
EXCLUDED_CHECKS = "use_after_free"
CONFIG = """\
[checks.positive_data_acceptance]
expected-statuses = ["2xx", "401", "403", "404", "429"]
{operations}
"""
OPERATION = """
[[operations]]
include-path = "{path}"
checks.positive_data_acceptance.expected-statuses = [{statuses}]
"""


@pytest.mark.timeout(900)
def test_the_sidecar_keeps_its_published_contract(service: Service, tenant: str, tmp_path: Path) -> None:
    key = service.key(tenant)
    config = tmp_path / "schemathesis.toml"
    operations = [OPERATION.format(path=p, statuses=RULED) for p in (*RULED_BY_THE_ENGINE, *RULED_VALUES)]
    operations += [OPERATION.format(path=p, statuses=CONTROLLED) for p in CONTROLS]
    config.write_text(CONFIG.format(operations="".join(operations)))
    command = [
        *(sys.executable, "-m", "schemathesis.cli", "--config-file", str(config), "run"),
        f"{service.url}/openapi.json",
        *("--checks", "all", "--exclude-checks", EXCLUDED_CHECKS, "--mode", "all"),
        *("--max-examples", str(MAX_EXAMPLES)),
        *("--phases", "examples,coverage,fuzzing,stateful", "--seed", "1"),
        *("--header", f"Authorization: Bearer {key}", "--request-timeout", "40"),
        *("--report", "junit", "--report-dir", str(tmp_path)),
        "--no-color",
    ]
    run = subprocess.run(command, capture_output=True, text=True, timeout=840, check=False, cwd=tmp_path)  # its cache
    summary = run.stdout[-12_000:]
    print(summary)  # shown with -s: the phases, the links covered, any warnings
    assert run.returncode == 0, summary + run.stderr[-3000:]
    assert "Failures:" not in run.stdout and "Tested: 16" in run.stdout, summary
