"""The API's edges (issue 42, findings 4, 6 and 7): one error shape, strict types, ownership before queueing.

- 4: JSON nested deeper than MAX_JSON_DEPTH is a 400 naming the limit on every endpoint that reads a body,
  anonymous ones included (it was a RecursionError, a 500), and so is malformed JSON.
- 6: a job naming a campaign that is not the user's (or ``false``, which DRF made the nil UUID) is refused by
  field before anything is queued (it was queued, and refused only by the worker: a 503 without a broker).
- 7: a body over DATA_UPLOAD_MAX_MEMORY_SIZE is a JSON 413 (it was the HTML 400 page), a too long query string
  a JSON 414, more job ids than the status endpoint takes a 400 naming the limit (they were cut silently),
  ``?page=`` without a number a 400 naming ``page`` (it was page 1), a form body where the API declares lists a
  415 (a lone string became a one-item list), and the schema states the ranges the API enforces.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import uuid

import pytest
from django.urls import reverse
from rest_framework.test import APIClient

from anonymizer.crowd.web import services as crowd
from anonymizer.models import Job
from anonymizer.platform import uploads as upload_services
from anonymizer.platform.api import MAX_STATUS_IDS
from anonymizer.platform.api_errors import MAX_QUERY_STRING_CHARS
from anonymizer.platform.api_input import MAX_JSON_DEPTH
from tests.conftest import database_url
from tests.helpers import ROOT, csv_upload, token_client, wait_for
from webapp.embedded_redis import free_port

pytestmark = pytest.mark.django_db

# The endpoints that read a JSON body, and who may call them.
ANONYMOUS_BODIES = ["/api/v1/inspect", "/api/v1/inspect/batch", "/api/v1/inspect/report",
                    "/api/v1/preferences/reports", "/api/v1/auth/token/"]
SIGNED_IN_BODIES = ["/api/v1/jobs/", "/api/v1/campaigns/"]


def _nested(depth: int) -> str:
    return "[" * depth + "]" * depth


@pytest.fixture
def staff_api(staff) -> APIClient:
    return token_client(staff)


@pytest.fixture(autouse=True)
def _unthrottled(settings):
    """Other tests of the session spend the per-address rates in the shared cache; these count nothing."""
    settings.INSPECT_RATE_ANON = settings.INSPECT_RATE_USER = "100000/minute"
    settings.PREFERENCE_REPORT_RATE = "100000/hour"


def _assert_json_error(response, status: int, *words: str) -> dict:
    assert response.status_code == status, (response.status_code, response.content[:300])
    assert response["Content-Type"].startswith("application/json"), response["Content-Type"]
    body = response.json()
    for word in words:
        assert word in json.dumps(body), body
    return body


# -- 4: deep and malformed JSON ---------------------------------------------------------------------------------
@pytest.mark.parametrize("path", ANONYMOUS_BODIES + SIGNED_IN_BODIES)
@pytest.mark.parametrize("depth", [100_000, MAX_JSON_DEPTH + 1])
def test_json_nested_too_deep_is_a_400_naming_the_limit(staff_api, path, depth):
    client = staff_api if path in SIGNED_IN_BODIES else APIClient()
    body = json.dumps({"text": "x", "keep": json.loads(_nested(depth - 1))}) if depth < 1000 else _nested(depth)
    response = client.post(path, body, content_type="application/json")
    _assert_json_error(response, 400, f"nested deeper than {MAX_JSON_DEPTH} levels")


@pytest.mark.parametrize("path", ANONYMOUS_BODIES)
def test_malformed_json_is_a_json_400(path):
    _assert_json_error(APIClient().post(path, '{"text": ', content_type="application/json"), 400, "JSON parse error")


def test_the_campaign_participant_api_refuses_deep_json(staff):
    campaign = crowd.create_campaign(owner=staff, name="c", instructions="x", consent_text="x",
                                     posts=[crowd.PostSpec("hello")])
    participant = APIClient()
    participant.post(reverse("crowd-join", args=[campaign.join_token]), {"consent": "yes"}, format="multipart")
    response = participant.post(reverse("crowd-api", args=[campaign.join_token, "answer"]), _nested(100_000),
                                content_type="application/json")
    assert response.status_code == 400 and "error" in response.json()


def test_json_within_the_depth_limit_is_read(api):
    nested = json.loads(_nested(MAX_JSON_DEPTH - 2))
    response = api.post(reverse("api-job-list"), {"kind": "profile_csv", "params": {"x": nested}}, format="json")
    assert response.status_code == 400 and "nested" not in response.content.decode()  # refused for its fields


# -- 6: another user's campaign ---------------------------------------------------------------------------------
@pytest.mark.parametrize("kind", ["calibrate_threshold", "train_human_model", "machine_human_table"])
@pytest.mark.parametrize("whose", ["false", "zero", "nil", "nobody's", "someone else's"])
def test_a_job_on_a_campaign_not_yours_is_refused_by_field_before_anything_is_queued(staff_api, django_user_model,
                                                                                     kind, whose):
    other = django_user_model.objects.create_user("tanaka", password="another staff passphrase", is_staff=True)
    theirs = crowd.create_campaign(owner=other, name="theirs", instructions="x", consent_text="x",
                                   posts=[crowd.PostSpec("hello")])
    campaign = {"false": False, "zero": 0, "nil": str(uuid.UUID(int=0)), "nobody's": str(uuid.uuid4()),
                "someone else's": str(theirs.id)}[whose]
    response = staff_api.post(reverse("api-job-list"), {"kind": kind, "params": {"campaign": campaign}},
                              format="json")
    body = _assert_json_error(response, 400)
    assert "campaign" in body["params"], body
    assert not Job.objects.exists()


def test_uuid_fields_take_strings_only(api, user, location_models):
    response = APIClient().post(reverse("api-preference-reports"), {
        "model": False, "reports": [{"round": 0, "index": 0, "value": 1.0, "epsilon": 1.0}]}, format="json")
    assert response.status_code == 400 and "model" in response.json()
    response = APIClient().post(reverse("api-inspect"), {"text": "hello", "time_patterns": 0}, format="json")
    assert response.status_code == 400 and "time_patterns" in response.json()
    response = api.post(reverse("api-job-list"), {"kind": "profile_csv", "inputs": [0]}, format="json")
    assert response.status_code == 400 and "inputs" in response.json()


@pytest.mark.parametrize(("path", "body", "field", "expected"), [
    ("/api/v1/inspect", {"text": 5}, "text", "a string"),
    ("/api/v1/inspect", {"text": "hello", "remove_time": "yes"}, "remove_time", "true or false"),
    ("/api/v1/inspect", {"text": "hello", "mode": "fixed", "m": True}, "m", "a whole number"),
    ("/api/v1/inspect", {"text": "hello", "keep": [1]}, "keep", "a string"),
    ("/api/v1/inspect/batch", {"texts": [1, "two"]}, "texts", "a string"),
    ("/api/v1/preferences/reports", {"model": str(uuid.uuid4()),
                                     "reports": [{"round": "0", "index": 0, "value": 1.0, "epsilon": 1.0}]},
     "reports", "a whole number"),
])
def test_a_json_value_of_another_type_than_its_field_declares_is_refused_by_field(path, body, field, expected):
    """DRF makes 5 the text "5" and "yes" true; the schema says string and boolean, and so does the API."""
    response = APIClient().post(path, body, format="json")
    body = _assert_json_error(response, 400, "Expected " + expected)
    assert field in body, body


def test_job_parameters_and_campaign_fields_of_another_json_type_are_refused(api, user, staff_api):
    upload = upload_services.create_csv_upload(owner=user, uploaded=csv_upload())
    response = api.post(reverse("api-job-list"), {"kind": "profile_csv", "params": {"sample_rows": "10"},
                                                  "inputs": [str(upload.id)]}, format="json")
    assert "a whole number" in json.dumps(_assert_json_error(response, 400)["params"]["sample_rows"])
    _assert_json_error(api.post(reverse("api-job-list"), {"kind": "profile_csv", "params": None}, format="json"),
                       400, "params")
    response = staff_api.post("/api/v1/campaigns/", {"name": "c", "instructions": "x", "consent_text": "x",
                                                     "ask_location": "true", "posts": [{"text": 7}]}, format="json")
    body = _assert_json_error(response, 400, "true or false")
    assert "a string" in json.dumps(body["posts"]) and not Job.objects.exists()


# -- 7: sizes, query strings, pages, forms, the schema -----------------------------------------------------------
def test_a_body_over_the_limit_is_a_json_413(settings):
    body = json.dumps({"text": "a" * (settings.DATA_UPLOAD_MAX_MEMORY_SIZE + 1)})
    response = APIClient().post(reverse("api-inspect"), body, content_type="application/json")
    _assert_json_error(response, 413, f"{settings.DATA_UPLOAD_MAX_MEMORY_SIZE:,} bytes")


def test_more_status_ids_than_the_limit_is_a_400_naming_it(api, user):
    ids = [str(uuid.uuid4()) for _ in range(MAX_STATUS_IDS + 1)]
    url = reverse("api-job-status")
    _assert_json_error(api.get(url, {"ids": ",".join(ids)}), 400, "ids", f"At most {MAX_STATUS_IDS}")
    assert api.get(url, {"ids": ",".join(ids[:MAX_STATUS_IDS])}).status_code == 200
    assert len(f"{url}?ids={'%2C'.join(ids[:MAX_STATUS_IDS])}") < MAX_QUERY_STRING_CHARS  # fits a request line


def test_a_query_string_too_long_is_a_json_414(api):
    ids = ",".join(str(uuid.uuid4()) for _ in range(2_000))
    _assert_json_error(api.get(reverse("api-job-status"), {"ids": ids}), 414, f"{MAX_QUERY_STRING_CHARS:,}")


@pytest.mark.parametrize("page", ["", "x", "0", "-1", "1.5", "１"])
def test_a_page_that_is_not_a_whole_number_from_1_is_a_400_naming_page(api, page):
    body = _assert_json_error(api.get(reverse("api-job-list"), {"page": page}), 400)
    assert "page" in body


def test_pages_in_and_past_the_list(api):
    assert api.get(reverse("api-job-list"), {"page": "1"}).status_code == 200
    _assert_json_error(api.get(reverse("api-job-list"), {"page": "9" * 30}), 404)


@pytest.mark.parametrize(("path", "form"), [
    ("/api/v1/inspect", {"text": "Lunch in Little Rock", "keep": "lunch"}),
    ("/api/v1/inspect/batch", {"texts": "Lunch in Little Rock"}),
    ("/api/v1/preferences/reports", {"model": str(uuid.uuid4()), "reports": "x"}),
])
@pytest.mark.parametrize("encoding", ["multipart", "form"])
def test_a_form_body_where_the_api_declares_lists_is_a_415(path, form, encoding):
    client = APIClient()
    if encoding == "multipart":
        response = client.post(path, form, format="multipart")
    else:
        response = client.post(path, "&".join(f"{k}={v}" for k, v in form.items()),
                               content_type="application/x-www-form-urlencoded")
    _assert_json_error(response, 415, "Unsupported media type")


def test_the_token_endpoint_still_takes_a_form(user):
    response = APIClient().post(reverse("api-obtain-token"),
                                {"username": "alice", "password": "correct horse battery staple"}, format="multipart")
    assert response.status_code == 200 and response.json()["token"]


@pytest.mark.parametrize("encoding", ["multipart", "json"])
def test_a_username_holding_nul_is_a_400_naming_it_before_any_lookup(user, encoding):
    """Found by test_fuzz on PostgreSQL: django-axes looked the username up before the serializer refused its NUL,
    and PostgreSQL cannot hold NUL in a text (a 500 there)."""
    response = APIClient().post("/api/v1/auth/token/", {"username": "al\x00ice", "password": "0"}, format=encoding)
    assert response.status_code == 400, response.content
    assert response.json() == {"username": ["Null characters are not allowed."]}


def test_a_username_longer_than_any_is_a_400_naming_it_before_any_lookup(user):
    """Found by test_fuzz on PostgreSQL: django-axes recorded the failed attempt's 300-character username in a
    255-character column (a 500 there); the schema states the limit."""
    response = APIClient().post("/api/v1/auth/token/", {"username": "a" * 151, "password": "0"}, format="json")
    assert response.status_code == 400, response.content
    assert response.json() == {"username": ["Ensure this field has no more than 150 characters."]}
    assert APIClient().post("/api/v1/auth/token/", {"username": "a" * 150, "password": "0"},
                            format="json").status_code == 400  # a wrong password, said as before


def test_an_unknown_api_path_is_a_json_404():
    _assert_json_error(APIClient().get("/api/v1/no-such-thing/"), 404, "No such API endpoint")


def test_an_unhandled_error_under_api_is_a_json_500(api, monkeypatch):
    def broken(*args, **kwargs):
        raise RuntimeError("a bug")

    monkeypatch.setattr("anonymizer.platform.api.JobKindListView.get", broken)
    api.raise_request_exception = False
    body = _assert_json_error(api.get(reverse("api-job-kinds")), 500)
    assert "a bug" not in json.dumps(body)


def _schema() -> dict:
    return APIClient().get(reverse("api-schema"), HTTP_ACCEPT="application/vnd.oai.openapi+json").json()


def test_the_schema_states_the_ranges_the_api_enforces(settings):
    schema = _schema()
    components = schema["components"]["schemas"]
    campaign = components["CampaignRequest"]["properties"]
    cutoff = {"minimum": 0, "exclusiveMinimum": True, "maximum": 1, "exclusiveMaximum": True}
    assert cutoff.items() <= campaign["cutoff"].items(), campaign["cutoff"]
    assert campaign["gold_share"]["maximum"] == 1 and campaign["gold_share"]["exclusiveMaximum"] is True
    inspect = components["InspectRequestRequest"]["properties"]
    assert inspect["text"]["maxLength"] == settings.INSPECT_MAX_CHARS
    assert inspect["m"]["maximum"] == settings.INSPECT_MAX_M and inspect["m"]["minimum"] == 1
    texts = components["InspectBatchRequestRequest"]["properties"]["texts"]
    assert texts["maxItems"] == settings.INSPECT_MAX_BATCH and texts["items"]["maxLength"] == settings.INSPECT_MAX_CHARS
    reports = components["ContributionRequest"]["properties"]["reports"]
    assert reports["minItems"] == 1 and reports["maxItems"] == settings.PREFERENCE_MAX_ROUNDS
    page = next(p for p in schema["paths"]["/api/v1/jobs/"]["get"]["parameters"] if p["name"] == "page")
    assert page["schema"]["minimum"] == 1
    for path, operations in schema["paths"].items():  # JSON bodies only: no form where a list is declared
        for operation in operations.values():
            content = operation.get("requestBody", {}).get("content", {})
            if path not in ("/api/v1/uploads/", "/api/v1/auth/token/"):
                assert set(content) <= {"application/json"}, (path, set(content))


def _raw_get(port: int, target: str) -> tuple[int, str, bytes]:
    """A GET sent as bytes (no client library shortens or refuses a long line); status, Content-Type, body."""
    with socket.create_connection(("127.0.0.1", port), timeout=30) as sock:
        sock.sendall(f"GET {target} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n".encode())
        raw = b""
        while chunk := sock.recv(65536):
            raw += chunk
    head, _, body = raw.partition(b"\r\n\r\n")
    lines = head.decode("latin1").split("\r\n")
    headers = dict(line.split(": ", 1) for line in lines[1:] if ": " in line)
    return int(lines[0].split()[1]), headers.get("Content-Type", ""), body


def test_gunicorn_refuses_a_request_line_too_long_as_json_and_takes_the_status_ids_the_api_allows(tmp_path):
    """Behind gunicorn (gunicorn.conf.py), 2,000 job ids were an HTML 414 page from gunicorn itself, and 200,
    which the API allows, did not fit its default request line either."""
    port = free_port()
    env = {**os.environ, "VAR_DIR": str(tmp_path / "var"), "DATABASE_URL": database_url()}
    server = subprocess.Popen([sys.executable, "-m", "gunicorn", "webapp.wsgi", "-c", "gunicorn.conf.py",
                               "--bind", f"127.0.0.1:{port}", "--workers", "1"], cwd=ROOT, env=env,
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    try:
        wait_for(lambda: _listening(port), timeout=60)
        ids = [str(uuid.uuid4()) for _ in range(2_000)]
        status, content_type, body = _raw_get(port, f"/api/v1/jobs/status/?ids={','.join(ids)}")
        assert (status, content_type) == (414, "application/json"), (status, body[:200])
        assert "8190" in json.loads(body)["detail"]
        allowed = "%2C".join(ids[:MAX_STATUS_IDS])
        status, content_type, body = _raw_get(port, f"/api/v1/jobs/status/?ids={allowed}")
        assert status == 403 and content_type == "application/json", (status, body[:200])  # reached the API
    finally:
        os.killpg(server.pid, signal.SIGTERM)
        server.wait(30)


def _listening(port: int) -> bool:
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=1):
            return True
    except OSError:
        return False
