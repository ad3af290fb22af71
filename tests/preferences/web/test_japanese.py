"""The preferences pages in Japanese (issue 49): the page, its jobs page, the model API's human texts and the
experiment's charts follow the request's language; what machines read (ids, config, item_space, method names,
data-state) stays the same. In chromium set to Japanese, rating and recommending leave no English word on the
page but the field's names (tests.i18n_catalog.KEPT_WORDS) and the data's proper names."""

from __future__ import annotations

import json
import re

import pytest
from django.template import Context, Template
from django.test import Client
from django.urls import reverse
from django.utils import translation

from tests.helpers import ROOT, browser_page, wait_for_js
from tests.i18n_catalog import english_words

JA = {"HTTP_ACCEPT_LANGUAGE": "ja-JP,ja;q=0.9"}
#: Proper names of the data the page shows (the check-ins' source and city, the mechanism's author).
PROPER_NAMES = {"Foursquare", "NYC", "Duchi"}


@pytest.mark.django_db
def test_the_page_is_in_japanese_and_its_configuration_unchanged(preference_model):
    response = Client(**JA).get(reverse("preferences"))
    page = response.content.decode()
    assert response["Content-Language"] == "ja"
    for text in ("いつ、どこで位置情報を隠したいですか？", "あなたの評価はこのページの外に出ません。", "匿名で提供",
                 "ε（1回の提供のプライバシー予算）", "局所差分プライバシー", "代理</strong>ラベル"):
        assert text in page, text
    for english in ("When and where do you want to hide?", "Contribute anonymously", "How it works"):
        assert english not in page
    # The ids the script uses and the configuration it reads are the same in both languages.
    english_page = Client(HTTP_ACCEPT_LANGUAGE="en").get(reverse("preferences")).content.decode()
    config = re.compile(r'<script id="pref-config" type="application/json">(.*?)</script>', re.S)
    assert json.loads(config.search(page).group(1)) == json.loads(config.search(english_page).group(1))
    assert re.findall(r'id="(pref-[a-z-]+)"', page) == re.findall(r'id="(pref-[a-z-]+)"', english_page)


@pytest.mark.django_db
def test_the_model_api_translates_only_its_human_texts(preference_model):
    japanese = Client(**JA).get(reverse("api-preference-model")).json()
    english = Client(HTTP_ACCEPT_LANGUAGE="en").get(reverse("api-preference-model")).json()
    assert japanese["item_space"] == english["item_space"]  # the machine's labels
    assert (japanese["method"], japanese["labels"], japanese["id"]) == (english["method"], "proxy", english["id"])
    assert japanese["training"]["rounds"] == english["training"]["rounds"]
    assert english["display"]["columns"] == english["item_space"]["columns"]
    columns = dict(zip(english["item_space"]["columns"], japanese["display"]["columns"], strict=True))
    assert columns["Food"] == "飲食" and columns["Residence"] == "居住地"
    assert japanese["display"]["rows"][0] == "平日 0–4時" and english["display"]["rows"][0] == "Mon–Fri 0–4h"
    assert japanese["items"][0]["label"] == f"平日 0–4時 · {japanese['display']['columns'][0]}"
    assert english["items"][0]["label"] == f"Mon–Fri 0–4h · {english['item_space']['columns'][0]}"
    assert japanese["notice"].startswith("既定モデルの学習ラベルは代理ラベル") and "PROXY" in english["notice"]
    assert "逐次合成" in japanese["training"]["accounting"] and "sequential composition" in english["training"][
        "accounting"]
    assert japanese["title"] == "Foursquare NYC、193人（代理ラベル）"


@pytest.mark.django_db
def test_the_jobs_page_is_in_japanese_and_posts_the_same_values(alice_client):
    page = alice_client.get(reverse("preference-jobs"), **JA).content.decode()
    for text in ("公開意向の実験とモデル", "実際の意向をアップロード", "時間帯の長さ（時間）", "利用者あたりのε",
                 "平日と土日を分ける"):
        assert text in page, text
    assert 'name="sweeps" value="slot_hours"' in page and 'name="sweeps" value="hidden_share"' in page
    assert 'value="ldp-mf"' in page and "Upload real preferences" not in page


def test_the_experiment_charts_have_japanese_titles_and_axes():
    rows = [{"sweep": "epsilon", "value": value, "method": method, "fpr": 0.1 * value, "recall": 0.5,
             "reconstruction": 0.4} for value in (0.5, 1.0, 2.0) for method in ("mf", "ldp-mf")]
    template = Template("{% load preference_charts %}{% preference_charts rows 'epsilon' %}")
    with translation.override("ja"):
        svg = template.render(Context({"rows": rows}))
    assert 'aria-label="利用者あたりのεに対する再現率"' in svg
    assert ">利用者あたりのε</text>" in svg and ">偽陽性率</text>" in svg and ">復元率</text>" in svg
    assert "Recall" not in svg and "per user" not in svg
    assert ">ldp-mf<" in svg  # a method's name is the same in both languages
    with translation.override("en"):
        assert 'aria-label="Recall by ε per user"' in template.render(Context({"rows": rows}))


@pytest.fixture
def page():
    yield from browser_page(locale="ja-JP")


@pytest.mark.browser
@pytest.mark.django_db(transaction=True)
def test_rating_recommending_and_contributing_in_japanese_leave_no_english(live_server, preference_model, page):
    page.set_default_timeout(20_000)
    page.goto(live_server.url + "/preferences/")
    wait_for_js(page, "window.preferencesReady === true")
    assert page.get_attribute("html", "lang") == "ja"
    assert page.text_content("#pref-grid thead th:nth-child(2)") != preference_model.item_space["columns"][0]
    for item, clicks in [(3, 1), (17, 2), (25, 1), (47, 2), (60, 1)]:
        for _ in range(clicks):
            page.click(f"#pref-grid button[data-item='{item}']")
    assert page.text_content("#pref-count") == "評価したセル：5個。"
    assert page.get_attribute("#pref-grid button[data-item='3']", "data-state") == "publish"
    assert page.text_content("#pref-grid button[data-item='3']") == "公開"
    page.click("#pref-recommend")
    page.wait_for_selector("#pref-result:not([hidden])")
    assert page.text_content("#pref-summary").startswith("空いているセル115個：")
    assert page.get_attribute("#pref-grid button[data-item='0']", "data-recommendation") in ("publish", "hide")
    assert "確信度" in page.get_attribute("#pref-grid button[data-item='0']", "aria-label")
    page.fill("#pref-epsilon", "0.5")
    page.click("#pref-contribute")
    page.wait_for_selector("#pref-contribution:not([hidden])")
    ledger = page.text_content("#pref-ledger")
    assert "消費：1回の提供でε = 0.500" in ledger
    assert re.search(r"最も古い提供は\d{4}年\d{1,2}月\d{1,2}日まで数えられます。", ledger), ledger
    # What a reader sees (code and the sent JSON are machine text, the same in both languages).
    shown = page.evaluate("(() => { const copy = document.body.cloneNode(true); document.body.after(copy);"
                          " copy.querySelectorAll('code, pre').forEach(e => e.remove()); const text = copy.innerText;"
                          " copy.remove(); return text; })()")
    # The model's version is an id (a time and random hex digits, which may spell "bf").
    shown = shown.replace(preference_model.version, "")
    left = [word for word in english_words(shown) if word not in PROPER_NAMES]
    assert not left, [shown[max(0, shown.find(w) - 80):shown.find(w) + 80] for w in left]
    (ROOT / "test-artifacts" / "i18n").mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(ROOT / "test-artifacts" / "i18n" / "preferences-ja.png"), full_page=True)


@pytest.mark.django_db
def test_a_refused_contribution_says_why_in_japanese_under_the_same_keys(preference_model):
    body = {"model": str(preference_model.id),
            "reports": [{"round": 0, "index": 0, "value": 0.5, "epsilon": 0.5},
                        {"round": 0, "index": 1, "value": 0.5, "epsilon": 0.5}]}
    japanese = Client(**JA).post(reverse("api-preference-reports"), body, content_type="application/json")
    english = Client(HTTP_ACCEPT_LANGUAGE="en").post(reverse("api-preference-reports"), body,
                                                    content_type="application/json")
    assert japanese.status_code == english.status_code == 400
    assert japanese.json().keys() == english.json().keys()
    shown = json.dumps(japanese.json(), ensure_ascii=False)
    assert "1ビット報告の値は±" in shown and "one-bit report" in json.dumps(english.json())
