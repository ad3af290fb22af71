"""REST API v1: token and session auth, uploads with row/column errors, jobs, ownership, the OpenAPI schema."""

from __future__ import annotations

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from anonymizer.models import Job, Upload
from anonymizer.platform.jobs import runner
from tests.helpers import csv_upload, token_client

pytestmark = pytest.mark.django_db


def create_upload(api) -> dict:
    response = api.post(reverse("api-upload-list"), {"file": csv_upload()}, format="multipart")
    assert response.status_code == 201, response.content
    return response.json()


def test_token_is_obtained_with_username_and_password(user):
    response = APIClient().post(reverse("api-obtain-token"),
                                {"username": "alice", "password": "correct horse battery staple"})
    assert response.status_code == 200
    assert response.json()["token"] == Token.objects.get(user=user).key


def test_anonymous_requests_are_refused():
    response = APIClient().get(reverse("api-job-list"))
    assert response.status_code in (401, 403)


def test_upload_then_profile_job_through_the_api(api, user):
    upload = create_upload(api)
    assert upload["metadata"]["rows"] == 4 and upload["metadata"]["delimiter"] == ","
    response = api.post(reverse("api-job-list"),
                        {"kind": "profile_csv", "params": {"sample_rows": 2}, "inputs": [upload["id"]]}, format="json")
    assert response.status_code == 201, response.content
    job = response.json()
    assert job["status"] == "queued" and job["params"] == {"sample_rows": 2}
    assert job["inputs"] == [{"id": upload["id"], "original_name": "posts.csv"}]
    runner.run_job(job["id"])
    detail = api.get(job["url"]).json()
    assert detail["status"] == "succeeded" and detail["progress"]["fraction"] == 1.0
    assert detail["result"]["rows"] == 4
    result = next(r for r in detail["results"] if r["name"] == "posts.profile.json")
    download = api.get(result["download_url"])
    assert download.status_code == 200 and b'"rows": 4' in b"".join(download.streaming_content)
    listed = api.get(reverse("api-job-list")).json()
    assert listed["count"] == 1 and "result" not in listed["results"][0]


def test_bad_upload_answers_400_with_row_and_column(api):
    response = api.post(reverse("api-upload-list"),
                        {"file": SimpleUploadedFile("bad.csv", b"name,age\nalice,3\nbob\n")}, format="multipart")
    assert response.status_code == 400
    error = response.json()["file"][0]
    assert error["row"] == 3 and "2 columns" in error["message"]
    assert not Upload.objects.exists()


def test_oversized_upload_answers_400_and_stores_nothing(api, settings):
    settings.UPLOAD_MAX_BYTES = 1024
    response = api.post(reverse("api-upload-list"),
                        {"file": SimpleUploadedFile("big.csv", b"a,b\n" + b"1,2\n" * 2000)}, format="multipart")
    assert response.status_code == 400
    assert "larger than the upload limit of" in response.json()["file"][0]
    assert not Upload.objects.exists()


def test_job_parameters_and_inputs_are_validated(api, other_user):
    upload = create_upload(api)
    url = reverse("api-job-list")
    bad_param = api.post(url, {"kind": "profile_csv", "params": {"sample_rows": 1000}, "inputs": [upload["id"]]},
                         format="json")
    assert bad_param.status_code == 400 and "sample_rows" in bad_param.json()["params"]
    no_input = api.post(url, {"kind": "profile_csv", "params": {}, "inputs": []}, format="json")
    assert no_input.status_code == 400 and "1 input file" in no_input.json()["inputs"][0]
    unknown = api.post(url, {"kind": "mine_bitcoin", "inputs": []}, format="json")
    assert unknown.status_code == 400 and "kind" in unknown.json()
    theirs = create_upload(token_client(other_user))
    stolen = api.post(url, {"kind": "profile_csv", "inputs": [theirs["id"]]}, format="json")
    assert stolen.status_code == 400 and theirs["id"] in stolen.json()["inputs"][0]
    assert not Job.objects.exists()


def test_another_users_objects_answer_404(api, other_user):
    upload = create_upload(api)
    job = api.post(reverse("api-job-list"), {"kind": "profile_csv", "inputs": [upload["id"]]}, format="json").json()
    runner.run_job(job["id"])
    result_id = Job.objects.get(id=job["id"]).results.first().id
    mallory = token_client(other_user)
    for method, name, args in [
        ("get", "api-job-detail", [job["id"]]),
        ("delete", "api-job-detail", [job["id"]]),
        ("post", "api-job-cancel", [job["id"]]),
        ("post", "api-job-retry", [job["id"]]),
        ("get", "api-job-result-download", [job["id"], result_id]),
        ("get", "api-upload-detail", [upload["id"]]),
        ("get", "api-upload-download", [upload["id"]]),
        ("delete", "api-upload-detail", [upload["id"]]),
    ]:
        assert getattr(mallory, method)(reverse(name, args=args)).status_code == 404, name
    assert mallory.get(reverse("api-job-list")).json()["count"] == 0
    assert mallory.get(reverse("api-upload-list")).json()["count"] == 0


def test_cancel_retry_and_delete(api):
    upload = create_upload(api)
    job = api.post(reverse("api-job-list"), {"kind": "profile_csv", "inputs": [upload["id"]]}, format="json").json()
    assert api.delete(job["url"]).status_code == 409  # still queued
    assert api.delete(reverse("api-upload-detail", args=[upload["id"]])).status_code == 409  # the job needs it
    assert api.post(reverse("api-job-retry", args=[job["id"]])).status_code == 409
    cancelled = api.post(reverse("api-job-cancel", args=[job["id"]]))
    assert cancelled.status_code == 200 and cancelled.json()["status"] == "cancelled"
    assert api.post(reverse("api-job-cancel", args=[job["id"]])).status_code == 409
    retried = api.post(reverse("api-job-retry", args=[job["id"]]))
    assert retried.status_code == 200 and retried.json()["status"] == "queued"
    api.post(reverse("api-job-cancel", args=[job["id"]]))
    assert api.delete(job["url"]).status_code == 204
    assert not Job.objects.exists()


def test_job_kinds_lists_profile_csv_with_its_parameters(api):
    kinds = {kind["name"]: kind for kind in api.get(reverse("api-job-kinds")).json()}
    assert kinds["profile_csv"]["inputs"] == 1
    assert kinds["profile_csv"]["params"]["sample_rows"]["default"] == 10


def test_openapi_schema_and_docs_are_served_offline(api, user, client):
    schema = api.get(reverse("api-schema"), HTTP_ACCEPT="application/vnd.oai.openapi+json").json()
    assert schema["openapi"].startswith("3.")
    assert {"/api/v1/jobs/", "/api/v1/jobs/{id}/", "/api/v1/uploads/", "/api/v1/jobs/{id}/cancel/"} <= set(
        schema["paths"])
    client.force_login(user)
    docs = client.get(reverse("api-docs")).content.decode()
    assert "swagger-ui" in docs and "cdn." not in docs and "unpkg" not in docs
