"""``pip install .`` gives a working ``kakurega``: the tracked files of the checkout (nothing else of the working
tree) installed into a fresh virtualenv, which reaches the project venv's packages through a .pth file (so
nothing is downloaded: --no-deps --no-build-isolation --no-index), then run from another folder. The command
lists its commands, the data comes from the installed copy (kakurega/share), not from the checkout, and a default
model trains on first use, reporting its progress, then loads without training again."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest
import typer

from kakurega import __version__
from tests.helpers import ROOT

SHARED = ("data", "templates", "static", "locale", "docs", "docs_theme", "mkdocs.yml", "gunicorn.conf.py")

LOAD = """
import sys
from kakurega import load_location_model
from kakurega.location_models import default_model_directory
progress = lambda done, total, message: print(f"progress {done}/{total} {message}", file=sys.stderr)
model = load_location_model("tokyo-ja", progress=progress)
print(default_model_directory("tokyo-ja"), model.grid.n_cells)
"""


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> dict:
    """A virtualenv with the checkout's tracked files installed, and where to run it from."""
    if shutil.which("git") is None or not (ROOT / ".git").exists():
        pytest.skip("needs a git checkout (the install copies its tracked files)")
    base = tmp_path_factory.mktemp("install")
    source, venv, work = base / "source", base / "venv", base / "elsewhere"
    tracked = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True).stdout
    for name in filter(None, tracked.decode().split("\0")):
        if (ROOT / name).is_file():  # a file deleted in the working tree but not yet in git stays out
            (source / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(ROOT / name, source / name)
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    python = venv / "bin" / "python"
    site = subprocess.run([str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                          capture_output=True, text=True, check=True).stdout.strip()
    Path(site, "project-venv.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    work.mkdir()
    env = {key: value for key, value in os.environ.items()
           if key not in ("PYTHONPATH", "DJANGO_SETTINGS_MODULE", "KAKUREGA_DATA_DIR", "VIRTUAL_ENV")}
    env["KAKUREGA_CACHE_DIR"] = str(base / "cache")
    pip = subprocess.run([str(python), "-m", "pip", "install", "--no-deps", "--no-build-isolation", "--no-index",
                          "--no-cache-dir", "--quiet", str(source)], cwd=work, env=env, capture_output=True,
                         text=True, timeout=600)
    assert pip.returncode == 0, pip.stdout + pip.stderr
    return {"venv": venv, "site": Path(site), "work": work, "env": env, "cache": base / "cache"}


def run(installed: dict, *command: str) -> subprocess.CompletedProcess:
    program = installed["venv"] / "bin" / command[0]
    return subprocess.run([str(program), *command[1:]], cwd=installed["work"], env=installed["env"],
                          capture_output=True, text=True, timeout=600)


def test_the_command_lists_every_command_and_its_version(installed):
    from kakurega.cli.main import app

    commands = sorted(typer.main.get_command(app).commands)
    assert "inspect" in commands
    shown = run(installed, "kakurega", "--help")
    assert shown.returncode == 0, shown.stderr
    listed = shown.stdout.split("Commands:", 1)[1].split()
    assert [name for name in commands if name not in listed] == []
    version = run(installed, "kakurega", "--version")
    assert version.returncode == 0 and version.stdout.strip() == f"kakurega {__version__}"


def test_the_installed_package_reads_its_own_copy_of_the_data(installed):
    found = run(installed, "python", "-c", "import kakurega, kakurega.paths, anonymizer.share, "
                "anonymizer.recognize.gazetteer as g; print(kakurega.__file__); print(kakurega.paths.data_dir()); "
                "print(anonymizer.share.share_dir()); print(g.DEFAULT_PATH)")
    assert found.returncode == 0, found.stderr
    package, data, share, gazetteer = (Path(line) for line in found.stdout.splitlines())
    assert package == installed["site"] / "kakurega" / "__init__.py"
    assert share == installed["site"] / "kakurega" / "share" and data == share / "data"
    assert not share.is_relative_to(ROOT) and gazetteer == data / "geo" / "gazetteer" / "places.json.gz"
    for name in SHARED:
        assert (share / name).exists(), name
    assert (data / "geo" / "japan_311" / "tweets.csv").read_bytes() == (ROOT / "data/geo/japan_311/tweets.csv"
                                                                        ).read_bytes()
    assert not (installed["site"] / "tests").exists()  # the package is the app, not its test suite


def test_a_default_model_trains_once_from_the_installed_data(installed):
    first = run(installed, "python", "-c", LOAD)
    assert first.returncode == 0, first.stderr
    directory = Path(first.stdout.split()[0])
    assert directory.parent == installed["cache"] / "models" / "tokyo-ja" and first.stdout.split()[1] == "200"
    assert "progress 0/100 tokenizing" in first.stderr and "progress 100/100 calibrated" in first.stderr
    assert (directory / "model.json").is_file()
    stamp = (directory / "model.json").stat().st_mtime_ns
    again = run(installed, "python", "-c", LOAD)
    assert again.returncode == 0, again.stderr
    assert "progress" not in again.stderr and again.stdout == first.stdout
    assert (directory / "model.json").stat().st_mtime_ns == stamp


def test_in_a_checkout_everything_is_read_where_it_always_was(settings):
    from anonymizer.share import default_var_dir, in_checkout, share_dir
    from kakurega.paths import data_dir

    assert in_checkout() and share_dir() == ROOT and default_var_dir() == ROOT / "var"
    assert settings.SHARE_DIR == ROOT and settings.STATICFILES_DIRS == [ROOT / "static"]
    assert settings.TEMPLATES[0]["DIRS"] == [ROOT / "templates"]
    if "KAKUREGA_DATA_DIR" not in os.environ:
        assert data_dir() == ROOT / "data"


def test_the_build_ships_what_share_dir_promises():
    from anonymizer.share import SHIPPED

    assert SHIPPED == SHARED  # setup.py reads anonymizer/share.py's list; this test's own copy must follow it
