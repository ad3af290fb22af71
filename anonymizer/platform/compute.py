"""Request-time computations (inspecting posts) under one deadline, a few at a time per web process.

A web process has a handful of threads; CPU-bound work in more than one of them at once only shares the
interpreter, while the threads it holds are ones /healthz and the pages cannot use. So each process runs at
most COMPUTE_SLOTS such computations at a time; a request waits for a slot within its own deadline and is
answered 503 if none frees up, rather than queueing work no client will still be waiting for."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager

from django.conf import settings
from rest_framework.exceptions import APIException

from anonymizer.platform.deadline import Deadline, DeadlineExceeded

RETRY_AFTER_SECONDS = 5


class ComputeLimit(APIException):
    """A computation stopped at its deadline, or could not start before it: 503 naming the limit."""

    status_code = 503
    default_code = "compute_limit"

    def __init__(self, detail: str, *, post: int | None = None) -> None:
        super().__init__(detail)
        self.post = post  # which of the request's posts was being processed (0-based), when one was
        self.wait = RETRY_AFTER_SECONDS


def request_deadline() -> Deadline:
    """The deadline of one request's computation, from now: INSPECT_DEADLINE_SECONDS."""
    return Deadline.after(settings.INSPECT_DEADLINE_SECONDS)


def too_slow(exc: DeadlineExceeded, what: str, *, post: int | None = None) -> ComputeLimit:
    return ComputeLimit(f"{what} took longer than the limit of {exc.seconds:g} s (INSPECT_DEADLINE_SECONDS) and "
                        "was stopped; send fewer or shorter posts per request.", post=post)


_slots: dict[int, threading.BoundedSemaphore] = {}
_slots_lock = threading.Lock()


def _semaphore() -> threading.BoundedSemaphore:
    size = settings.COMPUTE_SLOTS  # read per call: tests change it
    with _slots_lock:
        if size not in _slots:
            _slots[size] = threading.BoundedSemaphore(size)
        return _slots[size]


@contextmanager
def compute_slot(deadline: Deadline, what: str) -> Iterator[None]:
    """Hold one of this process's COMPUTE_SLOTS while the block runs; ComputeLimit (503) if none frees up
    before the deadline."""
    semaphore = _semaphore()
    if not semaphore.acquire(timeout=max(0.0, deadline.remaining())):
        raise ComputeLimit(f"{what} could not start: this server is busy with other requests (COMPUTE_SLOTS = "
                           f"{settings.COMPUTE_SLOTS} at a time per process) for longer than the limit of "
                           f"{deadline.seconds:g} s (INSPECT_DEADLINE_SECONDS); retry in a few seconds.")
    try:
        yield
    finally:
        semaphore.release()
