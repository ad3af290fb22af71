"""Gunicorn settings read from the working directory by `gunicorn` (Procfile, make run)."""

import json
import os

from gunicorn import util

# Threads, not one request per process: a long inspection holds a thread, not the process, so /healthz and
# the pages keep being answered (webapp/settings.py COMPUTE_SLOTS bounds the CPU-bound work per process).
# The master only kills a process that stops answering its heartbeat for `timeout` seconds, which a busy thread
# cannot cause; every request-time computation stops at INSPECT_DEADLINE_SECONDS, well under it.
worker_class = "gthread"
threads = int(os.environ.get("WEB_THREADS", "8"))
timeout = int(os.environ.get("WEB_TIMEOUT_SECONDS", "30"))

# The request line gunicorn reads at most (its own maximum; the default is half): 200 job ids in
# /api/v1/jobs/status/?ids= take about 7,800 characters. Past it gunicorn answers 414 itself, before Django;
# anonymizer.platform.api_errors.MAX_QUERY_STRING_CHARS refuses the same length behind any server.
limit_request_line = 8190
# gunicorn's defaults, stated: a request's header fields and the length of each.
limit_request_fields = 100
limit_request_field_size = 8190


def _write_json_error(sock, status_int: int, reason: str, mesg: str) -> None:
    """What gunicorn answers a request it refuses before the app sees it (a request line or headers too long, a
    malformed request): the API's error shape, JSON {"detail": ..., "code": ...}, instead of gunicorn's HTML page.
    The detail stays English: the request was not read, so its language is not known."""
    code = {400: "malformed_request", 414: "query_too_long"}.get(
        status_int, "_".join(reason.lower().replace("-", " ").split()) or "error")
    body = json.dumps({"detail": f"{reason}: {mesg}" if mesg else reason, "code": code}).encode()
    head = (f"HTTP/1.1 {status_int} {reason}\r\nConnection: close\r\nContent-Type: application/json\r\n"
            f"Content-Length: {len(body)}\r\n\r\n")
    util.write_nonblock(sock, head.encode("latin1") + body)


def post_fork(server, worker) -> None:
    """Each worker answers its refusals as JSON (gunicorn's workers write them with gunicorn.util.write_error)."""
    util.write_error = _write_json_error


def post_worker_init(worker) -> None:
    """Load the active location models (tokenizers, gazetteer indexes) and the time parser before the first
    request, so the first visitor of each worker does not wait for MeCab / spaCy to start."""
    try:
        from anonymizer.location.web.selectors import warm_location_models

        warm_location_models()
    except Exception as exc:  # a worker that cannot warm up still serves; the first request loads lazily
        worker.log.warning("Could not preload the location models: %s", exc)
