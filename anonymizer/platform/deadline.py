"""A point in time a computation must finish by, checked where it can stop cleanly (no Django here: the
capabilities' cores take one). A request's work is bounded first by work budgets, which give the same answer on
any machine; the deadline is the backstop that keeps a web worker from being killed mid-request."""

from __future__ import annotations

import time
from dataclasses import dataclass


class DeadlineExceeded(RuntimeError):
    """The computation ran past its deadline and stopped; nothing it would have returned was returned."""

    def __init__(self, seconds: float) -> None:
        super().__init__(f"stopped after its limit of {seconds:g} s")
        self.seconds = seconds


@dataclass(frozen=True)
class Deadline:
    """``seconds`` from when it was made (monotonic clock)."""

    seconds: float
    expires: float

    @classmethod
    def after(cls, seconds: float) -> Deadline:
        return cls(seconds, time.monotonic() + seconds)

    def remaining(self) -> float:
        return self.expires - time.monotonic()

    def check(self) -> None:
        """Raise DeadlineExceeded once the deadline has passed."""
        if time.monotonic() > self.expires:
            raise DeadlineExceeded(self.seconds)


def check(deadline: Deadline | None) -> None:
    """``deadline.check()``, for code that may run without one."""
    if deadline is not None:
        deadline.check()
