"""The manual at /help/ (issue 47): built from docs/ by the function `make run` uses, served by the app to anyone,
nothing outside the built folder, every help link of the pages pointing at a page that exists; and the README
short enough to read."""

from __future__ import annotations

import re
import shutil

import pytest
import yaml

from anonymizer.platform.help import FINGERPRINT_FILE, build_help, built_file
from tests.helpers import ROOT

#: A help link in a template: a plain href (the help pages are files, not Django routes).
HELP_LINK = re.compile(r"""href="/help/([^"#]*)(?:#([^"]*))?\"""")


def help_links() -> list[tuple[str, str, str]]:
    """(template, page path, anchor) of every help link in templates/."""
    return [(str(path.relative_to(ROOT)), page, anchor or "")
            for path in sorted((ROOT / "templates").rglob("*.html"))
            for page, anchor in HELP_LINK.findall(path.read_text(encoding="utf-8"))]


def body(response) -> str:
    return (b"".join(response.streaming_content) if response.streaming else response.content).decode()


def nav_pages(nav) -> list[str]:
    """The Markdown files of mkdocs.yml's nav, in order."""
    pages: list[str] = []
    for entry in nav:
        value = next(iter(entry.values())) if isinstance(entry, dict) else entry
        pages.extend(nav_pages(value) if isinstance(value, list) else [value])
    return pages


def test_the_readme_is_at_most_200_lines():
    lines = (ROOT / "README.md").read_text(encoding="utf-8").splitlines()
    assert len(lines) <= 200, f"README.md has {len(lines)} lines: details go to docs/ (issue 47)"


def test_every_docs_page_is_in_the_nav():
    nav = nav_pages(yaml.safe_load((ROOT / "mkdocs.yml").read_text(encoding="utf-8"))["nav"])
    assert sorted(nav) == sorted(p.name for p in (ROOT / "docs").glob("*.md"))


def test_the_help_pages_are_served_to_anyone(client, help_site):
    index = client.get("/help/")
    assert index.status_code == 200 and index["Content-Type"] == "text/html; charset=utf-8"
    html = body(index)
    assert "<title>Kakurega</title>" in html and 'href="location/"' in html
    assert "script-src 'self'" in index["Content-Security-Policy"]  # the app's policy, not relaxed
    page = client.get("/help/location/")
    assert page.status_code == 200 and 'id="threat-model"' in body(page)
    assert client.get("/help/location").url == "/help/location/"  # relative links need the slash
    assert client.get("/help/css/base.css")["Content-Type"] == "text/css; charset=utf-8"
    assert client.get("/help/js/kakurega-help.js")["Content-Type"] == "text/javascript; charset=utf-8"
    assert client.get("/help/search/search_index.json")["Content-Type"] == "application/json; charset=utf-8"
    assert client.post("/help/").status_code == 405


@pytest.mark.parametrize("path", [
    "/help/../outside.txt", "/help/%2e%2e/outside.txt", "/help/..%2foutside.txt", "/help/css/../../outside.txt",
    "/help/..%5coutside.txt", "/help//etc/passwd", "/help/%2fetc%2fpasswd", "/help/" + FINGERPRINT_FILE,
    "/help/no-such-page/", "/help/css/%00.css",
])
def test_nothing_outside_the_built_pages_is_served(client, help_site, path):
    (help_site.parent / "outside.txt").write_text("OUTSIDE THE HELP FOLDER")
    response = client.get(path)
    assert response.status_code == 404
    assert "OUTSIDE" not in body(response) and "root:" not in body(response)


def test_a_link_out_of_the_folder_is_refused(tmp_path):
    site = tmp_path / "site"
    site.mkdir()
    (tmp_path / "secret.txt").write_text("secret")
    (site / "index.html").write_text("<p>help</p>")
    (site / "out").symlink_to(tmp_path)
    assert built_file(site, "") == site / "index.html"
    assert built_file(site, "out/secret.txt") is None
    assert built_file(site, "../secret.txt") is None


def test_unbuilt_help_answers_404_saying_how_to_build_it(client, settings, tmp_path):
    settings.HELP_DIR = tmp_path / "never-built"
    response = client.get("/help/")
    assert response.status_code == 404 and "make run" in body(response)


def test_every_help_link_of_the_pages_points_to_a_built_page(help_site):
    links = help_links()
    linked = {template for template, _, _ in links}
    # The header's Help link, and each capability's own pages.
    for template in ("templates/base.html", "templates/inspect.html", "templates/kanon/configure.html",
                     "templates/temporal/remove_time.html", "templates/crowd/list.html",
                     "templates/preferences/page.html"):
        assert template in linked, f"{template} has no link to its help page"
    nav = nav_pages(yaml.safe_load((ROOT / "mkdocs.yml").read_text(encoding="utf-8"))["nav"])
    for template, page, anchor in links:
        target = built_file(help_site, page)
        assert target is not None, f"{template}: /help/{page} is not a built page"
        assert page == "" or f"{page.strip('/')}.md" in nav, f"{template}: /help/{page} is not in mkdocs.yml's nav"
        if anchor:
            assert f'id="{anchor}"' in target.read_text(encoding="utf-8"), f"{template}: no #{anchor} on /help/{page}"


def test_the_built_pages_load_nothing_from_elsewhere_and_run_no_inline_code(help_site):
    """Offline, and under the app's Content-Security-Policy (scripts and styles from the app itself only)."""
    for page in help_site.rglob("*.html"):
        html = page.read_text(encoding="utf-8")
        assert not re.search(r"<(?:script|link|img|iframe)\b[^>]*(?:src|href)=\"(?:https?:)?//", html), page
        assert not re.search(r"<script\b(?![^>]*\bsrc=)", html), f"{page}: inline script"
        assert " style=" not in html and "<style" not in html, f"{page}: inline style"
    for sheet in help_site.rglob("*.css"):
        assert not re.search(r"url\(\s*['\"]?(?:https?:)?//|@import", sheet.read_text(encoding="utf-8")), sheet


def test_the_build_runs_again_only_when_a_page_changed(tmp_path):
    project = tmp_path / "project"
    project.mkdir()
    for name in ("mkdocs.yml", "docs", "docs_theme"):
        (shutil.copytree if (ROOT / name).is_dir() else shutil.copy)(ROOT / name, project / name)
    site = tmp_path / "help"
    assert build_help(site, project_dir=project) is True
    assert build_help(site, project_dir=project) is False
    with (project / "docs" / "testing.md").open("a", encoding="utf-8") as page:
        page.write("\nOne more line.\n")
    assert build_help(site, project_dir=project) is True
    assert "One more line." in (site / "testing" / "index.html").read_text(encoding="utf-8")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["help", "project"]  # no staging folder left


def test_every_environment_variable_the_app_reads_is_documented():
    """docs/configuration.md (and testing.md for the suite's own) name every variable the code reads (the web
    app's and the ``kakurega`` command's)."""
    documented = (ROOT / "docs" / "configuration.md").read_text(encoding="utf-8") + (
        ROOT / "docs" / "testing.md").read_text(encoding="utf-8")
    read = set(re.findall(r"env_(?:str|int|float|bool|list)\(\s*\"([A-Z0-9_]+)\"", (ROOT / "webapp" / "settings.py")
                          .read_text(encoding="utf-8")))
    for path in [ROOT / "gunicorn.conf.py", *(ROOT / "anonymizer").rglob("*.py"), *(ROOT / "kakurega").rglob("*.py"),
                 *(ROOT / "tests").rglob("*.py")]:
        read |= set(re.findall(r"os\.environ(?:\.get)?[\[(]\s*\"([A-Z0-9_]+)\"", path.read_text(encoding="utf-8")))
    for path in (ROOT / "Procfile", ROOT / "Procfile.local", ROOT / "Makefile"):
        read |= set(re.findall(r"\$\{([A-Z0-9_]+)", path.read_text(encoding="utf-8")))
        read |= set(re.findall(r"^([A-Z][A-Z0-9_]+) \?=", path.read_text(encoding="utf-8"), re.M))
    read -= {"PYTEST_XDIST_WORKER", "DJANGO_SETTINGS_MODULE"}  # set by pytest-xdist / the entry points, not users
    assert len(read) > 60
    missing = sorted(name for name in read if f"`{name}`" not in documented)
    assert not missing, f"read by the code but not in docs/configuration.md: {missing}"


def test_every_architecture_contract_and_bench_script_is_in_the_docs():
    """docs/architecture.md explains every import-linter contract of pyproject.toml, and docs/figures.md names every
    bench script, so neither page falls behind the code."""
    architecture = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
    contracts = re.findall(r'^id = "([^"]+)"', (ROOT / "pyproject.toml").read_text(encoding="utf-8"), re.M)
    assert contracts and [c for c in contracts if f"`{c}`" not in architecture] == []
    figures = (ROOT / "docs" / "figures.md").read_text(encoding="utf-8")
    scripts = sorted(p.name for p in (ROOT / "bench").glob("bench_*.py"))
    assert scripts and [s for s in scripts if s not in figures] == []
