"""The recognizer the engine tests share: the default TermRecognizer behind one term cache for the whole run."""

from __future__ import annotations

import contextlib
import fcntl
import os
from pathlib import Path

import pytest

from anonymizer.recognize import TermCache, TermRecognizer, recognize_with_cache


class CachedRecognizer:
    """The default recognizer behind a term cache: the blog corpus goes through spaCy once per run, not once per
    test file (test_engine and test_term_generalization each spent 40-50 s recognizing the same 1,000 posts).
    The cache holds only what this run's recognizer found (the file is new each run).

    With ``lock_path``, one process of the run recognizes at a time: the other waits and then finds the posts in
    the cache, instead of recognizing them side by side (both processes started on the corpus at once)."""

    def __init__(self, cache_path: Path, lock_path: Path | None = None) -> None:
        self.recognizer = TermRecognizer()
        self.cache = TermCache(cache_path)
        self._lock_path = lock_path
        self._lock = None
        self._depth = 0     # streams open in this process (a run may read one while the other is open)

    @contextlib.contextmanager
    def _one_process_at_a_time(self):
        if self._lock_path is not None and self._depth == 0:
            self._lock = open(self._lock_path, "w")
            fcntl.flock(self._lock, fcntl.LOCK_EX)
        self._depth += 1
        try:
            yield
        finally:
            self._depth -= 1
            if self._lock is not None and self._depth == 0:
                self._lock.close()      # releases the lock
                self._lock = None

    def recognize_many(self, texts):
        with self._one_process_at_a_time():
            yield from recognize_with_cache(texts, self.recognizer, self.cache)


@pytest.fixture(scope="session")
def recognizer(tmp_path_factory) -> CachedRecognizer:
    """One cache file for all the processes of a pytest-xdist run (their base directories share the run's
    directory; TermCache is an SQLite file in WAL mode, made for several processes); a session's own otherwise."""
    base = tmp_path_factory.getbasetemp()
    run_dir = base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base
    cached = CachedRecognizer(run_dir / "kanon-blog-terms.sqlite", run_dir / "kanon-blog-terms.lock")
    yield cached
    cached.cache.close()
