"""What the API refuses that no OpenAPI schema can state, by operation and field: a value that must name one of
the caller's stored objects, or agree with another field or with the server's data.

schemathesis' positive_data_acceptance sends requests that the schema calls valid and expects them accepted; a
400 naming only these fields is the API doing its job, not a schema of ours that says too little. Every other
400 to a schema-valid request is ours to fix (the schema states every range and type the API checks). Shared by
tests/hostile/test_fuzz.py and bench/bench_schemathesis.py.
"""

from __future__ import annotations

import json

BEYOND_THE_SCHEMA: dict[str, dict[str, str]] = {
    **{f"POST /api/v1/inspect{suffix}": {
        "model": "a location model available to the caller, by id or name",
        "m": "required in fixed mode, and at most the post's deletable units",
        "time_patterns": "a temporal-patterns job of the caller's",
        "remove_time": "only with an English model (time expressions are found in English posts)",
    } for suffix in ("", "/batch", "/report")},
    "POST /api/v1/preferences/reports": {
        "model": "a preference model version available to the caller",
        "reports": "rounds 0 ... R-1 once each, one epsilon, each value exactly +-B(epsilon), indexes below the "
                   "model's coordinates, epsilon in all within PREFERENCE_MAX_EPSILON",
    },
    "POST /api/v1/jobs/": {
        "inputs": "uploads of the caller's, as many as the kind takes",
        "params": "the kind's parameters (listed by /api/v1/job-kinds/), checked against its input file",
    },
    "POST /api/v1/campaigns/": {
        "location_model": "a location model available to the caller",
        "posts": "posts, or a sample size to draw from the model's corpus",
        "min_answers_for_code": "at most per_participant_cap",
        "min_gold_answers": "at most the gold posts given, when any are (issue 43)",
        "per_participant_cap": "room for min_answers_for_code plus every check item (issue 43)",
        "attention_checks": "0, or at least 2: half ask Yes, half No (issue 43)",
        "detail": "what the campaign service refuses: a sample without a model, a de-identification campaign "
                  "without one",
    },
    "POST /api/v1/auth/token/": {"non_field_errors": "a username and its password"},
    "POST /api/v1/uploads/": {"file": "a UTF-8 CSV file with a header row, within the upload limits"},
}


# What negative_data_rejection accepts as refusing an invalid request: schemathesis' own list, plus a body too
# large (413) and a query string too long (414), which the API answers before it reads them.
REJECTING_STATUSES = ["400", "401", "403", "404", "405", "406", "409", "413", "414", "415", "422", "428", "429",
                      "5xx"]


def refused_beyond_the_schema(operation: str, status: int, body: bytes | str) -> bool:
    """Whether a 400 to a schema-valid request names only fields whose validity the schema cannot state."""
    if status != 400:
        return False
    try:
        fields = json.loads(body)
    except ValueError:
        return False
    allowed = BEYOND_THE_SCHEMA.get(operation, {})
    return isinstance(fields, dict) and bool(fields) and set(fields) <= set(allowed)
