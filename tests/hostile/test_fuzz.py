"""Property-based fuzzing of every operation of the REST API (issue 15).

schemathesis reads the app's own OpenAPI schema (drf-spectacular at /api/v1/schema/), generates requests from it
(valid and invalid ones: the boundary values of its coverage phase and random ones) and sends them to the app
in-process, through its WSGI application, on the test database and the session's embedded Redis: no network
beyond that loopback Redis. Every check schemathesis has runs on every answer (`--checks all`): no server error
(5xx), a documented status code, content type and headers, a body that matches the documented schema, a request
the schema calls invalid refused, one it calls valid accepted, credentials not ignored, other methods refused. An
answer the API legitimately gives (a 409, a 429) is documented on its view with extend_schema, not allowed here;
the one allowance is a 400 naming only fields whose validity no schema can state (a model of yours: see
tests/hostile/schema_limits.py).

Bounded and repeatable: MAX_EXAMPLES random requests per operation, plus the coverage phase's cases; derandomized
with a fixed seed, with Hypothesis' example database off. To look further by hand, FUZZ_SEED=… FUZZ_EXAMPLES=…
change both (a failure then shows the request to reproduce it with).

Each request runs in a savepoint that is rolled back after it, so every example starts from the same objects
(``world``): Alice, a staff user with an API token, her upload, a queued job and an ended one with results, a
campaign, the two default location models and a preference model. About half the requests (chosen by a hash of
what was generated, so the same every run) name those objects instead of random ids, so what lies behind the
404s is fuzzed too. A job created here stays queued: it is published only when its transaction commits, which
the savepoint never does, so no worker is needed.
"""

from __future__ import annotations

import os
import uuid
import zlib

import pytest
import schemathesis
from django.core import signals
from django.db import close_old_connections, transaction
from rest_framework.authtoken.models import Token
from schemathesis.specs.openapi.checks import RejectedPositiveData, positive_data_acceptance

from anonymizer.crowd.web import services as crowd
from anonymizer.platform import uploads as upload_services
from anonymizer.platform.jobs import services as job_services
from anonymizer.platform.jobs.registry import get_job_kind
from anonymizer.preferences.aggregate import read_aggregate
from anonymizer.preferences.items import ItemSpace
from anonymizer.preferences.labels import ProxyLabelRule
from anonymizer.preferences.serving import train_artifact
from anonymizer.preferences.web.services import DEFAULT_PREFERENCE_MODEL, register_preference_model
from tests.helpers import PAPER_EXAMPLE_ROWS, ROOT, csv_bytes, csv_upload, run_in_process
from tests.hostile.schema_limits import REJECTING_STATUSES, refused_beyond_the_schema
from webapp.wsgi import application

pytestmark = pytest.mark.django_db

SEED = int(os.environ.get("FUZZ_SEED", "15"))
MAX_EXAMPLES = int(os.environ.get("FUZZ_EXAMPLES", "10"))
SCHEMA_PATH = "/api/v1/schema/"
# Alice's API token in every signed-in run: schemathesis sends it as the schema's tokenAuth, and so knows what to
# leave out or spoil when it checks that credentials are not ignored.
TOKEN_KEY = "f" * 40


def _config(*, coverage: bool, signed_in: bool) -> schemathesis.Config:
    return schemathesis.Config.from_dict({
        **({"auth": {"openapi": {"tokenAuth": {"api_key": f"Token {TOKEN_KEY}"}}}} if signed_in else {}),
        "checks": {"negative_data_rejection": {"expected-statuses": REJECTING_STATUSES}},
        "seed": SEED,
        # Hypothesis' health checks are about the test function, not the API: function-scoped fixtures are
        # intended here (each operation gets a fresh world), and some operations are slow to answer.
        "suppress-health-check": ["all"],
        "generation": {
            "mode": "all",  # valid and invalid requests
            "max-examples": MAX_EXAMPLES,
            "deterministic": True,
            "database": "none",
            # Credentials are the test's to send (Alice's token, or none): generated ones would only be refused.
            "with-security-parameters": False,
        },
        "phases": {"coverage": {"enabled": coverage}, "stateful": {"enabled": False}},
    })


schema = schemathesis.openapi.from_wsgi(SCHEMA_PATH, application, config=_config(coverage=True, signed_in=True))
# The anonymous run skips the coverage phase: its boundary cases reach the same handlers as in the signed-in run,
# and past INSPECT_RATE_ANON (60/minute) nearly all of them would be answered 429.
anonymous_schema = schemathesis.openapi.from_wsgi(SCHEMA_PATH, application,
                                                  config=_config(coverage=False, signed_in=False))


def _allows_anonymous(ctx) -> bool:
    """The schema says so with an empty security requirement (drf-spectacular writes one for AllowAny)."""
    return {} in ctx.operation.definition.raw.get("security", [])


@pytest.fixture(scope="module")
def preference_artifact():
    """The default preference model, as bootstrap trains it (well under a second)."""
    spec = DEFAULT_PREFERENCE_MODEL
    checkins = read_aggregate(ROOT / "data" / spec.data)
    items = ItemSpace(slot_hours=spec.slot_hours, split_week=spec.split_week, place=spec.place).fit(checkins)
    return train_artifact(spec.name, ProxyLabelRule().ratings(checkins, items), items, spec.trainer(), source="proxy")


@pytest.fixture
def in_process(settings):
    """What a WSGI server in another process would give each request, in this one."""
    # The rate limits count in Redis under this prefix only: the fuzzing neither uses up nor sees the limits of
    # other tests (their counters live as long as the session's Redis).
    settings.CACHES = {**settings.CACHES,
                       "default": {**settings.CACHES["default"], "KEY_PREFIX": f"fuzz-{uuid.uuid4().hex[:12]}"}}
    # PREFERENCE_REPORT_RATE (10/hour) would answer 429 to nearly every report the fuzzing sends.
    settings.PREFERENCE_REPORT_RATE = "100000/hour"
    # The token endpoint checks a password on every attempt; the default hasher takes ~0.5 s a check here.
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    # Django closes the database connection at the end of a request; in the test's transaction that would
    # lose the world. Its own test client disconnects the same handler.
    signals.request_started.disconnect(close_old_connections)
    signals.request_finished.disconnect(close_old_connections)
    yield
    signals.request_started.connect(close_old_connections)
    signals.request_finished.connect(close_old_connections)


@pytest.fixture
def world(in_process, user, location_models, preference_artifact) -> dict:
    user.is_staff = True  # campaigns are staff-only: a plain user would only ever get 403 there
    user.save()
    upload = upload_services.create_csv_upload(owner=user, uploaded=csv_upload())
    return {
        "token": Token.objects.create(user=user, key=TOKEN_KEY).key,
        "upload": upload,
        "ended": run_in_process(owner=user, kind="profile_csv", params={}, inputs=[upload]),
        "queued": job_services.create_job(owner=user, kind="profile_csv", params={}, inputs=[upload]),
        "campaign": crowd.create_campaign(owner=user, name="Fuzz", instructions="Judge the post.",
                                          consent_text="I agree.", posts=[crowd.PostSpec("Lunch in Little Rock")]),
        "preference": register_preference_model(preference_artifact, title="Default", metadata={"labels": "proxy"}),
    }


def _pick(value: object, choices: int) -> int:
    """A deterministic choice among ``choices`` from what was generated."""
    return zlib.crc32(repr(value).encode()) % choices


def name_existing_objects(case, world: dict) -> None:
    """In about half the valid cases, put the ids and names of the world's objects where the schema only says
    'a UUID' or 'a string', so the requests reach past the lookups. An invalid case stays as generated: naming
    an object could replace the very value that makes it invalid."""
    if _pick((case.path_parameters, case.body), 2) or (case.meta and case.meta.generation.mode.is_negative):
        return
    path = case.operation.path
    params = case.path_parameters or {}
    if "id" in params:
        if path.startswith("/api/v1/uploads/"):
            params["id"] = str(world["upload"].id)
        elif path.startswith("/api/v1/jobs/"):
            ended = "results" in path or _pick(params, 2)
            params["id"] = str(world["ended" if ended else "queued"].id)
        elif path.startswith("/api/v1/campaigns/"):
            params["id"] = str(world["campaign"].id)
    if "result_id" in params:
        params["result_id"] = world["ended"].results.first().id
    body = case.body
    if not isinstance(body, dict):
        return
    if path == "/api/v1/uploads/" and "file" in body:
        body["file"] = csv_bytes(PAPER_EXAMPLE_ROWS)
    if path == "/api/v1/jobs/" and isinstance(body.get("inputs"), list):
        try:
            wanted = get_job_kind(body.get("kind")).inputs
        except Exception:  # not a kind's name: one input, the usual
            wanted = 1
        body["inputs"] = [str(world["upload"].id)] * wanted
    if path.startswith("/api/v1/inspect") and "model" in body:
        body["model"] = ["tokyo-ja", "us-midwest-en"][_pick(body, 2)]
    if path == "/api/v1/preferences/reports" and "model" in body:
        body["model"] = str(world["preference"].id)
    if path == "/api/v1/campaigns/" and "location_model" in body:
        # Rarely a model: a campaign with one may sample its posts from the model's corpus, which takes a second.
        choice = _pick(body, 16)
        if choice == 0:
            body["location_model"] = "us-midwest-en"
        elif choice < 9:
            body["location_model"] = None


def positive_data_accepted_within_the_schema(ctx, response, case) -> bool | None:
    """positive_data_acceptance, but a 400 naming only fields whose validity no schema can state (schema_limits)
    is the API doing its job."""
    try:
        return positive_data_acceptance(ctx, response, case)
    except RejectedPositiveData:
        if refused_beyond_the_schema(case.operation.label, response.status_code, response.content):
            return None
        raise


class _RolledBack(Exception):
    pass


def call_and_check(case) -> None:
    """Send the request and check the answer with every check, in a savepoint rolled back after it."""
    try:
        with transaction.atomic():
            # A WSGI server says where the request came from (the rate limits and the lockout count by it);
            # werkzeug's test client, which schemathesis calls the app with, leaves REMOTE_ADDR out.
            case.call_and_validate(excluded_checks=[positive_data_acceptance],
                                   additional_checks=[positive_data_accepted_within_the_schema],
                                   environ_base={"REMOTE_ADDR": "127.0.0.1"})
            raise _RolledBack
    except _RolledBack:
        pass


@schema.parametrize()
def test_every_operation_signed_in_with_a_token(case, world):
    name_existing_objects(case, world)
    call_and_check(case)


@anonymous_schema.include(_allows_anonymous).parametrize()
def test_the_anonymous_operations_without_credentials(case, world):
    name_existing_objects(case, world)
    call_and_check(case)
