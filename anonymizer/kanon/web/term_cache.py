"""The term cache of the k-anonymization jobs in the shared database (PostgreSQL with ``DATABASE_URL``, the
local SQLite file otherwise): the same interface and keys as the core's SQLite ``TermCache``, so
``recognize_with_cache`` and the pipeline use either, and a text recognized by any worker on any machine is
never recognized again by another."""

from __future__ import annotations

from collections.abc import Sequence

from django.db import transaction
from django.utils import timezone

from anonymizer.models import CachedSpread, CachedTerms
from anonymizer.recognize.cache import (
    decode_terms,
    encode_terms,
    text_digest,
)
from anonymizer.recognize.recognizer import Term, check_text

#: Datasets whose terms after string-level recoding are kept (the least recently used go first).
SPREAD_ENTRIES = 16
# Keys per query: SQLite allows 32,766 parameters, PostgreSQL far more; 500 keeps each statement small.
_QUERY_SLICE = 500


class DatabaseTermCache:
    """``TermCache`` on Django's database. Writes ignore a row another worker stored meanwhile: a recognizer's
    result for a text is the same whoever computed it."""

    def get_many(self, fingerprint: str, texts: Sequence[str]) -> list[list[Term] | None]:
        digests = [text_digest(check_text(text)) for text in texts]
        unique = list(dict.fromkeys(digests))
        found: dict[bytes, str] = {}
        for i in range(0, len(unique), _QUERY_SLICE):
            rows = CachedTerms.objects.filter(fingerprint=fingerprint, text_sha256__in=unique[i:i + _QUERY_SLICE])
            found.update((bytes(digest), terms) for digest, terms in rows.values_list("text_sha256", "terms"))
        return [None if (stored := found.get(digest)) is None else decode_terms(text, stored)
                for text, digest in zip(texts, digests, strict=True)]

    def put_many(self, fingerprint: str, texts: Sequence[str], results: Sequence[list[Term]]) -> None:
        if len(texts) != len(results):
            raise ValueError("texts and results differ in length")
        rows = {text_digest(check_text(text)): encode_terms(terms) for text, terms in zip(texts, results, strict=True)}
        CachedTerms.objects.bulk_create(
            [CachedTerms(fingerprint=fingerprint, text_sha256=digest, terms=terms) for digest, terms in rows.items()],
            ignore_conflicts=True, batch_size=_QUERY_SLICE)

    def get_changes(self, digest: bytes) -> str | None:
        stored = CachedSpread.objects.filter(dataset_sha256=digest).values_list("changes", flat=True).first()
        if stored is not None:
            CachedSpread.objects.filter(dataset_sha256=digest).update(used_at=timezone.now())
        return stored

    def put_changes(self, digest: bytes, changes: str) -> None:
        with transaction.atomic():
            CachedSpread.objects.update_or_create(dataset_sha256=digest,
                                                  defaults={"changes": changes, "used_at": timezone.now()})
            stale = CachedSpread.objects.order_by("-used_at").values_list("id", flat=True)[SPREAD_ENTRIES:]
            CachedSpread.objects.filter(id__in=list(stale)).delete()

    def __len__(self) -> int:
        return CachedTerms.objects.count()

    def close(self) -> None:
        """Nothing to close: Django owns the connection (the interface of the SQLite cache)."""
