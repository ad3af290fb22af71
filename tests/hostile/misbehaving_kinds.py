"""Job kinds that misbehave on purpose, for the fault drills: the test process registers them through the
``misbehaving_kinds`` fixture, the worker processes it starts import this module (``celery --include``).

They stand for what a real job can do on hostile input: spin inside a C extension that holds the GIL and never
returns to Python (a catastrophic regular expression), or loop in Python without reporting progress; and for a
job that keeps sensitive scratch files while it works, when its worker is killed."""

from __future__ import annotations

import re
import time

from rest_framework import serializers

from anonymizer.platform.jobs.registry import JobKind, get_job_kind, register


class _NoParams(serializers.Serializer):
    pass


def _stuck_in_c(job, run) -> dict:
    run.progress(0, 1, "Matching")
    # Exponential backtracking inside the re module's C engine: no signal handler, no other thread of this
    # process runs until it returns (it would take longer than the age of the universe).
    re.match(r"(a+)+$", "a" * 64 + "!")
    return {}


def _silent_python_loop(job, run) -> dict:
    run.progress(0, 1, "Looping")
    while True:  # Python bytecode: a soft time limit interrupts it; it never reports progress, so never sees a cancel
        time.sleep(0.05)


def _scratch_then_work(job, run) -> dict:
    # What deidentify_posts keeps while it runs: released text beside the original coordinates and user.
    with run.scratch_path("deidentified.csv").open("w", encoding="utf-8") as scratch:
        scratch.write("text,lat,lon,user\n[place] tonight,35.6812,139.7671,u42\n")
    while True:  # works on, reporting progress, until its worker is killed or the job is cancelled
        run.progress(0, 1, "Working")
        time.sleep(0.05)


KINDS = [
    JobKind(name="test_stuck_in_c", label="Test: stuck in C code", run=_stuck_in_c, params_serializer=_NoParams),
    JobKind(name="test_silent_loop", label="Test: silent Python loop", run=_silent_python_loop,
            params_serializer=_NoParams),
    JobKind(name="test_scratch_then_work", label="Test: scratch file, then work", run=_scratch_then_work,
            params_serializer=_NoParams),
]


def register_all() -> None:
    for kind in KINDS:
        try:
            get_job_kind(kind.name)
        except LookupError:
            register(kind)


register_all()
