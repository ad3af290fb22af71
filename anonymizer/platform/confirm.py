"""The confirmation step of every destructive or global action on the pages: a GET, or a POST without the
explicit confirm field, shows what the action does and what else goes (nothing is changed); only a POST with
``confirm=yes`` performs it. It works without JavaScript. (The API keeps HTTP's semantics: a DELETE is explicit.)"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils.translation import gettext, gettext_lazy, pgettext

from anonymizer.platform.selectors import Consequences

CONFIRM_FIELD = "confirm"
CONFIRM_VALUE = "yes"


def confirmed(request: HttpRequest) -> bool:
    """Whether this request performs the action: a POST that says so explicitly."""
    return request.method == "POST" and request.POST.get(CONFIRM_FIELD) == CONFIRM_VALUE


@dataclass
class Confirmation:
    """What a confirmation page says."""

    title: str  # "Delete posts.csv?"
    action_url: str  # where the confirmed POST goes (the same view)
    confirm_label: str  # the button: "Delete posts.csv and 4 jobs"
    cancel_url: str  # back, changing nothing
    lines: list[str] = field(default_factory=list)  # what the action does, in sentences
    consequences: Consequences | None = None  # the jobs and files that go, and what stays
    undo: str = ""  # how to undo it, or that it cannot be undone
    danger: bool = True
    back_label: str = gettext_lazy("Go back, change nothing")
    hidden: Mapping[str, str] = field(default_factory=dict)  # more fields the confirmed POST sends


def confirmation_page(request: HttpRequest, confirmation: Confirmation, *, status: int = 200) -> HttpResponse:
    """The confirmation page; nothing has been changed when it is shown. A blocked action (a queued job still
    uses the file) shows why and offers no button."""
    blocked = confirmation.consequences.blocked if confirmation.consequences is not None else ""
    return render(request, "confirm/confirm.html", {
        "c": confirmation, "blocked": blocked, "confirm_field": CONFIRM_FIELD, "confirm_value": CONFIRM_VALUE,
    }, status=status)


def plural(count: int, singular: str, plural_form: str | None = None) -> str:
    """"1 job", "4 jobs", "7 result files"."""
    return f"{count:,} {singular if count == 1 else (plural_form or singular + 's')}"


def listing(names: Iterable[str], *, limit: int = 5) -> str:
    """"a, b and c"; "a, b, c, d, e and 3 more"."""
    names = list(names)
    separator = pgettext("list separator", ", ")
    if len(names) > limit:
        return gettext("%(names)s and %(more)s more") % {"names": separator.join(names[:limit]),
                                                          "more": f"{len(names) - limit:,}"}
    if len(names) <= 1:
        return "".join(names)
    return gettext("%(names)s and %(last)s") % {"names": separator.join(names[:-1]), "last": names[-1]}
