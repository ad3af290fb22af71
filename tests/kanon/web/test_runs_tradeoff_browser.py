"""In Debian's chromium at 1280 and 390 px, real runs of a small blog sample (the first 40 rows of blogs_1k.csv,
23 persons; k = 2 and 3, λ = 0, 0.5 and 1): the runs page plots NCP_A against NCP_X, a point per run labelled by
k and λ with no label over another, says when λ did not trade as expected, and keeps NCP on screen on a phone;
a run's page opens with its report and folds its parameters behind a summary."""

from __future__ import annotations

import csv
import io

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from anonymizer.kanon.config import load_config
from anonymizer.kanon.tradeoff import lambda_inversions, tradeoff_points
from anonymizer.kanon.web.views import run_loss
from anonymizer.models import Job
from anonymizer.platform.uploads import create_csv_upload
from tests.helpers import ROOT, browser_page, kanon_file, run_in_process, sign_in

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.browser]
ARTIFACTS = ROOT / "test-artifacts" / "kanon"
CONFIG = """attributes:
  - {name: id, role: direct_identifier}
  - {name: gender, role: quasi_identifier, type: nominal}
  - {name: age, role: quasi_identifier, type: numerical}
  - {name: topic, role: quasi_identifier, type: nominal}
  - {name: sign, role: quasi_identifier, type: nominal}
  - {name: date, role: quasi_identifier, type: date, date_format: "%d,%B,%Y"}
  - {name: text, role: text, type: text}
"""
# The labels' boxes as drawn, and whether any two overlap or one leaves its chart.
LABELS = """(() => {
  const svg = document.querySelector('#kanon-tradeoff svg'), frame = svg.getBoundingClientRect();
  const boxes = [...svg.querySelectorAll('text.point-label')].map(t => {
    const b = t.getBoundingClientRect(); return {text: t.textContent, l: b.left, r: b.right, t: b.top, b: b.bottom};
  });
  const clashes = [];
  boxes.forEach((a, i) => boxes.slice(i + 1).forEach(b => {
    if (a.l < b.r - 0.5 && b.l < a.r - 0.5 && a.t < b.b - 0.5 && b.t < a.b - 0.5) clashes.push([a.text, b.text]);
  }));
  const outside = boxes.filter(b => b.l < frame.left - 0.5 || b.r > frame.right + 0.5).map(b => b.text);
  return {labels: boxes.map(b => b.text), clashes, outside};
})()"""


def sample_upload(user):
    with kanon_file("blogs_1k.csv").open(encoding="utf-8", newline="") as handle:
        rows = list(csv.reader(handle))[:41]
    body = io.StringIO()
    csv.writer(body).writerows(rows)
    return create_csv_upload(owner=user, uploaded=SimpleUploadedFile("blogs_40.csv", body.getvalue().encode()))


def test_runs_compared_by_what_they_trade_and_a_run_page_that_opens_with_its_report(live_server, user):
    upload = sample_upload(user)
    base = load_config(CONFIG, columns=upload.metadata["header"])
    jobs = [run_in_process(owner=user, kind="kanon", inputs=[upload],
                           params={"config": base.with_parameters(k=k, relational_weight=lam).to_dict()})
            for k in (2, 3) for lam in (0, 0.5, 1)]
    assert all(job.status == Job.Status.SUCCEEDED for job in jobs), [job.error for job in jobs]
    losses = [run_loss(job) for job in jobs]
    inverted = bool(lambda_inversions(losses))
    labels = [label for label, *_ in tradeoff_points(losses)]
    assert len(labels) >= 4 and all(label.startswith(("k=2, λ=", "k=3, λ=")) for label in labels)
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    seen = {}
    for page in browser_page():
        page.set_default_timeout(30_000)
        sign_in(page, live_server, "alice", "correct horse battery staple")
        for width in (1280, 390):
            page.set_viewport_size({"width": width, "height": 900})
            page.goto(f"{live_server.url}/kanon/{upload.id}/runs/")
            seen[width, "chart"] = page.evaluate(LABELS)
            seen[width, "axes"] = page.text_content("#kanon-tradeoff svg")
            seen[width, "note"] = page.locator("#kanon-lambda-note").count()
            # Every run's NCP_A and NCP_X cells lie within the screen without scrolling anything sideways.
            seen[width, "ncp"] = page.evaluate(
                "[...document.querySelectorAll('#kanon-runs tbody tr')].flatMap(tr => [tr.cells[1], tr.cells[2]])"
                ".map(td => { const b = td.getBoundingClientRect(); return [td.textContent.trim(), b.left >= 0 && "
                f"b.right <= {width} && b.width > 0]; }})")
            seen[width, "page"] = page.evaluate("document.documentElement.scrollWidth")
            page.screenshot(path=str(ARTIFACTS / f"runs-{width}.png"), full_page=True)

            page.goto(f"{live_server.url}/jobs/{jobs[1].id}/")
            report = page.locator("#kanon-verdict").bounding_box()
            seen[width, "report_top"] = report["y"]
            seen[width, "params_shown"] = page.is_visible("#job-params")
            seen[width, "summary"] = page.text_content("#job-params-details summary")
            page.screenshot(path=str(ARTIFACTS / f"run-page-{width}.png"))  # what the first screen shows
            page.click("#job-params-details summary")
            seen[width, "params_opened"] = page.is_visible("#job-params")
            seen[width, "params_rows"] = page.locator("#job-params tbody tr").count()
    for width in (1280, 390):
        chart = seen[width, "chart"]
        assert chart["labels"] == labels  # every run, by k and λ (runs that lost exactly alike share a point)
        assert chart["clashes"] == [] and chart["outside"] == [], (width, chart)
        assert "NCP_A (relational columns)" in seen[width, "axes"] and "NCP_X (texts)" in seen[width, "axes"]
        assert seen[width, "note"] == (1 if inverted else 0)
        assert len(seen[width, "ncp"]) == 12 and all(visible and text for text, visible in seen[width, "ncp"]), (
            width, seen[width, "ncp"])
        assert seen[width, "page"] <= width
        assert seen[width, "report_top"] < 500, (width, seen[width, "report_top"])  # on the first screen
        assert not seen[width, "params_shown"] and seen[width, "params_opened"]
        assert seen[width, "summary"].startswith("Parameters: k=2, λ=0.5")
        assert seen[width, "params_rows"] > 20
