"""hold_until_commit: a lock that ends with its transaction, so it refuses to be taken outside one."""

from __future__ import annotations

import pytest
from django.db import transaction

from anonymizer.platform.locks import hold_until_commit

pytestmark = pytest.mark.django_db(transaction=True)


def test_the_lock_is_held_only_inside_a_transaction():
    with pytest.raises(RuntimeError, match="needs a transaction"):
        hold_until_commit("outside")
    with transaction.atomic():
        hold_until_commit("inside")
        hold_until_commit("inside")  # the same transaction may take it again
