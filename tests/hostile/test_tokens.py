"""Tokens and password checks (issue 42, finding 5): changing the password replaces the API token and ends every
other session; the old password asked by the password change (and the password asked by the account deletion)
is checked like a sign-in, so wrong ones lock the account out from that address and count toward AUTH_RATE."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from django.test import Client
from django.urls import reverse
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from tests.helpers import token_client

pytestmark = pytest.mark.django_db
PASSWORD = "correct horse battery staple"
NEW_PASSWORD = "a new long passphrase 42"


def signed_in(address: str, username: str = "alice", password: str = PASSWORD) -> Client:
    """A browser that signed in through the login form, as a person does."""
    client = Client(REMOTE_ADDR=address)
    assert client.post(reverse("login"), {"username": username, "password": password}).status_code == 302
    return client


def change_password(client: Client, old: str, new: str = NEW_PASSWORD):
    return client.post(reverse("password_change"), {"old_password": old, "new_password1": new,
                                                    "new_password2": new})


def can_see_jobs(client: Client | APIClient) -> bool:
    return client.get(reverse("api-job-list")).status_code == 200


def refused_token(client: APIClient) -> bool:
    """The API refuses the client's token as unknown (403 while SessionAuthentication is DRF's first scheme)."""
    response = client.get(reverse("api-job-list"))
    return response.status_code in (401, 403) and response.json()["detail"] == "Invalid token."


def test_a_password_change_replaces_the_api_token_and_ends_other_sessions(user):
    script = token_client(user)
    old_key = Token.objects.get(user=user).key
    here, elsewhere = signed_in("10.42.1.1"), signed_in("10.42.1.2")
    assert can_see_jobs(script) and can_see_jobs(here) and can_see_jobs(elsewhere)

    changed = change_password(here, PASSWORD)
    assert changed.status_code == 302 and changed.url == reverse("password_change_done")
    # The token made before the change is refused; a script gets a new one with the new password only.
    assert refused_token(script)
    assert not Token.objects.filter(key=old_key).exists()
    obtain = APIClient(REMOTE_ADDR="10.42.1.3")
    assert obtain.post(reverse("api-obtain-token"), {"username": "alice", "password": PASSWORD}).status_code == 400
    fresh = obtain.post(reverse("api-obtain-token"), {"username": "alice", "password": NEW_PASSWORD})
    assert fresh.status_code == 200 and fresh.json()["token"] != old_key
    # This browser stays signed in (and is told about the token); the other one is signed out.
    assert can_see_jobs(here) and "API token was replaced" in here.get(changed.url).content.decode()
    assert not can_see_jobs(elsewhere) and elsewhere.get(reverse("account")).status_code == 302


def test_replacing_the_token_kills_the_old_one(user, alice_client):
    script = token_client(user)
    assert can_see_jobs(script)
    assert alice_client.post(reverse("api-token"), {"confirm": "yes"}).status_code == 302
    assert refused_token(script)
    assert Token.objects.filter(user=user).count() == 0  # the next one is made when asked for
    assert alice_client.get(reverse("api-token")).status_code == 200 and Token.objects.filter(user=user).count() == 1


def test_wrong_old_passwords_lock_the_account_out_like_failed_sign_ins(user, settings):
    settings.AXES_FAILURE_LIMIT = 3
    browser = signed_in("10.42.2.1")
    codes = [change_password(browser, f"guess {i}").status_code for i in range(3)]
    assert codes == [200, 200, 429]
    locked = change_password(browser, PASSWORD)  # even the right old password, now
    assert locked.status_code == 429 and "locked for 15 minutes" in locked.content.decode()
    user.refresh_from_db()
    assert user.check_password(PASSWORD) and Token.objects.filter(user=user).count() == 0
    # Counted like failed sign-ins: signing in from this address is locked too; from another it is not.
    assert Client(REMOTE_ADDR="10.42.2.1").post(reverse("login"), {"username": "alice", "password": PASSWORD}
                                                ).status_code == 429
    assert signed_in("10.42.2.2")


def test_wrong_passwords_at_account_deletion_lock_out_too(user, settings):
    settings.AXES_FAILURE_LIMIT = 2
    browser = signed_in("10.42.3.1")
    codes = [browser.post(reverse("account-delete"), {"password": f"guess {i}"}).status_code for i in range(2)]
    assert codes == [400, 429]
    assert browser.post(reverse("account-delete"), {"password": PASSWORD}).status_code == 429
    assert get_user_model().objects.filter(pk=user.pk).exists()


def test_password_change_and_account_deletion_count_toward_the_auth_rate(user, settings):
    settings.AUTH_RATE = "3/hour"
    browser = signed_in("10.42.4.1")  # the sign-in is the first attempt
    assert change_password(browser, "guess").status_code == 200
    assert browser.post(reverse("account-delete"), {"password": "guess"}).status_code == 400
    refused = change_password(browser, PASSWORD)
    assert refused.status_code == 429 and int(refused["Retry-After"]) > 0
    assert browser.post(reverse("account-delete"), {"password": PASSWORD}).status_code == 429
    user.refresh_from_db()
    assert user.check_password(PASSWORD) and get_user_model().objects.filter(pk=user.pk).exists()
    assert browser.get(reverse("password_change")).status_code == 200  # the form itself is not limited
