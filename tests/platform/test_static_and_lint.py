"""Production static files through whitenoise, nothing loaded from a CDN, the code ruff-clean, and the
architecture's import contracts kept (and able to break)."""

from __future__ import annotations

import re
import shutil
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


def lint_imports(cwd, *contracts: str) -> subprocess.CompletedProcess:
    chosen = [option for contract in contracts for option in ("--contract", contract)]
    return subprocess.run([str(ROOT / ".venv" / "bin" / "lint-imports"), "--no-cache", *chosen], cwd=cwd,
                          capture_output=True, text=True)


def test_the_architecture_contracts_hold():
    result = lint_imports(ROOT)
    assert result.returncode == 0, result.stdout


CONTRACTS = ("cores-without-django", "web-only-from-wiring", "platform-without-capabilities", "models-at-the-bottom",
             "kakurega-without-django")


# A core that reaches Django breaks kakurega-without-django too: the command imports the cores (the chain counts).
@pytest.mark.parametrize(("module", "line", "contracts"), [
    ("anonymizer/temporal/normalize.py", "from django.conf import settings",
     ("cores-without-django", "kakurega-without-django")),
    ("anonymizer/kanon/table.py", "from anonymizer.platform import artifacts",
     ("cores-without-django", "kakurega-without-django")),
    ("anonymizer/crowd/web/views.py", "from anonymizer.location.web import selectors", ("web-only-from-wiring",)),
    ("anonymizer/location/model.py", "from anonymizer.location.web import services",
     ("web-only-from-wiring", "kakurega-without-django")),
    ("anonymizer/platform/selectors.py", "from anonymizer.preferences import serving",
     ("platform-without-capabilities",)),
    ("anonymizer/models/jobs.py", "from anonymizer.platform.jobs import registry", ("models-at-the-bottom",)),
    ("kakurega/location.py", "from anonymizer.models import Job", ("kakurega-without-django",)),
])
def test_the_contracts_catch_a_breach(tmp_path, module, line, contracts):
    """The contracts are not vacuous: one forbidden import added to a copy of the code breaks its contract, and
    only that one (with the command's, when the command reaches the module)."""
    for folder in ("anonymizer", "webapp", "kakurega"):  # the root packages of the contracts
        shutil.copytree(ROOT / folder, tmp_path / folder, ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(ROOT / "pyproject.toml", tmp_path)
    with (tmp_path / module).open("a") as handle:
        handle.write(f"\n{line}  # noqa\n")
    broken = [name for name in CONTRACTS if lint_imports(tmp_path, name).returncode != 0]
    assert broken == list(contracts)


@pytest.mark.parametrize(("module", "line"), [
    # The job machinery's old cycle: the registry (a leaf) naming the runner, and chunks reaching up to it.
    ("anonymizer/platform/jobs/registry.py", "from anonymizer.platform.jobs import runner"),
    ("anonymizer/platform/jobs/chunks.py", "from anonymizer.platform.jobs import runner"),
    # Inside a function still counts: a cycle held by a deferred import is a cycle (issue 47).
    ("anonymizer/platform/jobs/publishing.py", "def _task():\n    from anonymizer.platform.jobs import tasks"),
])
def test_the_no_cycles_contract_catches_a_cycle_coming_back(tmp_path, module, line):
    for folder in ("anonymizer", "webapp", "kakurega"):  # the root packages of the contracts
        shutil.copytree(ROOT / folder, tmp_path / folder, ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(ROOT / "pyproject.toml", tmp_path)
    assert lint_imports(tmp_path, "no-cycles").returncode == 0
    with (tmp_path / module).open("a") as handle:
        handle.write(f"\n{line}  # noqa\n")
    broken = lint_imports(tmp_path, "no-cycles")
    assert broken.returncode != 0 and "No cycles are allowed in anonymizer.platform.jobs" in broken.stdout

