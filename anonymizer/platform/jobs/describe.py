"""How a job is named and described to people, said once for every kind: its title ("k-anonymize
paper_example.csv — k=2, λ=0.5"), the tags its result files carry ("paper_example.k2.lambda0.5.anonymized.csv"),
its parameters and its result as label → value rows (nested values flattened, None as "—"), and where it stands
(queued: its place in the queue; running: for how long; ended: when).

The parameters that tell runs of one kind apart are those its ``JobKind.distinguishing`` declares, found by name
wherever they sit in a job's parameters (at the top or inside ``config``), so a kind gets a meaningful title
without code of its own."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime, timedelta
from typing import Any

from django.utils.translation import gettext, ngettext, pgettext, pgettext_lazy

from anonymizer.platform.jobs.registry import Distinguishing, get_job_kind, kind_label

EMPTY = "—"

# A job's status as people read it; the value itself (queued, running, ...) stays the API's and the CSS class's.
STATUS_LABELS = {
    "queued": pgettext_lazy("job status", "queued"),
    "running": pgettext_lazy("job status", "running"),
    "succeeded": pgettext_lazy("job status", "succeeded"),
    "failed": pgettext_lazy("job status", "failed"),
    "cancelled": pgettext_lazy("job status", "cancelled"),
}


def status_label(status: str) -> str:
    """A job's status in the active language ("queued" / "待機中"); an unknown one as it is."""
    return str(STATUS_LABELS.get(status, status))


def number_text(value: Any) -> str:
    """A number as short as it reads (0.5, 1, 0), exact when that is longer (0.123456789); anything else as
    text."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return str(value)
    if isinstance(value, int) or (value.is_integer() and abs(value) < 1e15):
        return str(int(value))  # 1000000, not 1e+06
    text = f"{value:g}"
    return text if float(text) == value else repr(float(value))


def _lookup(params: Mapping[str, Any], key: str) -> Any:
    """``key`` at the top of the parameters or inside their ``config`` (a k-anonymization's), else None."""
    if key in params:
        return params[key]
    config = params.get("config")
    return config.get(key) if isinstance(config, Mapping) else None


def _distinguishing(kind: str) -> tuple[Distinguishing, ...]:
    try:
        return get_job_kind(kind).distinguishing
    except LookupError:  # a kind removed from the code base: its old jobs keep their title without parameters
        return ()


def _parts(kind: str, params: Mapping[str, Any] | None) -> list[tuple[str, str]]:
    """(title part, file tag) of each distinguishing parameter of its kind a job has, in title order."""
    params = params if isinstance(params, Mapping) else {}
    parts: list[tuple[str, str]] = []
    for item in _distinguishing(kind):
        instead = item.instead(lambda key: _lookup(params, key)) if item.instead is not None else None
        if instead is not None:
            parts.append(instead)
            continue
        value = _lookup(params, item.key)
        if value is None or value == "" or isinstance(value, Mapping | list | bool):
            continue
        text = number_text(value)
        parts.append((item.title.format(text), item.tag.format(text)))
    return parts


def parameter_summary(kind: str, params: Mapping[str, Any] | None) -> str:
    """The parameters that tell this run from the others of its kind: "k=2, λ=0.5", "k=5, GDF",
    "mode=prune, model=us-midwest-en"; "" when there are none."""
    return ", ".join(title for title, _ in _parts(kind, params))


def file_tags(kind: str, params: Mapping[str, Any] | None) -> list[str]:
    """The same parameters as parts of a file name: ["k2", "lambda0.5"], ["k5", "gdf"], ["mode-prune"]. Only
    letters, digits, ".", "-" and "_" survive (a stored name keeps no other), so a model's name stays
    readable."""
    tags = []
    for _, tag in _parts(kind, params):
        cleaned = "".join(c if c.isalnum() or c in ".-_" else "-" for c in tag).strip("-.")
        if cleaned:
            tags.append(cleaned)
    return tags


def result_file_name(kind: str, stem: str, params: Mapping[str, Any] | None, what: str, *,
                     max_chars: int = 255) -> str:
    """A result's download name: the upload's stem, the run's tags, then ``what``:
    ``paper_example.k2.lambda0.5.anonymized.csv``, ``paper_example.k2.gdf.report.json``,
    ``posts.mode-both.time-removed.csv``. So the runs of one file never share a name. The stem is cut when the
    whole would be longer than ``max_chars`` (JobResult.name)."""
    tail = "".join(f".{tag}" for tag in file_tags(kind, params)) + f".{what}"
    return (stem or "dataset")[:max(max_chars - len(tail), 1)] + tail


def job_title(kind: str, params: Mapping[str, Any] | None, input_names: list[str]) -> str:
    """What a job is called on every page: "k-anonymize paper_example.csv — k=2, λ=0.5", "Profile a CSV file:
    posts.csv", "Evaluate location protection … — replacement=delete, model=tokyo-ja"."""
    try:
        short = get_job_kind(kind).title
    except LookupError:  # a kind removed from the code base: its old jobs keep a title
        short = ""
    inputs = ", ".join(input_names)
    if short:
        head = f"{short} {inputs}".strip()
    else:
        head = f"{kind_label(kind)}: {inputs}" if inputs else kind_label(kind)
    summary = parameter_summary(kind, params)
    return f"{head} — {summary}" if summary else head


# -- readable tables ---------------------------------------------------------------------------------------------
def _label(key: str) -> str:
    return str(key).replace("_", " ")


def _scalar(value: Any) -> str:
    if value is None or value == "":
        return EMPTY
    if isinstance(value, bool):
        return pgettext("boolean", "yes") if value else pgettext("boolean", "no")
    if isinstance(value, float):
        return number_text(round(value, 6))
    return str(value)


def flatten(value: Any, prefix: str = "", *, max_rows: int = 500) -> list[tuple[str, str]]:
    """``value`` as (label, text) rows: a mapping's keys become labels ("config › l diversity › column"), a list
    of plain values one comma-separated text, a list of mappings one group of rows each ("attributes › 1 ›
    name"), None "—", True / False "yes" / "no". Never a Python or JSON literal. At most ``max_rows`` rows (the
    last says how many more there were)."""
    rows: list[tuple[str, str]] = []
    _flatten_into(rows, value, prefix)
    if len(rows) > max_rows:
        more = len(rows) - max_rows + 1
        rows = [*rows[:max_rows - 1], ("…", gettext("%(more)s more values: see the result files") % {
            "more": f"{more:,}"})]
    return rows


def _flatten_into(rows: list[tuple[str, str]], value: Any, prefix: str) -> None:
    if isinstance(value, Mapping):
        if not value:
            rows.append((prefix or EMPTY, EMPTY))
        for key, item in value.items():
            _flatten_into(rows, item, f"{prefix} › {_label(key)}" if prefix else _label(key))
    elif isinstance(value, list | tuple):
        if all(not isinstance(item, Mapping | list | tuple) for item in value):
            rows.append((prefix, ", ".join(_scalar(item) for item in value) if value else EMPTY))
        else:
            for number, item in enumerate(value, start=1):
                _flatten_into(rows, item, f"{prefix} › {number}" if prefix else str(number))
    else:
        rows.append((prefix, _scalar(value)))


# -- where a job stands ------------------------------------------------------------------------------------------
def ordinal(number: int) -> str:
    """1st, 2nd, 3rd, 4th, 11th, 12th, 13th, 21st (in Japanese 1番目, 2番目, ...)."""
    suffix = "th" if 10 <= number % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(number % 10, "th")
    template = {"st": pgettext("ordinal", "%(n)sst"), "nd": pgettext("ordinal", "%(n)snd"),
                "rd": pgettext("ordinal", "%(n)srd"), "th": pgettext("ordinal", "%(n)sth")}[suffix]
    return template % {"n": number}


def duration_text(elapsed: timedelta) -> str:
    """"45 s", "3 min 5 s", "2 h 4 min", "3 days 2 h"."""
    seconds = max(int(elapsed.total_seconds()), 0)
    days, rest = divmod(seconds, 86_400)
    hours, rest = divmod(rest, 3600)
    minutes, seconds = divmod(rest, 60)
    if days:
        return ngettext("%(days)s day %(hours)s h", "%(days)s days %(hours)s h", days) % {"days": days,
                                                                                         "hours": hours}
    if hours:
        return gettext("%(hours)s h %(minutes)s min") % {"hours": hours, "minutes": minutes}
    if minutes:
        return gettext("%(minutes)s min %(seconds)s s") % {"minutes": minutes, "seconds": seconds}
    return gettext("%(seconds)s s") % {"seconds": seconds}


def queue_text(ahead: int, running: int, queued_at: datetime, now: datetime) -> str:
    """"2nd in the queue: 1 job ahead (3 running), queued 2 min 5 s ago"."""
    values = {"ordinal": ordinal(ahead + 1), "ahead": ahead, "running": running,
              "waited": duration_text(now - queued_at)}
    if running:
        return ngettext("%(ordinal)s in the queue: %(ahead)s job ahead (%(running)s running), queued %(waited)s ago",
                        "%(ordinal)s in the queue: %(ahead)s jobs ahead (%(running)s running), queued %(waited)s ago",
                        ahead) % values
    return ngettext("%(ordinal)s in the queue: %(ahead)s job ahead, queued %(waited)s ago",
                    "%(ordinal)s in the queue: %(ahead)s jobs ahead, queued %(waited)s ago", ahead) % values


# An estimate of the time left is given only once the job has shown a rate worth extrapolating.
ESTIMATE_MIN_FRACTION = 0.03
ESTIMATE_MIN_SECONDS = 5.0


def estimate_seconds(fraction: float, elapsed_seconds: float) -> int | None:
    """The seconds a running job still needs at the rate it has gone so far (``fraction`` of the work done in
    ``elapsed_seconds``); None before ESTIMATE_MIN_FRACTION of the work and ESTIMATE_MIN_SECONDS have passed
    (too little to go by) and once the work is done."""
    if fraction < ESTIMATE_MIN_FRACTION or fraction >= 1 or elapsed_seconds < ESTIMATE_MIN_SECONDS:
        return None
    return max(round(elapsed_seconds * (1 - fraction) / fraction), 0)


def remaining_text(seconds: int | None) -> str:
    """"about 40 s left", "about 3 min left", "about 1 h 25 min left"; "" without an estimate. Rounded to what
    an estimate can promise (5 s, a minute, 5 minutes)."""
    if seconds is None:
        return ""
    if seconds < 55:
        return gettext("about %(seconds)s s left") % {"seconds": max(5, 5 * round(seconds / 5))}
    minutes = max(1, round(seconds / 60))
    if minutes < 60:
        return gettext("about %(minutes)s min left") % {"minutes": minutes}
    hours, minutes = divmod(5 * round(minutes / 5), 60)
    if minutes:
        return gettext("about %(hours)s h %(minutes)s min left") % {"hours": hours, "minutes": minutes}
    return gettext("about %(hours)s h left") % {"hours": hours}
