"""The registry of background-job kinds. Each capability registers its kind here: what inputs it takes, how
its parameters are validated, and the service function that runs it. Views, the API and the worker all look
kinds up here, so adding a kind needs no change to the job machinery."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from rest_framework import serializers

if TYPE_CHECKING:
    from anonymizer.models import Job
    from anonymizer.services.jobs import JobRun


class UserFacingError(Exception):
    """An error whose message is written for the job's owner (bad input, impossible request)."""


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
    prepare: Callable[[dict, list], dict] | None = None

    def validate_params(self, data: Any) -> dict:
        """Validated parameters with defaults filled in; raises serializers.ValidationError."""
        serializer = self.params_serializer(data=data if data is not None else {})
        serializer.is_valid(raise_exception=True)
        return dict(serializer.validated_data)


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
