"""The registry of background-job kinds. Each capability registers its kinds here (in its ``web/jobs.py``):
what inputs a kind takes, how its parameters are validated, the function that runs it, the parameters that tell
its runs apart and the links that start it from the uploads page. Pages, the API and the worker all look kinds
up here, so adding a kind needs no change to the job machinery nor to the platform's pages.

A leaf: it imports no other module of the job machinery (the types its fields name are only read by type
checkers)."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from rest_framework import serializers
from rest_framework.utils.encoders import JSONEncoder

if TYPE_CHECKING:
    from django.contrib.auth.models import AbstractBaseUser

    from anonymizer.models import Job, Upload
    from anonymizer.platform.jobs.chunks import ChunkWork
    from anonymizer.platform.jobs.runner import JobRun


@dataclass(frozen=True)
class Distinguishing:
    """A parameter that tells the runs of a kind apart: "k=2" in a job's title, "k2" in its result files' names
    (anonymizer.platform.jobs.describe). Found by ``key`` at the top of a job's parameters or inside their
    ``config``; an empty value, a mapping, a list or a yes/no is not shown."""

    key: str
    title: str  # "{}" takes the value as read
    tag: str  # "{}" takes the value as a file name part
    # Given how to read a parameter by key: a (title, tag) shown instead of the value (a k-anonymization's GDF
    # run has no λ and says "GDF"), or None to show the value.
    instead: Callable[[Callable[[str], Any]], tuple[str, str] | None] | None = None


@dataclass(frozen=True)
class UploadAction:
    """A link in an upload's row on the uploads page, to a page of the kind's capability that starts work on
    that upload."""

    label: str
    url_name: str  # reversed with the upload's id as its argument
    # Left to right on the uploads page, lowest first (each capability picks its numbers).
    position: int
    # The page takes the upload as ``?upload=<id>`` (one page for several uploads) rather than in its path.
    upload_in_query: bool = False


@dataclass(frozen=True)
class JobKind:
    name: str
    label: str
    # Runs the claimed job, reporting through JobRun; returns a small JSON summary for the job page.
    run: Callable[[Job, JobRun], dict | None]
    params_serializer: type[serializers.Serializer]
    inputs: int = 0
    # Template that renders ``job.result`` on the job page once the job succeeded.
    summary_template: str | None = None
    # Checks parameters against the input files (e.g. a configuration naming the CSV's columns) and may
    # normalise them; raises serializers.ValidationError.
    prepare: Callable[[dict, list[Upload]], dict] | None = None
    # What a job of this kind is called before its input's name ("k-anonymize" posts.csv — k=2, λ=0.5); without
    # one, the label and a colon (anonymizer.platform.jobs.describe.job_title).
    title: str = ""
    # Runs one part of a job fanned out with ``JobRun.fan_out`` (a byte range of its input), on any worker;
    # returns what the job's own run gathers (or None). Must be idempotent: a lost part is run again.
    run_chunk: Callable[[Job, ChunkWork], bytes | None] | None = None
    # The parameters that tell its runs apart, in the order of a title's parts ("k=2, λ=0.5").
    distinguishing: tuple[Distinguishing, ...] = ()
    # Its links on the uploads page.
    upload_actions: tuple[UploadAction, ...] = ()

    def validate_params(self, data: Any, owner: AbstractBaseUser | None = None) -> dict:
        """Validated parameters with defaults filled in; raises serializers.ValidationError. The serializer
        gets the job's ``owner`` in its context, to refuse an object of someone else's by field."""
        serializer = self.params_serializer(data=data if data is not None else {}, context={"owner": owner})
        serializer.is_valid(raise_exception=True)
        return dict(serializer.validated_data)

    def ready_params(self, data: Any, inputs: list[Upload], owner: AbstractBaseUser | None = None) -> dict:
        """The parameters a job of this kind is queued with: validated, then prepared against its inputs, so a
        bad value is refused before anything is queued, and made JSON (the job's params column and the worker
        read them as JSON). Raises serializers.ValidationError by field."""
        params = self.validate_params(data, owner)
        params = self.prepare(params, inputs) if self.prepare is not None else params
        return json_safe(params)


def json_safe(params: dict) -> dict:
    """``params`` as the JSON they are stored as: what a serializer validated into Python values (UUID, date,
    datetime, Decimal, a set of choices, a tuple) becomes its JSON form (a string, a list, a number), the same
    form the API shows and the worker reads back."""
    return json.loads(json.dumps(params, cls=JSONEncoder, ensure_ascii=False))


_KINDS: dict[str, JobKind] = {}


def register(kind: JobKind) -> JobKind:
    if kind.name in _KINDS:
        raise ValueError(f"Job kind {kind.name!r} is registered twice")
    _KINDS[kind.name] = kind
    return kind


def get_job_kind(name: str) -> JobKind:
    try:
        return _KINDS[name]
    except KeyError:
        raise LookupError(f"Unknown job kind {name!r}; known kinds: {', '.join(sorted(_KINDS))}") from None


def job_kinds() -> list[JobKind]:
    return sorted(_KINDS.values(), key=lambda kind: kind.name)


def upload_actions() -> list[UploadAction]:
    """Every kind's links on the uploads page, left to right."""
    return sorted((action for kind in _KINDS.values() for action in kind.upload_actions),
                  key=lambda action: action.position)


def kind_label(name: str) -> str:
    """What a kind is called on pages; a kind removed from the code base shows its name (its old jobs stay)."""
    kind = _KINDS.get(name)
    return str(kind.label) if kind is not None else name
