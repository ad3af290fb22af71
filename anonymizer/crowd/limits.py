"""How much of a campaign one client address may hold at once (issue 42: one address flooding a campaign link
must not reserve every slot). Pure Python; the web layer counts the reservations and reads the settings."""

from __future__ import annotations

import math
from dataclasses import dataclass

__all__ = ["AddressLimits"]


@dataclass(frozen=True)
class AddressLimits:
    """Open reservations one client address may hold in a campaign: at most ``reservations``, and at most
    ``share`` of the answers the campaign still needs; never fewer than one, so a lone participant is served
    however little is left."""

    reservations: int
    share: float

    def __post_init__(self) -> None:
        if self.reservations < 1:
            raise ValueError(f"reservations: expected at least 1, got {self.reservations}.")
        if not 0.0 < self.share <= 1.0:
            raise ValueError(f"share: expected a share above 0 and at most 1, got {self.share}.")

    def cap(self, answers_needed: int) -> int:
        """The most open reservations one address may hold while the campaign needs ``answers_needed`` answers."""
        return max(1, min(self.reservations, math.floor(self.share * max(0, answers_needed))))
