"""The k-anonymization pages in Japanese (issue 49): the configure page, its refusals, the runs' comparison with
its chart and a run's report follow the request's language; what a form posts, the configuration's words
(roles, types, field paths) and a run's status stay the same."""

from __future__ import annotations

import re

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse

from anonymizer.models import Job
from anonymizer.platform.jobs import runner
from anonymizer.platform.uploads import create_csv_upload
from tests.helpers import kanon_file

pytestmark = pytest.mark.django_db(transaction=True)
JA = {"HTTP_ACCEPT_LANGUAGE": "ja-JP,ja;q=0.9"}


@pytest.fixture
def upload(user):
    return create_csv_upload(owner=user, uploaded=SimpleUploadedFile(
        "paper_example.csv", kanon_file("rx-anon/paper_example.csv").read_bytes()))


def test_the_configure_page_is_in_japanese_and_posts_the_same_fields(alice_client, upload):
    page = alice_client.get(reverse("kanon-configure", args=[upload.id]), **JA).content.decode()
    for text in ("paper_example.csvをk-匿名化", "役割と型の意味", "準識別子：", "k（1つ以上、カンマ区切り）",
                 "テキスト中の機微なエンティティ型", "ほかのk − 1人と区別できない", "再符号化"):
        assert text in page, text
    assert "Every released person" not in page and "What the roles and types mean" not in page
    english = alice_client.get(reverse("kanon-configure", args=[upload.id]),
                               HTTP_ACCEPT_LANGUAGE="en").content.decode()
    fields = re.compile(r'<(?:input|select|textarea)[^>]*name="([^"]+)"(?:[^>]*value="([^"]*)")?')
    assert [f for f in fields.findall(page) if f[0] != "csrfmiddlewaretoken"] == [
        f for f in fields.findall(english) if f[0] != "csrfmiddlewaretoken"]
    options = re.compile(r'<option value="([^"]*)"')
    assert options.findall(page) == options.findall(english)
    assert "<dt><code>quasi_identifier</code></dt>" in page  # the configuration's own word, explained in Japanese


def test_a_refused_configuration_says_why_in_japanese(alice_client, upload):
    yaml = kanon_file("rx-anon/e_blog_authorship_corpus.yaml").read_text(encoding="utf-8")
    response = alice_client.post(reverse("kanon-configure", args=[upload.id]), {
        "k": "", "lambdas": "", "yaml": f"parameters: {{k: 1, relational_weight: 2}}\n{yaml}"}, **JA)
    page = response.content.decode()
    errors = re.search(r'id="config-errors">(.*?)</div>', page, re.S).group(1)
    assert "設定は受け付けられませんでした" in errors
    assert "parameters.k：1は小さすぎます。2以上の整数を指定してください" in errors
    assert "parameters.relational_weight：2は0から1までの数値ではありません" in errors
    assert "too small" not in errors
    assert not Job.objects.exists()


def test_the_runs_and_a_report_are_in_japanese_with_japanese_charts(api, alice_client, upload):
    yaml = kanon_file("rx-anon/e_blog_authorship_corpus.yaml").read_text(encoding="utf-8")
    response = api.post(reverse("api-job-list"), {"kind": "kanon", "params": {
        "config_yaml": f"parameters: {{k: 2, relational_weight: 0}}\n{yaml}"}, "inputs": [str(upload.id)]},
        format="json")
    assert response.status_code == 201, response.content
    runner.run_job(response.json()["id"])
    job = Job.objects.get(id=response.json()["id"])
    assert job.status == "succeeded", job.error

    runs = alice_client.get(reverse("kanon-compare", args=[upload.id]), **JA).content.decode()
    assert "paper_example.csvの匿名化の実行" in runs and "Anonymization runs" not in runs
    chart = re.search(r'<figure class="chart-figure" id="kanon-tradeoff">(<svg.*?</svg>)', runs, re.S).group(1)
    assert 'aria-label="各実行が失ったもの：列とテキストの比較"' in chart
    assert ">NCP_A（関係属性の列）</text>" in chart and ">NCP_X（テキスト）</text>" in chart
    assert "columns against texts" not in chart
    assert f'data-job-id="{job.id}" data-status="succeeded"' in runs  # the status the script reads

    report = alice_client.get(reverse("job-detail", args=[job.id]), **JA).content.decode()
    verdict = re.search(r'id="kanon-verdict" class="verdict">(.*?)</p>', report, re.S).group(1)
    assert verdict == f"k = 2を達成：公開する各クラスには{job.result['smallest_class']}人以上が含まれます。"
    assert 'aria-label="サイズ別の等価クラス"' in report
    assert "関係属性ごとの情報損失" in report and "情報損失（NCP。0 = 損失なし、1 = すべて失う）" in report
    assert "Information loss" not in report and "Equivalence classes" not in report
    surviving = re.search(r'id="kanon-surviving">(.*?)</dd>', report, re.S).group(1)
    assert surviving.startswith("認識器が見つけた名前のうち") and "Only what" not in surviving


def test_the_api_refuses_a_k_above_the_persons_in_japanese(api, upload):
    yaml = kanon_file("rx-anon/e_blog_authorship_corpus.yaml").read_text(encoding="utf-8")
    params = {"kind": "kanon", "params": {"config_yaml": f"parameters: {{k: 50}}\n{yaml}"}, "inputs": [str(upload.id)]}
    japanese = api.post(reverse("api-job-list"), params, format="json", HTTP_ACCEPT_LANGUAGE="ja")
    english = api.post(reverse("api-job-list"), params, format="json", HTTP_ACCEPT_LANGUAGE="en")
    assert japanese.status_code == english.status_code == 400
    assert japanese.json().keys() == english.json().keys()
    wanted = "k = 50は、このファイルの人数6人（'id'の異なる値の数）を超えています。kは2から6までの値にしてください"
    assert wanted in str(japanese.json())
    assert "k = 50 is more than the 6 persons in this file (distinct values of 'id'); choose k from 2 to 6" in str(
        english.json())
    assert not Job.objects.exists()
