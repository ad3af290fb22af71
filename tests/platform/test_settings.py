"""Settings come from the environment: a bad value stops start-up with a message naming the variable, and the
production variables pass `manage.py check --deploy`."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from tests.helpers import ROOT

PRODUCTION = {
    "SECRET_KEY": "k" * 20 + "9f2Jq!x7Lm#Pz4Rt8Vb1Nc6Wd3Ys0Ha5Ue2",
    "DEBUG": "false",
    "ALLOWED_HOSTS": "kakurega.example.org",
    "HTTPS_ONLY": "true",
    "DATABASE_URL": "postgresql://kakurega@db.example.org:5432/kakurega",
    "REDIS_URL": "redis://redis.example.org:6379/0",
}


def manage(*args: str, **env: str) -> subprocess.CompletedProcess:
    clean = {k: v for k, v in os.environ.items() if k not in PRODUCTION and not k.startswith("JOB_")}
    return subprocess.run([sys.executable, "manage.py", *args], cwd=ROOT, env={**clean, **env},
                          capture_output=True, text=True, timeout=120)


def test_check_deploy_passes_with_production_variables(tmp_path):
    result = manage("check", "--deploy", "--fail-level", "WARNING", VAR_DIR=str(tmp_path), **PRODUCTION)
    assert result.returncode == 0, result.stdout + result.stderr


def test_check_deploy_warns_without_https(tmp_path):
    env = {**PRODUCTION, "HTTPS_ONLY": "false"}
    result = manage("check", "--deploy", "--fail-level", "WARNING", VAR_DIR=str(tmp_path), **env)
    assert result.returncode != 0 and "SECURE_SSL_REDIRECT" in result.stderr


@pytest.mark.parametrize(
    ("variable", "value", "message"),
    [
        ("DEBUG", "ture", "DEBUG='ture' is invalid"),
        ("UPLOAD_MAX_MB", "lots", "UPLOAD_MAX_MB='lots' is invalid: expected a whole number"),
        ("DATABASE_URL", "mysql-ish://nowhere", "DATABASE_URL is invalid"),
        ("REDIS_URL", "http://localhost", "REDIS_URL='http://localhost' is invalid"),
        ("JOB_STALE_AFTER_SECONDS", "5", "must be at least twice JOB_HEARTBEAT_SECONDS"),
        ("SECRET_KEY", "short", "SECRET_KEY is too weak"),
        ("PREFERENCE_MAX_EPSILON", "5", "more than a person's whole budget PREFERENCE_LEDGER_EPSILON=2"),
        ("PREFERENCE_REPORT_RATE", "often", "PREFERENCE_REPORT_RATE='often' is invalid"),
    ],
)
def test_a_bad_value_stops_start_up_naming_the_variable(tmp_path, variable, value, message):
    result = manage("check", VAR_DIR=str(tmp_path), **{variable: value})
    assert result.returncode != 0
    assert message in result.stderr
    assert "ImproperlyConfigured" in result.stderr


def test_production_refuses_to_invent_a_secret_key(tmp_path):
    env = {k: v for k, v in PRODUCTION.items() if k != "SECRET_KEY"}
    result = manage("check", VAR_DIR=str(tmp_path), **env)
    assert result.returncode != 0 and "SECRET_KEY must be set when HTTPS_ONLY=true" in result.stderr


def test_local_defaults_need_no_configuration(tmp_path):
    result = manage("shell", "-c", "from django.conf import settings as s; print(s.DATABASES['default']['ENGINE'], "
                    "s.CELERY_BROKER_URL, s.DEBUG, s.MEDIA_ROOT)", VAR_DIR=str(tmp_path))
    assert result.returncode == 0, result.stderr
    engine, broker, debug, media = result.stdout.splitlines()[-1].split()
    assert (engine, broker, debug) == ("django.db.backends.sqlite3", "redis://127.0.0.1:6390/0", "False")
    assert media == str(tmp_path / "media")
    assert (tmp_path / "secret_key").stat().st_mode & 0o077 == 0  # generated key readable by the owner only


def test_the_app_hashes_passwords_with_djangos_slow_default_and_only_the_tests_use_a_fast_one():
    """tests/conftest.py swaps in a fast hasher for the suite; the app's own settings must not."""
    from django.conf import global_settings, settings

    import webapp.settings as app_settings

    hashers = getattr(app_settings, "PASSWORD_HASHERS", global_settings.PASSWORD_HASHERS)
    assert hashers[0] == "django.contrib.auth.hashers.PBKDF2PasswordHasher"
    assert settings.PASSWORD_HASHERS[0] != hashers[0]    # the suite's override is in force (see conftest)
