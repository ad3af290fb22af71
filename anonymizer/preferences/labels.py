"""A PROXY for location privacy preferences, derived from check-ins by a fixed, documented rule.

No public data set pairs check-ins with the users' own publish/hide choices (the paper joins 20 LocShare users'
stated preferences onto Gowalla by time and category; LocShare is not available here). So these labels are NOT
anyone's preferences: they are what a cautious person might choose, computed from what the check-ins reveal.
Results on them measure how well a method recovers this rule's per-user structure, not real preferences. Real
preferences can be uploaded instead (``checkins.parse_preferences`` + ``preferences_to_ratings``).

The rule, for a user u:
1. A check-in of u is *revealing* when
   a. its venue category tells something sensitive about u: home, workplace, health, religion, or sex life /
      sexual orientation (GDPR Art. 9 special categories; the sets are ``SENSITIVE_CATEGORIES``), or
   b. its venue is one of u's *routine venues*: u checked in there at least ``routine_min_checkins`` times and
      in at least ``routine_share`` of all u's check-ins. A routine tells where to find u (a regular gym,
      the metro station of the daily commute, the Friday bar).
2. Only items u checked in at are rated (the others stay unrated). Item j (a time slot x place) is rated
   0 (hide) when at least ``hide_share`` of u's check-ins in j are revealing, else 1 (publish).
The categories make hiding depend on the place, the routines and the time slots make it depend on the person
(whose home, work and regular places sit in different slots and categories), which is what matrix
factorization can learn across users. Labels change with the item space: a coarse item pools more check-ins.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from anonymizer.preferences.checkins import CheckIns, PreferenceUpload
from anonymizer.preferences.items import ItemSpace
from anonymizer.preferences.ratings import Ratings

HOME = frozenset({"Home (private)", "Residential Building (Apartment / Condo)", "Housing Development",
                  "Assisted Living", "College Residence Hall", "Fraternity House"})
WORK = frozenset({"Office", "Coworking Space", "Tech Startup", "Corporate Cafeteria", "Meeting Room",
                  "Conference Room", "Factory", "Warehouse", "Distribution Center", "Advertising Agency",
                  "Radio Station", "TV Station", "Military Base"})
HEALTH = frozenset({"Doctor's Office", "Hospital", "Hospital Ward", "Medical Center", "Emergency Room",
                    "Dentist's Office", "Physical Therapist", "Chiropractor", "Eye Doctor", "Medical Lab",
                    "Mental Health Office", "Acupuncturist"})
RELIGION = frozenset({"Church", "Synagogue", "Temple", "Shrine", "Spiritual Center", "Mosque"})
INTIMATE = frozenset({"Gay Bar", "Strip Club", "Adult Boutique", "Erotic Museum"})
SENSITIVE_CATEGORIES = HOME | WORK | HEALTH | RELIGION | INTIMATE


@dataclass(frozen=True)
class ProxyLabelRule:
    """The rule of the module docstring; its thresholds are the parameters."""

    routine_share: float = 0.05
    routine_min_checkins: int = 5
    hide_share: float = 0.5
    sensitive_categories: frozenset[str] = SENSITIVE_CATEGORIES

    def revealing(self, checkins: CheckIns) -> np.ndarray:
        """Whether each check-in is revealing (rule step 1)."""
        sensitive = np.array([name in self.sensitive_categories for name in checkins.category_names], bool)
        user = checkins.user.astype(np.int64)
        per_user = np.bincount(user, minlength=checkins.n_users)
        n_venues = int(checkins.venue.max()) + 1 if len(checkins) else 1
        _, inverse, counts = np.unique(user * n_venues + checkins.venue, return_inverse=True,
                                          return_counts=True)
        at_venue = counts[inverse]
        routine = (at_venue >= self.routine_min_checkins) & (at_venue >= self.routine_share * per_user[user])
        return sensitive[checkins.category] | routine

    def ratings(self, checkins: CheckIns, items: ItemSpace) -> Ratings:
        """The proxy ratings of every user on the items they checked in at (rule step 2)."""
        item = items.transform(checkins)
        keep = item >= 0
        user = checkins.user.astype(np.int64)[keep]
        revealing = self.revealing(checkins)[keep]
        key = user * items.n_items + item[keep]
        pairs, inverse = np.unique(key, return_inverse=True)
        total = np.bincount(inverse, minlength=len(pairs))
        hidden = np.bincount(inverse, weights=revealing, minlength=len(pairs))
        value = (hidden < self.hide_share * total).astype(np.float64)
        return Ratings(pairs // items.n_items, pairs % items.n_items, value, checkins.n_users, items.n_items)


def preferences_to_ratings(upload: PreferenceUpload, items: ItemSpace) -> Ratings:
    """Uploaded real preferences as ratings. Several rows falling into one item: hide wins (the item is 0 if
    any of them says hide), the cautious reading."""
    item = items.transform(upload)
    keep = item >= 0
    key = upload.user.astype(np.int64)[keep] * items.n_items + item[keep]
    pairs, inverse = np.unique(key, return_inverse=True)
    value = np.ones(len(pairs))
    np.minimum.at(value, inverse, upload.label[keep].astype(np.float64))
    return Ratings(pairs // items.n_items, pairs % items.n_items, value, upload.n_users, items.n_items)
