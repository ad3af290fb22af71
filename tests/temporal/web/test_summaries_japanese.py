"""The time and location jobs' summaries in Japanese (issue 49): headings, table headers and sentences from the
catalog, counts with the language's thousands separator, the uploaded names and option values as they are."""

from __future__ import annotations

import re
from types import SimpleNamespace

from django.template.loader import render_to_string
from django.utils import translation

from tests.i18n_catalog import english_words


def job(result: dict) -> SimpleNamespace:
    return SimpleNamespace(id=7, status="succeeded", result=result, inputs=SimpleNamespace(all=lambda: []))


REMOVE_TIME = {"rows": 12345, "input": "posts.csv", "text_columns": ["text"], "seconds": 3.2,
               "columns": [{"name": "text", "posts": 12345, "empty": 0, "changed": 40, "time_removed": 41,
                            "time_generalized": 2}],
               "options": {"time_mode": "both", "keep_time": [], "keep_how_long": True}, "sample": []}


def test_the_remove_time_summary_in_japanese_and_in_english():
    with translation.override("ja"):
        page = render_to_string("jobs/summary/remove_time.html", {"job": job(REMOVE_TIME)})
    assert "時間表現の削除" in page and "posts.csvの12,345行。" in page and "変更した投稿はありません。" in page
    assert "所要時間" in page and "3.2秒" in page
    shown = re.sub(r"<[^>]*>", " ", page).replace("posts.csv", "")
    # Left: the column's name as uploaded (the English posts' phrases are quoted as examples: “for 2 hours”).
    assert set(english_words(shown)) == {"text"} and "“for 2 hours”" in shown
    with translation.override("en"):
        english = render_to_string("jobs/summary/remove_time.html", {"job": job(REMOVE_TIME)})
    assert "12,345 rows of posts.csv." in english and "Time expressions removed" in english


def test_the_model_summary_in_japanese():
    result = {"name": "tokyo-ja", "version": 2, "language": "ja", "corpus": {"accepted": 1500, "rows_read": 1600},
              "scores": {"posts": 300, "accuracy": 0.2, "majority_baseline": 0.1, "lift": 2.0, "top5_accuracy": 0.5,
                         "median_error_km": 3.0, "mean_error_km": 4.0,
                         "reliability": {"expected_calibration_error": 0.01}},
              "threshold": {"value": 0.241, "kind": "attacker", "explanation": "…"}}
    with translation.override("ja"):
        page = render_to_string("jobs/summary/train_location_model.html", {"job": job(result)})
    assert "読み込んだ1,600行のうち1,500件の投稿で学習しました。" in page and "上位5件の正解率" in page
    assert "しきい値0.241(attacker)：" in page
