"""Liveness of the parts Kakurega needs: the database, the broker and at least one worker."""

from __future__ import annotations

import time
from concurrent.futures import ThreadPoolExecutor
from concurrent.futures import TimeoutError as FutureTimeout

from django.conf import settings
from django.db import connection

from webapp.celery import app as celery_app

# Checks run in threads of their own so each has a deadline whatever its client library does (redis-py retries
# a timed-out command; a hung server would otherwise hold /healthz for many socket timeouts).
_CHECKS = ThreadPoolExecutor(max_workers=4, thread_name_prefix="healthz")


def _run_closing_connection(check):
    try:
        return check()
    finally:
        connection.close()  # the check thread's own database connection


def _timed(check, deadline: float) -> dict:
    started = time.perf_counter()
    future = _CHECKS.submit(_run_closing_connection, check)
    try:
        detail = future.result(timeout=deadline)
        ok = True
    except FutureTimeout:
        detail, ok = f"no answer within {deadline:g} s", False
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
    """Database and broker, then the workers: answers within HEALTH_CHECK_SECONDS + the worker ping timeout."""
    deadline = settings.HEALTH_CHECK_SECONDS
    checks = {"database": _timed(_database, deadline), "broker": _timed(_broker, deadline)}
    # Without a broker, pinging workers would only wait for the timeout.
    checks["workers"] = (_timed(_workers, settings.HEALTH_WORKER_TIMEOUT_SECONDS + 0.5) if checks["broker"]["ok"]
                         else {"ok": False, "detail": "broker down", "ms": 0})
    return {"ok": all(check["ok"] for check in checks.values()), "checks": checks}
