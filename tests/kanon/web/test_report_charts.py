"""A k-anonymization job's page draws its report: a histogram of the equivalence classes' sizes whose bars
count every class of the report once, and the information loss (NCP) per relational attribute and per entity
type as bars of the report's values; the tables of numbers follow."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse

from anonymizer.models import Job
from anonymizer.platform.jobs import runner
from anonymizer.platform.uploads import create_csv_upload
from tests.helpers import kanon_file

pytestmark = pytest.mark.django_db(transaction=True)

SVG = "{http://www.w3.org/2000/svg}"


def figure(html: str, figure_id: str) -> ET.Element:
    return ET.fromstring(re.search(rf'<figure class="chart-figure" id="{figure_id}">(<svg.*?</svg>)', html,
                                   re.S).group(1))


def bars(svg: ET.Element) -> dict[str, float]:
    return {rect.get("data-label"): float(rect.get("data-value"))
            for rect in svg.findall(f".//{SVG}rect[@class='bar']")}


def test_the_report_page_draws_class_sizes_and_information_loss(api, alice_client, user):
    upload = create_csv_upload(owner=user, uploaded=SimpleUploadedFile(
        "paper_example.csv", kanon_file("rx-anon/paper_example.csv").read_bytes()))
    yaml = kanon_file("rx-anon/e_blog_authorship_corpus.yaml").read_text(encoding="utf-8")
    response = api.post(reverse("api-job-list"), {"kind": "kanon", "params": {
        "config_yaml": f"parameters: {{k: 2, relational_weight: 0}}\n{yaml}"}, "inputs": [str(upload.id)]},
        format="json")
    assert response.status_code == 201, response.content
    runner.run_job(response.json()["id"])
    job = Job.objects.get(id=response.json()["id"])
    assert job.status == "succeeded", job.error
    report = job.result
    html = alice_client.get(reverse("job-detail", args=[job.id])).content.decode()

    sizes = bars(figure(html, "kanon-class-sizes"))
    assert sum(sizes.values()) == report["classes"] > 0
    assert sizes == {f"{size} persons": count for size, count in report["class_sizes"].items()}
    relational = bars(figure(html, "kanon-ncp-relational-chart"))
    assert relational == pytest.approx(report["ncp_relational"]) and set(relational) == set(report["ncp_relational"])
    textual = bars(figure(html, "kanon-ncp-textual-chart"))
    assert textual == pytest.approx(report["ncp_textual"]) and textual
    # A bar's length is its NCP on the 0-1 axis, whatever the largest value is.
    widths = {rect.get("data-label"): float(rect.get("width"))
              for rect in figure(html, "kanon-ncp-relational-chart").findall(f".//{SVG}rect[@class='bar']")}
    span = 360 - 10 - 52
    assert widths == pytest.approx({name: value * span for name, value in report["ncp_relational"].items()}, abs=0.06)
    # The tables of numbers stay under the charts.
    assert html.index('id="kanon-charts"') < html.index('id="kanon-ncp"')


def test_the_configure_page_says_what_k_lambda_gdf_and_l_diversity_mean(alice_client, user):
    upload = create_csv_upload(owner=user, uploaded=SimpleUploadedFile(
        "paper_example.csv", kanon_file("rx-anon/paper_example.csv").read_bytes()))
    html = alice_client.get(reverse("kanon-configure", args=[upload.id])).content.decode()

    def help_of(field_id: str) -> str:
        described = re.search(rf'id="{field_id}"[^>]*aria-describedby="([^"]+)"', html).group(1)
        return re.search(rf'id="{described}">(.*?)</', html, re.S).group(1)

    assert "at least k persons" in help_of("kanon-k") and "from 2" in help_of("kanon-k")
    lambdas = help_of("kanon-lambdas")
    assert "From 0 to 1" in lambdas and "0 cuts on the texts' terms only" in lambdas
    assert "1 cuts on relational columns only" in lambdas
    assert "greedy baseline" in help_of("kanon-strategy") and "no λ" in help_of("kanon-strategy")
    assert "at least l different values" in help_of("kanon-l") and "at least 2" in help_of("kanon-l")
    assert "quasi_identifier" in html[html.index('id="kanon-columns-help"'):]
