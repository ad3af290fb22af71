"""Liveness of the parts Kakurega needs: the database, the broker and at least one worker."""

from __future__ import annotations

import time

from django.conf import settings
from django.db import connection

from webapp.celery import app as celery_app


def _timed(check) -> dict:
    started = time.perf_counter()
    try:
        detail = check()
        ok = True
    except Exception as exc:  # any failure of a dependency is reported, never raised
        detail, ok = f"{type(exc).__name__}: {exc}", False
    return {"ok": ok, "detail": detail, "ms": round((time.perf_counter() - started) * 1000, 1)}


def _database() -> str:
    with connection.cursor() as cursor:
        cursor.execute("SELECT 1")
        cursor.fetchone()
    return connection.vendor


def _broker() -> str:
    with celery_app.connection_for_write() as conn:
        conn.ensure_connection(max_retries=1, timeout=2)
        conn.default_channel.client.ping()
    return conn.as_uri()  # the password, if any, is masked


def _workers() -> list[str]:
    # limit=1: answer as soon as one worker replies instead of always waiting out the timeout.
    replies = celery_app.control.ping(timeout=settings.HEALTH_WORKER_TIMEOUT_SECONDS, limit=1)
    names = sorted(name for reply in replies for name in reply)
    if not names:
        raise RuntimeError("no worker answered a ping")
    return names


def check_health() -> dict:
    checks = {"database": _timed(_database), "broker": _timed(_broker)}
    # Without a broker, pinging workers would only wait for the timeout.
    checks["workers"] = _timed(_workers) if checks["broker"]["ok"] else {"ok": False, "detail": "broker down", "ms": 0}
    return {"ok": all(check["ok"] for check in checks.values()), "checks": checks}
