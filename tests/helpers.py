"""Small builders shared by the tests."""

from __future__ import annotations

import contextlib
import copy
import csv
import functools
import io
import os
import shutil
import time
from datetime import timedelta
from pathlib import Path

import kombu.pools
import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.utils import timezone
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from anonymizer.crowd.web import services as crowd
from anonymizer.models import Assignment, Campaign, Job
from anonymizer.platform.jobs import runner
from anonymizer.platform.jobs import services as job_services
from webapp.celery import app as celery_app

ROOT = Path(__file__).resolve().parent.parent
SHARED_DATA = ROOT.parent / "shared" / "data"


@functools.cache
def default_corpus(spec_name: str):
    """(posts, report) of a default location model's corpus in data/ (by its spec's name), read once."""
    from anonymizer.location.corpus import load_corpus
    from anonymizer.location.defaults import DEFAULT_MODELS

    spec = next(spec for spec in DEFAULT_MODELS if spec.name == spec_name)
    return load_corpus(ROOT / "data" / spec.corpus, columns=spec.columns, grid=spec.grid,
                       where={k: set(v) for k, v in spec.where.items()} or None)


def shared_data(relative: str) -> Path:
    """A file of ../shared/data, or skip the test saying which file is missing."""
    path = SHARED_DATA / relative
    if not path.exists():
        pytest.skip(f"shared data set not present: {path}")
    return path


def token_client(user) -> APIClient:
    """A REST client that authenticates as ``user`` with an API token, as scripts do."""
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {Token.objects.get_or_create(user=user)[0].key}")
    return client


def run_in_process(*, owner, kind: str, params: dict, inputs: list) -> Job:
    """Create a job and run it in this process, returning it as it ended. In a test with a worker listening (a
    live server's committed job is published to it) the worker may claim the job first: then this process's run
    does nothing and the job is waited for (a loaded machine once returned it still "running")."""
    job = job_services.create_job(owner=owner, kind=kind, params=params, inputs=inputs)
    runner.run_job(job.id)
    return wait_for(lambda: (ended := Job.objects.get(id=job.id)).status not in Job.ACTIVE_STATUSES and ended, 300)


def wait_for(predicate, timeout: float, interval: float = 0.1):
    """Poll until ``predicate()`` is truthy and return its value; fail the test after ``timeout`` seconds."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(interval)
    raise AssertionError(f"condition not met within {timeout} s")


def kanon_file(relative: str) -> Path:
    """A k-anonymization data file: the rx-anon files shipped in data/kanon/, else ../shared/data/kanon/."""
    shipped = ROOT / "data" / "kanon" / Path(relative).name
    return shipped if shipped.exists() else shared_data(f"kanon/{relative}")


@contextlib.contextmanager
def broker_at(url: str):
    """Point this process's Celery app at another broker (e.g. one that is down) for the block."""
    original = celery_app.conf.broker_url

    def switch(to: str) -> None:
        # The connection and producer pools are built from broker_url on first use: drop them.
        kombu.pools.reset()
        celery_app._pool = None
        celery_app.amqp._producer_pool = None
        celery_app.conf.broker_url = to

    switch(url)
    try:
        yield
    finally:
        switch(original)



PAPER_EXAMPLE_ROWS = [
    ["id", "gender", "age", "topic", "sign", "date", "text"],
    ["1", "male", "36", "Education", "Aries", "14,May,2004",
     "My name is Pedro, I'm a 36 years old engineer from Mexico."],
    ["1", "male", "36", "Education", "Aries", "15,May,2004",
     "A quick follow up: I will post updates about my education."],
    ["2", "male", "24", "Student", "Leo", "18,August,2005",
     "I will start working for a big tech company as an engineer."],
    ["3", "male", "37", "Banking", "Pisces", "27,May,2004",
     "During my last business trip to Canada I met my friend Ben."],
]


def csv_bytes(rows: list[list[str]], delimiter: str = ",") -> bytes:
    out = io.StringIO()
    csv.writer(out, delimiter=delimiter, lineterminator="\n").writerows(rows)
    return out.getvalue().encode("utf-8")


def csv_upload(rows: list[list[str]] | None = None, name: str = "posts.csv") -> SimpleUploadedFile:
    return SimpleUploadedFile(name, csv_bytes(rows or PAPER_EXAMPLE_ROWS), content_type="text/csv")


def write_large_csv(path: Path, rows: int) -> Path:
    """A synthetic table shaped like the blog corpus, big enough that profiling it takes seconds."""
    genders, topics = ["female", "male"], ["Student", "Education", "Banking", "Arts", "Technology", "indUnk"]
    with path.open("w", encoding="utf-8", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(["id", "gender", "age", "topic", "date", "text"])
        for i in range(rows):
            writer.writerow([i // 7, genders[i % 2], 13 + i % 35, topics[i % 6], f"{1 + i % 28},May,2004",
                             f"Post number {i} about nothing in particular, written on a quiet afternoon."])
    return path


CHROMIUM = "/usr/bin/chromium"


def wait_for_js(page, expression: str, timeout: float = 60.0) -> None:
    """Poll a JavaScript expression until it is truthy. Playwright's wait_for_function evaluates its predicate
    with eval() inside the page, which the app's Content-Security-Policy (no 'unsafe-eval') rightly refuses;
    page.evaluate goes through the DevTools protocol instead, so the pages are tested under their real policy."""
    wait_for(lambda: page.evaluate(expression), timeout, 0.05)


def browser_page(locale: str | None = None):
    """A page in Debian's chromium (offline flags), in a browser set to ``locale`` ("ja-JP": its Accept-Language
    and navigator.language) when given; skips, or fails under REQUIRE_BROWSER, without chromium."""
    if not shutil.which(CHROMIUM):
        if os.environ.get("REQUIRE_BROWSER"):
            pytest.fail(f"{CHROMIUM} is missing but REQUIRE_BROWSER is set (CI installs Debian's chromium)")
        pytest.skip(f"browser tests need Debian's chromium at {CHROMIUM} (apt-get install chromium)")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=CHROMIUM,
            args=["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
                  "--disable-sync", "--no-first-run", "--disable-quic"],
        )
        context = browser.new_context(accept_downloads=True, **({"locale": locale} if locale else {}))
        yield context.new_page()
        context.close()
        browser.close()


def sign_in(page, live_server, username: str, password: str) -> None:
    """Sign in through the login form in a browser page; it lands on the jobs list."""
    page.goto(live_server.url + "/accounts/login/")
    page.fill("#id_username", username)
    page.fill("#id_password", password)
    page.click("main button[type=submit]")
    page.wait_for_url("**/jobs/")


def answer_all(campaign: Campaign, participants: int, decide) -> None:
    """Simulated participants answering every regular post (through the service, as the views do)."""
    for _ in range(participants):
        participant = crowd.join(campaign)
        crowd.consent(participant)
        now = timezone.now()
        for post in campaign.posts.filter(kind="regular"):
            Assignment.objects.create(participant=participant, post=post, served_at=now,
                                      expires_at=now + timedelta(minutes=5))
            crowd.answer(participant, post.id, answer=decide(post.text))


def replaced_at(document, path: tuple, value):
    """A deep copy of a parsed configuration with the value at ``path`` (keys and indices) replaced; the
    value itself for an empty path. For fuzzing a configuration's shape field by field."""
    if not path:
        return value
    document = copy.deepcopy(document)
    parent = document
    for key in path[:-1]:
        parent = parent[key]
    parent[path[-1]] = value
    return document


AXE_URL = "/static/vendor/axe-core/axe.min.js"  # vendored for the tests only: no app page loads it


def axe_violations(page, impacts: tuple[str, ...] = ("serious", "critical"), *, selector: str | None = None,
                   rules: tuple[str, ...] = (), undecided: bool = False) -> list[dict]:
    """axe-core's violations on the page as it is now (or in the elements ``selector`` matches; all rules, or only
    ``rules``), those of the given impacts, each as {"id", "impact", "help", "targets"} (targets: the CSS
    selectors of the offending elements); with ``undecided``, also what axe leaves for a person to review (it
    reports text as light as its background, 1:1, so: it takes that for text hidden on purpose). axe is loaded
    from the app's own /static/ by a <script src>: the pages' Content-Security-Policy (script-src 'self') rightly
    refuses the inline script that page.add_script_tag(path=...) would insert, and the tests keep the real policy."""
    if not page.evaluate("typeof window.axe === 'object'"):
        page.add_script_tag(url=page.evaluate("location.origin") + AXE_URL)
    kinds = ["violations", "incomplete"] if undecided else ["violations"]
    options = {"resultTypes": kinds, **({"runOnly": list(rules)} if rules else {})}
    results = page.evaluate("([selector, options]) => axe.run(selector || document, options)", [selector, options])
    return [{"id": rule["id"], "impact": rule["impact"], "help": rule["help"],
             "targets": [" ".join(map(str, node["target"])) for node in rule["nodes"]]}
            for kind in kinds for rule in results[kind] if rule["impact"] in impacts and rule["nodes"]]


# Options whose text is wider than their select's box (less the room for the arrow): a browser shows them cut off.
_CUT_OFF_OPTIONS = """(selector) => {
  const context = document.createElement('canvas').getContext('2d');
  return [...document.querySelectorAll(selector)].filter(select => select.offsetParent !== null).flatMap(select => {
    const style = getComputedStyle(select);
    context.font = `${style.fontWeight} ${style.fontSize} ${style.fontFamily}`;
    const room = select.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight) - 20;
    return [...select.options].filter(o => context.measureText(o.text).width > room)
      .map(o => `${select.id}: ${o.text}`);
  });
}"""


def cut_off_options(page, selector: str = "select") -> list[str]:
    """'<select id>: <option text>' for each option of the shown selects matching ``selector`` that is cut off."""
    return page.evaluate(_CUT_OFF_OPTIONS, selector)
