"""The item space: an item is a (time slot, place) pair, the unit a user rates publish (1) or hide (0).

Time: the day is cut into slots of ``slot_hours`` (2, 3, 4, 6, 8 or 12 hours, slot s covers the hours
[s * slot_hours, (s + 1) * slot_hours)), optionally separately for weekdays (Mon-Fri) and weekends (Sat-Sun).
Place, by ``place``:
    "root"      the top-level Foursquare category (10 in the NYC data: Food, Residence, ...)
    "category"  the fine Foursquare venue category (491 in the NYC data)
    "grid"      a ``grid_cells`` x ``grid_cells`` grid over the bounding box of the fitted check-ins
    "given"     the place names of an uploaded preference file, as written
Item id = (day_group * n_slots + slot) * n_places + place, so ``n_items`` = day groups x slots x places, every
combination an item whether anyone visited it or not. A check-in outside the fitted grid, or at a category the
space was not fitted on, maps to -1.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np

from anonymizer.platform.grid import Grid

if TYPE_CHECKING:
    from anonymizer.preferences.checkins import CheckIns, PreferenceUpload

SLOT_HOURS = (2, 3, 4, 6, 8, 12)
PLACE_KINDS = ("root", "category", "grid", "given")
DAY_GROUPS = ("Mon–Fri", "Sat–Sun")


@dataclass
class ItemSpace:
    slot_hours: int = 6
    split_week: bool = False
    place: str = "root"
    grid_cells: int = 10
    place_names_: tuple[str, ...] = field(default=(), init=False, repr=False)
    grid_: Grid | None = field(default=None, init=False, repr=False)

    def __post_init__(self) -> None:
        if self.slot_hours not in SLOT_HOURS:
            raise ValueError(f"slot_hours must divide the day into equal slots: one of {SLOT_HOURS}")
        if self.place not in PLACE_KINDS:
            raise ValueError(f"place must be one of {PLACE_KINDS}, not {self.place!r}")
        if self.place == "grid" and not 1 <= self.grid_cells <= 100:
            raise ValueError("grid_cells must be between 1 and 100")

    @property
    def n_slots(self) -> int:
        return 24 // self.slot_hours

    @property
    def n_day_groups(self) -> int:
        return 2 if self.split_week else 1

    @property
    def n_places(self) -> int:
        if self.place == "grid":
            return self.grid_cells * self.grid_cells
        return len(self.place_names_)

    @property
    def n_items(self) -> int:
        return self.n_day_groups * self.n_slots * self.n_places

    def fit(self, data: CheckIns | PreferenceUpload) -> ItemSpace:
        """Learn the place vocabulary (categories) or the grid's bounding box from check-ins or an upload."""
        if self.place == "grid":
            if not hasattr(data, "lat"):
                raise ValueError("a grid item space needs latitude/longitude; uploaded preferences have none")
            south, north = float(np.min(data.lat)), float(np.max(data.lat))
            west, east = float(np.min(data.lon)), float(np.max(data.lon))
            if north == south:
                north += 1e-6
            if east == west:
                east += 1e-6
            self.grid_ = Grid(south, west, north, east, rows=self.grid_cells, cols=self.grid_cells)
            self.place_names_ = tuple(self.grid_.label(c) for c in range(self.grid_.n_cells))
        else:
            _, self.place_names_ = data.places(self.place)
        return self

    def _place_codes(self, data: CheckIns | PreferenceUpload) -> np.ndarray:
        if self.place == "grid":
            if self.grid_ is None:
                raise ValueError("fit the item space first")
            return self.grid_.cells_of(data.lat, data.lon)
        codes, names = data.places(self.place)
        if not self.place_names_:
            raise ValueError("fit the item space first")
        if names == self.place_names_:
            return codes.astype(np.int64)
        lookup = {name: i for i, name in enumerate(self.place_names_)}
        remap = np.array([lookup.get(name, -1) for name in names], dtype=np.int64)
        return remap[codes]

    def slot_of(self, minute: np.ndarray) -> np.ndarray:
        """The slot index of each minute of the day."""
        return np.asarray(minute, np.int64) // (60 * self.slot_hours)

    def transform(self, data: CheckIns | PreferenceUpload) -> np.ndarray:
        """The item id of every entry of ``data`` (check-ins or an upload); -1 where the place is unknown."""
        slot = self.slot_of(data.minute)
        if self.split_week:
            weekday = np.asarray(data.weekday, np.int64)
            if np.any(weekday < 0):
                raise ValueError("splitting weekdays from weekends needs a weekday on every entry")
            group = (weekday >= 5).astype(np.int64)
        else:
            group = np.zeros(len(slot), np.int64)
        place = self._place_codes(data)
        item = (group * self.n_slots + slot) * self.n_places + place
        return np.where(place >= 0, item, -1)

    def fit_transform(self, data: CheckIns | PreferenceUpload) -> np.ndarray:
        return self.fit(data).transform(data)

    def decompose(self, item: int) -> tuple[int, int, int]:
        """(day group, slot, place) of an item id."""
        if not 0 <= item < self.n_items:
            raise ValueError(f"item {item} is not in this space of {self.n_items} items")
        rest, place = divmod(int(item), self.n_places)
        group, slot = divmod(rest, self.n_slots)
        return group, slot, place

    def label(self, item: int) -> str:
        """A display label, e.g. "Mon–Fri 18–24h · Food" (no day part without the weekday/weekend split)."""
        group, slot, place = self.decompose(item)
        hours = f"{slot * self.slot_hours}–{(slot + 1) * self.slot_hours}h"
        when = f"{DAY_GROUPS[group]} {hours}" if self.split_week else hours
        return f"{when} · {self.place_names_[place]}"

    def labels(self) -> list[str]:
        return [self.label(i) for i in range(self.n_items)]
