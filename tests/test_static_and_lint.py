"""Production static files through whitenoise, nothing loaded from a CDN, and the code ruff-clean."""

from __future__ import annotations

import re
import subprocess
import sys

import pytest
from django.core.management import call_command
from django.test import Client

from tests.helpers import ROOT

CDN = re.compile(r"https?://(cdn\.|unpkg\.com|cdnjs\.|[a-z.]*jsdelivr\.net|code\.jquery\.com|fonts\.googleapis)")


def test_collected_static_files_are_served_by_whitenoise_with_hashed_names(settings, tmp_path):
    settings.STATIC_ROOT = tmp_path / "static"
    settings.STORAGES = {**settings.STORAGES,
                         "staticfiles": {"BACKEND": "whitenoise.storage.CompressedManifestStaticFilesStorage"}}
    settings.WHITENOISE_USE_FINDERS = False
    call_command("collectstatic", interactive=False, verbosity=0)
    page = Client().get("/accounts/login/").content.decode()
    css = re.search(r'href="(/static/css/kakurega\.[0-9a-f]{12}\.css)"', page)
    assert css, "the page should link the hashed stylesheet"
    response = Client().get(css.group(1))
    assert response.status_code == 200
    assert "max-age=315360000" in response["Cache-Control"]  # immutable, cached for good
    assert b"--accent" in b"".join(response.streaming_content)


def test_no_template_or_asset_loads_from_a_cdn():
    offenders = [
        str(path.relative_to(ROOT))
        for folder in ("templates", "static", "anonymizer", "webapp")
        for path in (ROOT / folder).rglob("*")
        if path.is_file() and "vendor" not in path.parts and path.suffix in {".html", ".js", ".css", ".py"}
        and CDN.search(path.read_text(errors="ignore"))
    ]
    assert offenders == []


@pytest.mark.django_db
def test_pages_render_with_their_assets(client):
    page = client.get("/").content.decode()
    assert "Kakurega" in page and "/static/css/kakurega.css" in page


def test_ruff_is_clean():
    result = subprocess.run([sys.executable, "-m", "ruff", "check", "."], cwd=ROOT, capture_output=True, text=True)
    assert result.returncode == 0, result.stdout
