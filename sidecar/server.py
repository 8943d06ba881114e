"""Serving the sidecar: uvicorn (uvloop, httptools) with several worker processes."""

from __future__ import annotations

import os
import tempfile

import uvicorn

from slotstream.settings import Settings


def serve(settings: Settings) -> None:
    """Run until stopped. The worker processes read their settings from the environment."""
    os.environ.update(settings.to_env())
    if settings.sidecar_workers > 1 and not os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
        # request metrics are summed over the worker processes (prometheus_client multiprocess mode)
        os.environ["PROMETHEUS_MULTIPROC_DIR"] = tempfile.mkdtemp(prefix="slotstream-metrics-")
    uvicorn.run(
        "slotstream.sidecar.app:app_from_env",
        factory=True,
        host=settings.sidecar_host,
        port=settings.sidecar_port,
        workers=settings.sidecar_workers,
        loop="uvloop",
        http="httptools",
        log_level="warning",
        access_log=False,
        timeout_graceful_shutdown=10,
    )
