"""The sensitive-term cache of the k-anonymization jobs, in the shared database so that every worker on every
machine reuses what any of them recognized: a text's terms by (recognizer fingerprint, sha256 of the text), and
a dataset's terms after string-level recoding by a digest of everything they depend on. The encoding is the
core's (``anonymizer.recognize.cache``); ``anonymizer.kanon.web.term_cache`` reads and writes them."""

from __future__ import annotations

from django.db import models


class CachedTerms(models.Model):
    """The terms one recognizer found in one text: ``[[start, end, label], ...]``."""

    fingerprint = models.CharField(max_length=64)
    text_sha256 = models.BinaryField(max_length=32)
    terms = models.TextField()

    class Meta:
        constraints = [models.UniqueConstraint(fields=["fingerprint", "text_sha256"], name="unique_cached_terms")]

    def __str__(self) -> str:
        return f"terms of text {bytes(self.text_sha256).hex()[:12]} by recognizer {self.fingerprint[:12]}"


class CachedSpread(models.Model):
    """A dataset's terms after string-level recoding, as changes to the recognized ones; the least recently
    used entries are dropped beyond ``anonymizer.kanon.web.term_cache.SPREAD_ENTRIES``."""

    dataset_sha256 = models.BinaryField(max_length=32, unique=True)
    changes = models.TextField()
    used_at = models.DateTimeField(db_index=True)

    def __str__(self) -> str:
        return f"spread terms of dataset {bytes(self.dataset_sha256).hex()[:12]}"
