"""Replays of the security findings of issue 15 against the real app (findings 1, 2, 9, 10): each test failed
before the fix. Addresses are unique per test, since rate-limit counts live in the session's shared Redis."""

from __future__ import annotations

import stat
from pathlib import Path

import pytest
from django.conf import settings as django_settings
from django.contrib.auth.models import User
from django.test import Client
from django.urls import reverse
from rest_framework.test import APIClient

from anonymizer.management.commands.bootstrap import restrict_permissions
from anonymizer.platform.throttles import client_address

pytestmark = pytest.mark.django_db

PASSWORD = "correct horse battery staple"


# -- 1. rate limits cannot be dodged with X-Forwarded-For ---------------------------------------------------------
@pytest.mark.parametrize("url_name", ["api-inspect", "api-preference-reports"])
def test_forwarded_for_does_not_give_a_new_identity_per_request(url_name, settings):
    settings.INSPECT_RATE_ANON = "3/minute"
    settings.PREFERENCE_REPORT_RATE = "3/hour"
    client = APIClient(REMOTE_ADDR=f"10.15.1.{1 + ['api-inspect', 'api-preference-reports'].index(url_name)}")
    codes = [client.post(reverse(url_name), {}, format="json", HTTP_X_FORWARDED_FOR=f"203.0.113.{i}").status_code
             for i in range(6)]
    assert codes[:3] == [400, 400, 400] and codes[3:] == [429, 429, 429]


def test_behind_trusted_proxies_the_address_they_saw_counts(rf, settings):
    request = rf.get("/", REMOTE_ADDR="10.0.0.2", HTTP_X_FORWARDED_FOR="6.6.6.6, 198.51.100.7")
    assert client_address(request) == "10.0.0.2"  # default: no proxy trusted, the header is ignored
    settings.TRUSTED_PROXY_COUNT = 1
    assert client_address(request) == "198.51.100.7"  # the entry our proxy appended, not the client's own
    settings.TRUSTED_PROXY_COUNT = 5  # more proxies configured than entries: the leftmost, never beyond
    assert client_address(request) == "6.6.6.6"
    assert client_address(rf.get("/", REMOTE_ADDR="10.0.0.3")) == "10.0.0.3"
    # Not an address (a unix-socket server, a proxy's garbage): a fixed address, never the raw string.
    assert client_address(rf.get("/", REMOTE_ADDR="", HTTP_X_FORWARDED_FOR="<script>")) == "0.0.0.0"


# -- 2. brute force: lockout of a username from an address, and a rate per address ----------------------------
@pytest.fixture
def bob(db) -> User:
    return User.objects.create_user("bob", password=PASSWORD)


def test_web_login_locks_a_username_after_the_failure_limit(bob, settings):
    settings.AXES_FAILURE_LIMIT = 3
    client = Client(REMOTE_ADDR="10.15.2.1")
    login = reverse("login")
    assert [client.post(login, {"username": "bob", "password": f"guess {i}"}).status_code for i in range(3)] == \
        [200, 200, 429]
    locked = client.post(login, {"username": "bob", "password": PASSWORD})  # even the right password now
    assert locked.status_code == 429 and "locked for 15 minutes" in locked.content.decode()
    assert "_auth_user_id" not in client.session
    # Another address is not locked out of bob's account: a stranger cannot lock a user out.
    elsewhere = Client(REMOTE_ADDR="10.15.2.2")
    assert elsewhere.post(login, {"username": "bob", "password": PASSWORD}).status_code == 302


def test_api_token_endpoint_locks_out_too(bob, settings):
    settings.AXES_FAILURE_LIMIT = 3
    client = APIClient(REMOTE_ADDR="10.15.3.1")
    url = reverse("api-obtain-token")
    codes = [client.post(url, {"username": "bob", "password": f"guess {i}"}).status_code for i in range(3)]
    assert codes[:2] == [400, 400] and codes[2] == 429
    locked = client.post(url, {"username": "bob", "password": PASSWORD})
    assert locked.status_code == 429 and "locked" in locked.json()["detail"] and "token" not in locked.json()


def test_admin_login_locks_out_too(settings):
    User.objects.create_superuser("root", password=PASSWORD)
    settings.AXES_FAILURE_LIMIT = 2
    client = Client(REMOTE_ADDR="10.15.4.1")
    url = reverse("admin:login")
    codes = [client.post(url, {"username": "root", "password": f"guess {i}"}).status_code for i in range(3)]
    assert codes == [200, 429, 429]


def test_sign_in_and_sign_up_attempts_are_rate_limited_per_address(bob, settings):
    """Guessing across many usernames, or probing which usernames exist at sign-up, is slowed to AUTH_RATE."""
    settings.AUTH_RATE = "4/hour"
    client = Client(REMOTE_ADDR="10.15.5.1")
    probes = [client.post(reverse("signup"), {"username": "bob", "password1": "x", "password2": "x"}).status_code
              for _ in range(2)]
    guesses = [client.post(reverse("login"), {"username": f"user{i}", "password": "guess"}).status_code
               for i in range(2)]
    assert probes + guesses == [200, 200, 200, 200]
    refused = client.post(reverse("signup"), {"username": "carol", "password1": PASSWORD, "password2": PASSWORD})
    assert refused.status_code == 429 and int(refused["Retry-After"]) > 0
    assert not User.objects.filter(username="carol").exists()
    assert client.post(reverse("api-obtain-token"), {"username": "bob", "password": PASSWORD}).status_code == 429
    # GETs (the forms themselves) and other addresses are not affected.
    assert client.get(reverse("login")).status_code == 200
    assert Client(REMOTE_ADDR="10.15.5.2").post(reverse("login"), {"username": "bob", "password": PASSWORD}
                                                ).status_code == 302


# -- 9. files under var/ are private to the user running Kakurega ---------------------------------------------
def test_new_files_are_private_and_bootstrap_fixes_old_ones(tmp_path, alice_client):
    database = Path(django_settings.DATABASES["default"]["NAME"])
    if database.exists():  # SQLite: the test database file itself
        assert stat.S_IMODE(database.stat().st_mode) == 0o600
    created = tmp_path / "new.txt"
    created.write_text("secret")
    assert stat.S_IMODE(created.stat().st_mode) == 0o600  # the process umask (webapp.settings)

    old = tmp_path / "var"
    (old / "redis").mkdir(parents=True)
    for name in ("db.sqlite3", "redis/appendonly.aof"):
        (old / name).write_text("tokens")
        (old / name).chmod(0o644)
    assert restrict_permissions(old) == 2
    assert all(stat.S_IMODE(path.stat().st_mode) == (0o700 if path.is_dir() else 0o600)
               for path in [old, *old.rglob("*")])


def test_uploaded_files_are_private(alice_client, media_root):
    from tests.helpers import csv_upload

    assert alice_client.post(reverse("api-upload-list"), {"file": csv_upload()}).status_code == 201
    stored = [path for path in Path(media_root).rglob("*")]
    assert stored and all(stat.S_IMODE(p.stat().st_mode) == (0o700 if p.is_dir() else 0o600) for p in stored)


# -- 10. headers and exposure --------------------------------------------------------------------------------
def test_pages_carry_a_strict_content_security_policy(client):
    policy = client.get(reverse("home"))["Content-Security-Policy"]
    directives = dict(part.strip().split(" ", 1) for part in policy.split(";") if part.strip())
    assert directives["default-src"] == "'self'" and directives["script-src"] == "'self'"
    assert directives["style-src"] == "'self'" and directives["frame-ancestors"] == "'none'"
    assert "unsafe-inline" not in policy and "unsafe-eval" not in policy
    # The API docs need inline styles for their bundled UI, nothing more; their script comes from a URL.
    docs = client.get(reverse("api-docs"))
    assert docs.status_code == 200 and "style-src 'self' 'unsafe-inline'" in docs["Content-Security-Policy"]
    assert "<script>" not in docs.content.decode()


def test_healthz_shows_detail_to_staff_only(client, admin_client):
    anonymous = client.get(reverse("healthz"))
    assert set(anonymous.json()) == {"ok"}
    assert "checks" in admin_client.get(reverse("healthz")).json()




def test_a_huge_json_body_is_refused_before_it_is_parsed(api, settings):
    """A JSON body is bounded like a form body (DATA_UPLOAD_MAX_MEMORY_SIZE): refused by its Content-Length
    before anything reads it, with a JSON 413 (anonymizer.platform.api_errors); nothing is created."""
    from anonymizer.models import Job

    settings.DATA_UPLOAD_MAX_MEMORY_SIZE = 10_000
    body = '{"kind": "profile_csv", "params": {"pad": "' + "x" * 20_000 + '"}}'
    refused = api.post(reverse("api-job-list"), body, content_type="application/json")
    assert refused.status_code == 413 and "10,000 bytes" in refused.json()["detail"] and not Job.objects.exists()
    accepted = api.post(reverse("api-job-list"), '{"kind": "profile_csv"}', content_type="application/json")
    assert accepted.status_code == 400 and "inputs" in accepted.json()  # parsed, then validated
