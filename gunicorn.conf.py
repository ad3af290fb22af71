"""Gunicorn settings read from the working directory by `gunicorn` (Procfile, make run)."""

import os

# Threads, not one request per process: a long inspection holds a thread, not the process, so /healthz and
# the pages keep being answered (webapp/settings.py COMPUTE_SLOTS bounds the CPU-bound work per process).
# The master only kills a process that stops answering its heartbeat for `timeout` seconds, which a busy thread
# cannot cause; every request-time computation stops at INSPECT_DEADLINE_SECONDS, well under it.
worker_class = "gthread"
threads = int(os.environ.get("WEB_THREADS", "8"))
timeout = int(os.environ.get("WEB_TIMEOUT_SECONDS", "30"))


def post_worker_init(worker) -> None:
    """Load the active location models and their tokenizers before the first request, so the first visitor
    of each worker does not wait for MeCab / spaCy to start."""
    try:
        from anonymizer.location.web.selectors import warm_location_models

        warm_location_models()
    except Exception as exc:  # a worker that cannot warm up still serves; the first request loads lazily
        worker.log.warning("Could not preload the location models: %s", exc)
