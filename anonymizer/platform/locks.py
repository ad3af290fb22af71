"""Locks that serialise, across web processes, the transactions that check a count and then write by it."""

from __future__ import annotations

import hashlib

from django.db import connection


def hold_until_commit(name: str) -> None:
    """Wait for, then hold until the current transaction ends, the lock called ``name``: two transactions taking
    the same name run this section one after the other, in whatever process. On PostgreSQL an advisory
    transaction lock; on SQLite nothing is needed, since every transaction takes the database's write lock up
    front (``transaction_mode`` IMMEDIATE in settings)."""
    if not connection.in_atomic_block:
        raise RuntimeError("hold_until_commit needs a transaction: the lock is released when it ends.")
    if connection.vendor != "postgresql":
        return
    # Advisory locks are keyed by a 64-bit number: the name's hash, so any string names a lock.
    key = int.from_bytes(hashlib.blake2b(name.encode(), digest_size=8).digest(), "big", signed=True)
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_advisory_xact_lock(%s)", [key])
