"""The inspect page and API in Japanese (issue 49): the page's texts, the verdict's sentences and the cells' place
names in the request's language; the machine-readable parts (statuses, check names, field names) and the released
text the same in both languages."""

from __future__ import annotations

import re

import pytest
from django.urls import reverse
from rest_framework.test import APIClient

from tests.i18n_catalog import english_words

pytestmark = pytest.mark.django_db
POST = "Grabbing lunch downtown in Des Moines before the Iowa Cubs game"
JAPANESE = re.compile(r"[\u3041-\u30ff\u4e00-\u9fff]")


def inspect(language: str, **body):
    return APIClient(HTTP_ACCEPT_LANGUAGE=language).post(reverse("api-inspect"), body, format="json")


def test_the_inspect_page_is_in_japanese_for_a_japanese_browser(client, location_models):
    page = client.get(reverse("home"), HTTP_ACCEPT_LANGUAGE="ja").content.decode()
    assert '<html lang="ja">' in page
    for text in ("投稿のどこから場所がわかってしまうのか", "残す語", "削除する地名の扱い", "匿名化した投稿",
                 "地図の数値"):
        assert text in page, text
    assert "Where does a post give you away?" not in page and "Words to keep" not in page
    # The options' values stay the API's.
    assert 'value="generalize"' in page and 'value="needed"' in page
    english = client.get(reverse("home"), HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert "Where does a post give you away?" in english and "投稿のどこから" not in english


def test_the_api_answers_japanese_texts_and_the_same_codes(location_models):
    english = inspect("en", text=POST, model="us-midwest-en", keep=["Ames"]).json()
    japanese = inspect("ja", text=POST, model="us-midwest-en", keep=["Ames"]).json()
    # What a program reads is the same: the released text, statuses, check names, numbers, field names.
    assert japanese["text_after"] == english["text_after"] and japanese["deleted"] == english["deleted"]
    assert japanese.keys() == english.keys() and japanese["verdict"].keys() == english["verdict"].keys()
    for key in ("status", "releasable"):
        assert japanese["verdict"][key] == english["verdict"][key]
    assert [(c["name"], c["status"], c.get("score")) for c in japanese["verdict"]["checks"]] == [
        (c["name"], c["status"], c.get("score")) for c in english["verdict"]["checks"]]
    assert japanese["verdict"]["status"] in {"pass", "review", "places", "fail"}
    assert japanese["decision"]["mode"] == "auto" and japanese["map_scorer"] == english["map_scorer"]
    # The human texts are Japanese.
    verdict = japanese["verdict"]
    assert verdict["before"].startswith("元の投稿：") and "しきい値" in verdict["before"]
    assert english["verdict"]["before"].startswith("Before: ")
    assert [c["title"] for c in verdict["checks"]] == ["分類器", "地名", "人(人による推定可能性モデル)"]
    for text in [verdict["summary"], verdict["cannot_know"], verdict["model_strength"]["message"],
                 *[c["text"] for c in verdict["checks"]]]:
        assert JAPANESE.search(text), text
    assert japanese["warnings"] == [{"field": "keep", "message": "「Ames」は投稿に含まれていません。"}]
    assert english["warnings"] == [{"field": "keep", "message": "“Ames” is not in the post."}]


def test_a_bad_request_keeps_its_field_names_and_says_why_in_japanese(location_models):
    response = inspect("ja", text="", model="us-midwest-en")
    assert response.status_code == 400 and "text" in response.json()
    fixed = inspect("ja", text=POST, model="us-midwest-en", mode="fixed")
    assert fixed.status_code == 400 and fixed.json() == {"m": ["modeがfixedのときはmが必要です。"]}
    assert inspect("en", text=POST, model="us-midwest-en", mode="fixed").json() == {
        "m": ["m is required when mode is fixed."]}
    timed = inspect("ja", text="渋谷で待ち合わせ", model="tokyo-ja", remove_time=True).json()
    assert timed["remove_time"] == [
        "時間表現を見つけられるのは英語の投稿だけです。モデル'tokyo-ja'は'ja'の投稿用です。"]


def test_place_names_follow_the_language_where_the_gazetteer_has_both(location_models, tokyo):
    text = tokyo.inferable_text()
    english = inspect("en", text=text, model="tokyo-ja").json()
    japanese = inspect("ja", text=text, model="tokyo-ja").json()
    en_places, ja_places = english["model"]["cell_places"], japanese["model"]["cell_places"]
    # 渋谷区 / Shibuya: the gazetteer holds both; a ward it has no romanized name for stays as written.
    assert "渋谷区" in ja_places and "Shibuya" in en_places and "渋谷区" not in en_places
    assert all(JAPANESE.search(name) for name in ja_places if name)
    assert {label["name"] for label in japanese["model"]["place_labels"]} >= {"世田谷区", "大田区"}
    assert {label["name"] for label in english["model"]["place_labels"]} >= {"Setagaya", "Ōta"}
    assert any(name.endswith("付近") for name in ja_places) and any(name.startswith("near ") for name in en_places)
    assert japanese["before"]["top_place"] == ja_places[japanese["before"]["top_cell"]]
    # Shown names only: what is released is the same whatever the page's language.
    assert japanese["text_after"] == english["text_after"]


def test_english_words_left_in_the_japanese_verdict_are_only_kept_ones(location_models):
    verdict = inspect("ja", text=POST, model="us-midwest-en").json()["verdict"]
    # Left: the post's own words it quotes, and the US grid's place names (the gazetteer has no Japanese names for
    # them: "Des Moines, IA").
    left = english_words(" ".join([verdict["before"], verdict["summary"], verdict["cannot_know"]]))
    assert left and set(left) <= set(english_words(POST)) | {"IA"}, left


def test_the_map_report_is_in_the_requests_language(location_models):
    body = {"text": POST, "model": "us-midwest-en", "format": "html"}
    japanese = APIClient(HTTP_ACCEPT_LANGUAGE="ja").post(reverse("api-inspect-report"), body, format="json")
    english = APIClient(HTTP_ACCEPT_LANGUAGE="en").post(reverse("api-inspect-report"), body, format="json")
    assert japanese.status_code == english.status_code == 200
    ja, en = japanese.content.decode(), english.content.decode()
    assert "<title>Kakurega地図レポート</title>" in ja and "セルの確率(分類器)：" in ja
    assert "共有用のファイルです。" in ja
    assert "<title>Kakurega map report</title>" in en and "Probability of the cell (classifier):" in en
    svg = APIClient(HTTP_ACCEPT_LANGUAGE="ja").post(reverse("api-inspect-report"), {**body, "format": "svg"},
                                                   format="json").content.decode()
    assert "匿名化したテキスト：「" in svg and "セルの確率(分類器。0.5%未満は色なし)" in svg
