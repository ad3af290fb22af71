"""The share of a campaign one client address may hold: at most a number, at most a share of what is left, and
never nothing."""

from __future__ import annotations

import pytest

from anonymizer.crowd.limits import AddressLimits


@pytest.mark.parametrize(("needed", "cap"), [
    (40, 8),  # the finding's campaign: 2 posts x 20 answers, a fifth of them
    (10_000, 20),  # a large campaign: the fixed maximum
    (4, 1), (0, 1), (-3, 1),  # nearly done (or over-answered): one, so a lone participant is still served
    (104, 20), (99, 19),
])
def test_an_address_holds_at_most_its_share_of_what_is_left(needed, cap):
    assert AddressLimits(reservations=20, share=0.2).cap(needed) == cap


@pytest.mark.parametrize(("reservations", "share", "field"), [(0, 0.2, "reservations"), (5, 0.0, "share"),
                                                               (5, 1.5, "share"), (5, float("nan"), "share")])
def test_limits_out_of_range_name_the_field(reservations, share, field):
    with pytest.raises(ValueError, match=field):
        AddressLimits(reservations, share)
