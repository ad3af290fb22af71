"""Participants in their campaign's language (issue 49, item 2): a campaign's pages, its queue's answers and its
scripts' catalog follow Campaign.language, whatever the browser's Accept-Language or language cookie say; the
owner chooses the language on the new-campaign form and in the API, and the staff pages stay in the owner's."""

from __future__ import annotations

import re

import pytest
from django.conf import settings
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client
from django.urls import reverse
from rest_framework.test import APIClient

from anonymizer.crowd.web import services as crowd
from anonymizer.models import Campaign, CampaignPost

pytestmark = pytest.mark.django_db


def make_campaign(staff, language: str) -> Campaign:
    posts = [crowd.PostSpec(f"投稿 {i}", external_id=f"r{i}") for i in range(3)] + crowd.attention_checks(language, 2)
    return crowd.create_campaign(owner=staff, name="場所の推定", instructions="各投稿を読んでください。",
                                 consent_text="回答は研究に使います。", posts=posts, language=language,
                                 judgments_per_post=2, min_gold_answers=0)


def participant(campaign: Campaign, accept: str) -> Client:
    client = Client(HTTP_ACCEPT_LANGUAGE=accept)
    client.post(reverse("crowd-join", args=[campaign.join_token]), {"consent": "yes"})
    return client


def html_lang(page) -> str:
    return re.search(r'<html lang="([^"]+)"', page.content.decode()).group(1)


@pytest.mark.parametrize("accept", ["en-US,en;q=0.9", "ja"])
def test_a_japanese_campaign_is_japanese_whatever_the_browser_says(staff, accept):
    campaign = make_campaign(staff, "ja")
    client = Client(HTTP_ACCEPT_LANGUAGE=accept)
    client.cookies[settings.LANGUAGE_COOKIE_NAME] = "en"  # a visitor's switch said English: still Japanese
    join = client.get(reverse("crowd-join", args=[campaign.join_token]))
    text = join.content.decode()
    assert html_lang(join) == "ja" and join["Content-Language"] == "ja"
    assert "お願いしたいこと" in text and "上記を読み、参加に同意します。" in text and "開始" in text
    assert "What you will do" not in text and "I have read this" not in text
    # The page loads the scripts' catalog of the campaign, not the browser's.
    catalog_url = reverse("crowd-js-catalog", args=[campaign.join_token])
    assert f'<script src="{catalog_url}"></script>' in text
    refused = client.post(reverse("crowd-join", args=[campaign.join_token]), {}, follow=True)
    assert "参加するには、同意のチェックボックスをオンにしてください。" in refused.content.decode()

    client.post(reverse("crowd-join", args=[campaign.join_token]), {"consent": "yes"})
    task = client.get(reverse("crowd-task", args=[campaign.join_token]))
    text = task.content.decode()
    assert html_lang(task) == "ja"
    for japanese in ("この投稿がどこで書かれたかわかりますか?", "はい、わかる", "いいえ", "直前の回答を取り消す",
                     "キーボード: Yで「はい」、Nで「いいえ」、Uで取り消し。", "完了コード:", "コードをコピー",
                     "最大50件"):
        assert japanese in text, japanese
    assert "Yes, I can tell" not in text and "Undo my last answer" not in text
    # The id the script fills in stays inside the translated sentence.
    assert '<span id="crowd-count">0</span> / 最大50件' in text


def catalog(client: Client, url: str) -> str:
    """The JavaScript catalog's text with its JSON escapes (\\uXXXX) read."""
    text = client.get(url).content.decode()
    return re.sub(r"\\u([0-9a-fA-F]{4})", lambda m: chr(int(m.group(1), 16)), text)


def test_the_campaign_catalog_follows_the_campaign_not_the_browser(staff):
    """Django's JavaScriptCatalog answers in the request's language; a participant page's catalog, at the
    campaign's URL, in the campaign's."""
    japanese, english = make_campaign(staff, "ja"), make_campaign(staff, "en")
    assert "コピーしました" in catalog(Client(HTTP_ACCEPT_LANGUAGE="en"),
                                   reverse("crowd-js-catalog", args=[japanese.join_token]))
    assert "コピーしました" not in catalog(Client(HTTP_ACCEPT_LANGUAGE="en"), reverse("javascript-catalog"))
    in_japanese = Client(HTTP_ACCEPT_LANGUAGE="ja")
    assert "コピーしました" in catalog(in_japanese, reverse("javascript-catalog"))
    assert "コピーしました" not in catalog(in_japanese, reverse("crowd-js-catalog", args=[english.join_token]))
    # An unknown campaign: the browser's language, as its 404 pages.
    assert "コピーしました" in catalog(in_japanese, reverse("crowd-js-catalog", args=["no-such-token"]))


def test_the_queue_answers_in_the_campaigns_language_and_keeps_its_codes(staff):
    campaign = make_campaign(staff, "ja")
    stranger = Client(HTTP_ACCEPT_LANGUAGE="en")
    refused = stranger.get(reverse("crowd-api", args=[campaign.join_token, "next"]))
    assert refused.status_code == 403 and refused.json() == {"error": "先にキャンペーンに参加してください。"}
    client = participant(campaign, "en")
    served = client.get(reverse("crowd-api", args=[campaign.join_token, "next"])).json()
    assert served["done"] is False and set(served) >= {"post", "progress", "error"}  # the keys stay English
    wrong = client.post(reverse("crowd-api", args=[campaign.join_token, "answer"]), {"post": served["post"]["id"]},
                        content_type="application/json")
    assert wrong.status_code == 400 and wrong.json()["error"] == "「はい」か「いいえ」で答えてください。"
    undo = client.post(reverse("crowd-api", args=[campaign.join_token, "undo"]), {}, content_type="application/json")
    assert undo.json()["error"] == "取り消せる回答はありません。"


def test_an_english_campaign_stays_english_in_a_japanese_browser(staff):
    campaign = make_campaign(staff, "en")
    client = Client(HTTP_ACCEPT_LANGUAGE="ja")
    join = client.get(reverse("crowd-join", args=[campaign.join_token]))
    assert html_lang(join) == "en" and "What you will do" in join.content.decode()
    client.post(reverse("crowd-join", args=[campaign.join_token]), {"consent": "yes"})
    task = client.get(reverse("crowd-task", args=[campaign.join_token]))
    assert html_lang(task) == "en" and "Yes, I can tell" in task.content.decode()
    assert "はい、わかる" not in task.content.decode()
    assert client.get(reverse("crowd-api", args=[campaign.join_token, "undo"])).status_code == 405
    undo = client.post(reverse("crowd-api", args=[campaign.join_token, "undo"]), {}, content_type="application/json")
    assert undo.json()["error"] == "There is no answer to undo."
    # Elsewhere the same browser still gets Japanese: only the participant's pages follow the campaign.
    assert html_lang(client.get(reverse("login"))) == "ja"


def test_too_many_joins_are_told_in_the_campaigns_language(staff, settings):
    settings.CROWD_JOIN_RATE = "1/hour"
    campaign = make_campaign(staff, "ja")
    Client(HTTP_ACCEPT_LANGUAGE="en").post(reverse("crowd-join", args=[campaign.join_token]), {"consent": "yes"})
    page = Client(HTTP_ACCEPT_LANGUAGE="en").post(reverse("crowd-join", args=[campaign.join_token]),
                                                   {"consent": "yes"})
    assert page.status_code == 429 and html_lang(page) == "ja"
    assert "分後にもう一度お試しください。" in page.content.decode()


def test_the_new_campaign_form_offers_the_language_and_starts_at_the_owners(client, staff):
    client.force_login(staff)
    page = client.get(reverse("campaign-new"), HTTP_ACCEPT_LANGUAGE="ja").content.decode()
    assert "参加者向けの言語" in page and "ブラウザーの設定にかかわらず" in page
    assert re.search(r'<option value="ja" selected>', page)
    # The default instructions are the owner's language too, and the help says the ranges in it.
    assert "検索エンジンを使ってもかまいません。" in page and "1以上1,000以下です。" in page
    english = client.get(reverse("campaign-new"), HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert "Participants&#x27; language" in english and re.search(r'<option value="en" selected>', english)
    assert "From 1 to 1,000." in english


def test_a_campaign_made_on_the_form_in_japanese_has_japanese_checks(client, staff):
    client.force_login(staff)
    rows = "".join(f"投稿 {i}\n" for i in range(5))
    form = {"name": "x", "instructions": "x", "consent_text": "x", "task": "inferable", "language": "ja",
            "text_column": "text", "sample_size": 10, "attention_checks": 2, "judgments_per_post": 5,
            "cutoff": 0.1, "gold_share": 0.1, "min_gold_accuracy": 0.5, "per_participant_cap": 50,
            "min_gold_answers": 0, "reservation_seconds": 60,
            "posts_file": SimpleUploadedFile("posts.csv", f"text\n{rows}".encode())}
    made = client.post(reverse("campaign-new"), form)
    assert made.status_code == 302, made.context["form"].errors
    campaign = Campaign.objects.get()
    assert campaign.language == "ja"
    attention = set(campaign.posts.filter(kind="attention").values_list("text", flat=True))
    assert attention == set(crowd.ATTENTION_TEXTS["ja"])
    detail = client.get(reverse("campaign-detail", args=[campaign.id])).content.decode()
    assert 'id="campaign-language" lang="ja">日本語<' in detail
    refused = client.post(reverse("campaign-new"), {**form, "language": "fr"})
    assert "language" in refused.context["form"].errors


def test_the_api_takes_and_shows_the_language(staff, location_models):
    client = APIClient()
    client.force_authenticate(staff)
    body = {"name": "x", "instructions": "x", "consent_text": "x", "attention_checks": 2, "min_gold_answers": 0,
            "posts": [{"text": f"post {i}"} for i in range(3)]}
    made = client.post(reverse("api-campaign-list"), {**body, "language": "ja"}, format="json")
    assert made.status_code == 201 and made.json()["language"] == "ja"
    assert set(Campaign.objects.get(id=made.json()["id"]).posts.filter(kind="attention")
               .values_list("text", flat=True)) == set(crowd.ATTENTION_TEXTS["ja"])
    plain = client.post(reverse("api-campaign-list"), body, format="json")
    assert plain.status_code == 201 and plain.json()["language"] == "en"
    # Unless given, a Japanese model's campaign is Japanese (its posts are).
    sampled = client.post(reverse("api-campaign-list"), {**body, "location_model": "tokyo-ja", "sample": 5},
                          format="json")
    assert sampled.status_code == 201 and sampled.json()["language"] == "ja"
    wrong = client.post(reverse("api-campaign-list"), {**body, "language": "fr"}, format="json")
    assert wrong.status_code == 400 and "language" in wrong.json()
    shown = client.get(reverse("api-campaign-detail", args=[made.json()["id"]])).json()
    assert shown["language"] == "ja"


# -- the owner's pages: in the owner's language (Accept-Language here), machine values unchanged -------------------
def answered_campaign(staff) -> Campaign:
    posts = [crowd.PostSpec("Shibuya crossing at six", external_id="r1"),
             crowd.PostSpec("Tea at home", external_id="r2"),
             crowd.PostSpec("Pasta for dinner", CampaignPost.Kind.GOLD, False, "g1")]
    campaign = crowd.create_campaign(owner=staff, name="where", instructions="Judge.", consent_text="OK.",
                                     posts=posts, judgments_per_post=2, cutoff=0.1, min_gold_answers=1, gold_share=0.0,
                                     min_answers_for_code=2)
    for _ in range(2):
        participant = crowd.join(campaign)
        crowd.consent(participant)
        while (assignment := crowd.next_assignment(participant)) is not None:
            crowd.answer(participant, assignment.post_id, answer=assignment.post.text.startswith("Shibuya"))
    return campaign


def test_the_dashboard_in_japanese_keeps_its_values_and_exports(client, staff):
    campaign = answered_campaign(staff)
    client.force_login(staff)
    page = client.get(reverse("campaign-detail", args=[campaign.id]), HTTP_ACCEPT_LANGUAGE="ja").content.decode()
    for japanese in ("実施中", "参加者用のリンク", "有効な回答<span id=\"campaign-progress\">4 / 4</span>件",
                     "人が推定できる1件", "未定1件", "「はい」の割合(95% Wilson区間)", "参加者と完了コードのCSV",
                     "キャンペーンを終了…", "人による推定可能性の分類器を学習…", "参加者ごとの正解付きの設問の正答率",
                     "「はい」が10%以上", "この投稿がどこで書かれたかわかりますか?(はい / いいえ)"):
        assert japanese in page, japanese
    # The label's CSS class keeps the machine value; the exports keep their column names and values.
    assert 'class="label-human-inferable">人が推定できる<' in page
    export = client.get(reverse("campaign-export", args=[campaign.id, "aggregates", "csv"]), HTTP_ACCEPT_LANGUAGE="ja")
    content = b"".join(export.streaming_content if export.streaming else [export.content]).decode()
    assert content.splitlines()[0].startswith("post,") and "human-inferable" in content
    english = client.get(reverse("campaign-detail", args=[campaign.id]), HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert "1 human-inferable" in english and 'class="label-human-inferable">human-inferable<' in english


def test_the_close_confirmation_and_messages_in_japanese(client, staff):
    campaign = answered_campaign(staff)
    client.force_login(staff)
    url = reverse("campaign-action", args=[campaign.id, "close"])
    page = client.get(url, HTTP_ACCEPT_LANGUAGE="ja").content.decode()
    assert "何も変更せずに戻る" in page and "Go back" not in page
    assert "「where」を終了しますか?" in page and "これまでの回答6件" in page  # 4 posts' answers and 2 gold
    closed = client.post(url, {"confirm": "yes"}, HTTP_ACCEPT_LANGUAGE="ja", follow=True).content.decode()
    assert "キャンペーンを終了しました。" in closed and "終了 — リンクからは誰も参加できません" in closed
    listing = client.get(reverse("campaign-list"), HTTP_ACCEPT_LANGUAGE="ja").content.decode()
    assert "クラウドソーシングのキャンペーン" in listing and "<td>終了</td>" in listing


def test_the_quality_checks_and_the_forms_refusals_in_japanese(client, staff):
    campaign = answered_campaign(staff)
    client.force_login(staff)
    page = client.get(reverse("campaign-detail", args=[campaign.id]), HTTP_ACCEPT_LANGUAGE="ja").content.decode()
    checks = re.findall(r"<li>(.*?)</li>", page[page.index('id="campaign-checks"'):page.index("</ul>",
                                                                                           page.index('id="campaign-checks"'))])
    assert checks == ["注意確認の設問はありません。",
                      "正解付きの投稿1件(キャンペーン全体では1件)を全参加者に出題します。1件に回答した時点で正答率が50%を下回ると除外します。",
                      "各種類の最初の確認用の設問は、参加者の最初の5問のうちに出題します。完了コードには、投稿2件への回答とすべての確認用の設問への回答が必要です。"]
    english = client.get(reverse("campaign-detail", args=[campaign.id]), HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert "1 gold post (of the campaign&#x27;s 1) met by every participant" in english  # singular, as before
    form = {"name": "x", "instructions": "x", "consent_text": "x", "task": "inferable", "language": "ja",
            "text_column": "text", "sample_size": 10, "attention_checks": 2, "judgments_per_post": 5,
            "cutoff": 0.1, "gold_share": 0.1, "min_gold_accuracy": 0.5, "per_participant_cap": 50,
            "reservation_seconds": 60}
    gold = "text,gold\n" + "".join(f"post {i},\n" for i in range(5)) + "gold 1,yes\ngold 2,no\n"
    refused = client.post(reverse("campaign-new"), {**form, "posts_file": SimpleUploadedFile("p.csv", gold.encode())},
                          HTTP_ACCEPT_LANGUAGE="ja")
    assert refused.context["form"].errors["min_gold_answers"] == [
        "正解付きの投稿は2件ですが、正答率の判定は正解付きの設問に6問回答した後なので、誰も除外されません。"
        "正解付きの投稿をあと4件以上追加するか、2問の回答後に正答率を判定するようにしてください。"]
    bad = "text,kind\npost,sometimes\n"
    refused = client.post(reverse("campaign-new"), {**form, "posts_file": SimpleUploadedFile("p.csv", bad.encode())},
                          HTTP_ACCEPT_LANGUAGE="ja")
    assert "kindの「sometimes」はregular、gold、attentionのいずれでもありません。" in \
        refused.context["form"].errors["posts_file"][0]


def test_a_japanese_strike_words_task_with_a_map(staff, location_models):
    posts = [crowd.PostSpec("Lunch by the lake in Chicago today", external_id="r1")]
    campaign = crowd.create_campaign(owner=staff, name="語を消す", instructions="消してください。",
                                     consent_text="同意。", posts=posts, task=Campaign.Task.DEIDENTIFY,
                                     ask_location=True, language="ja",
                                     location_model=location_models["us-midwest-en"], min_gold_answers=0)
    client = participant(campaign, "en")
    page = client.get(reverse("crowd-task", args=[campaign.join_token])).content.decode()
    for japanese in ("どこで書かれたかわからなくなるまで消す語をクリックし、送信してください。", "送信",
                     "キーボード: Enterで送信、Uで取り消し。",
                     "見当がつけば、投稿された地域を地図上でクリックしてください(任意)。",
                     'aria-label="投稿された地域をクリックする地図"'):
        assert japanese in page, japanese
    served = client.get(reverse("crowd-api", args=[campaign.join_token, "next"])).json()
    assert served["post"]["tokens"]  # the words to strike, as in English
    wrong = client.post(reverse("crowd-api", args=[campaign.join_token, "answer"]),
                        {"post": served["post"]["id"], "latitude": 41.0}, content_type="application/json")
    assert wrong.json()["error"] == "deleted: 消した語の番号を指定してください。"


def test_a_stored_flag_reads_in_the_owners_language():
    from django.utils import translation

    from anonymizer.crowd.stats import flag_participants
    from anonymizer.crowd.web.views import flag_text

    stored = flag_participants({"p": (1, 4)}, min_accuracy=0.5, min_gold=4, failed_attention=["p", "p"])["p"]
    assert stored == "failed 2 attention checks; gold accuracy 1 of 4 (25%) is below 50%"  # exported as it is
    with translation.override("en"):
        assert flag_text(stored) == stored and flag_text("") == ""
    with translation.override("ja"):
        assert flag_text(stored) == ("注意確認の設問2問に誤答。"
                                     "正解付きの設問の正答率が4問中1問(25%)で、最低の50%を下回る")
        assert flag_text("failed an attention check") == "注意確認の設問に誤答"
        assert flag_text("something new") == "something new"  # a reason it does not know: as stored
