"""The time-removal options as one frozen value (issue 47): the defaults said once, a job's stored parameters (also
one stored before an option existed) read into the same value, the mode read as the two switches."""

from __future__ import annotations

import dataclasses
import uuid

import pytest

from anonymizer.temporal.removal import DEFAULT_KEEP_TIME, DEFAULT_TOP, DEFAULTS, TIME_MODES, TimeRemovalOptions


def test_the_defaults_are_the_ones_requests_had():
    assert dataclasses.astuple(TimeRemovalOptions()) == ("both", ("now",), False, None, 10)
    assert DEFAULTS == TimeRemovalOptions() and DEFAULT_KEEP_TIME == ["now"] and DEFAULT_TOP == 10


def test_stored_parameters_read_into_the_same_options():
    job_id = uuid.uuid4()
    assert TimeRemovalOptions.from_params({"text_columns": ["text"], "location_model": None}) == DEFAULTS
    stored = {"time_mode": "prune", "keep_time": ["part_of_day", "now"], "remove_how_long": True,
              "time_patterns": str(job_id), "time_patterns_top": 3, "text_columns": ["text"]}
    expected = TimeRemovalOptions("prune", ("part_of_day", "now"), True, str(job_id), 3)
    assert TimeRemovalOptions.from_params(stored) == expected
    # A serializer's validated data holds the job's id as a UUID; the options hold it as the JSON says it.
    assert TimeRemovalOptions.from_params({**stored, "time_patterns": job_id}) == expected
    assert TimeRemovalOptions.from_params({"time_patterns": None, "keep_time": []}).keep_time == ()


@pytest.mark.parametrize("mode", TIME_MODES)
def test_the_mode_is_the_two_switches(mode):
    options = TimeRemovalOptions(time_mode=mode)
    assert (options.prune, options.generalize) == TIME_MODES[mode]


def test_the_options_cannot_change_on_their_way_down():
    with pytest.raises(dataclasses.FrozenInstanceError):
        DEFAULTS.time_mode = "prune"
