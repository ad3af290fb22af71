"""Issue 49's acceptance for participants: a Japanese campaign run end to end in Debian's chromium by three
participants, each in their own browser context, two with a Japanese browser (ja-JP: Accept-Language and
navigator.language) and one with an English one (en-US). Each joins, consents, answers every item (the regular
posts, a gold post and both attention checks) and gets a completion code; on every page they see (join and consent,
each task item, the done page) no English word is left (tests.i18n_catalog.english_words, names such as Kakurega
and key names such as Enter aside) and the page is <html lang="ja">, the scripts' texts included (the done line
"完了: N件に回答しました" comes from the JavaScript catalog). Then the mirror: an English campaign seen with a
Japanese browser stays English. Screenshots of the Japanese task page at 1280 and 390 px are saved to
test-artifacts/i18n/participant-task-ja-{1280,390}.png."""

from __future__ import annotations

import pytest

from anonymizer.crowd.web import services as crowd
from anonymizer.models import CampaignPost
from tests.helpers import ROOT, browser_page, wait_for_js
from tests.i18n_catalog import english_words

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.browser]

ARTIFACTS = ROOT / "test-artifacts" / "i18n"
PLACEABLE = ["渋谷のスクランブル交差点、ハチ公前で6時に待ち合わせ。", "東京タワーの展望台から富士山が見えた!"]
UNPLACEABLE = ["今日は家でのんびり本を読んでいます。", "少し疲れたので早めに寝ます。"]
GOLD = "夕飯にパスタを作って、ソファで映画を見た。"  # nobody can place it: the known answer is No
ASKS_YES, ASKS_NO = crowd.ATTENTION_TEXTS["ja"]
EVERY_ITEM = sorted([*PLACEABLE, *UNPLACEABLE, GOLD, ASKS_YES, ASKS_NO])


def truthful(text: str) -> bool:
    if text in (ASKS_YES, ASKS_NO):
        return text == ASKS_YES
    return text in PLACEABLE


def page_state(page, code: str = "") -> dict:
    """The page's language and the English words it shows (its completion code, random letters, aside)."""
    text = page.evaluate("document.body.innerText")
    return {"lang": page.evaluate("document.documentElement.lang"),
            "english": english_words(text.replace(code, "") if code else text), "url": page.url}


def run_participant(browser, url: str, locale: str, screenshots: bool = False) -> dict:
    """Join, consent and answer truthfully in a fresh context set to ``locale``; what every page showed."""
    context = browser.new_context(locale=locale)
    try:
        page = context.new_page()
        page.set_default_timeout(15_000)
        errors: list[str] = []
        page.on("console", lambda message: errors.append(message.text) if message.type == "error" else None)
        page.goto(url)
        pages = [page_state(page)]
        texts = {"join": page.inner_text("main")}
        page.check("#consent")
        page.click("#start")
        page.wait_for_url("**/task/")
        seen: list[str] = []
        for _ in range(20):
            wait_for_js(page, "!document.getElementById('crowd-done').hidden"
                              " || document.getElementById('crowd-post').textContent.length > 0", 15)
            if page.is_visible("#crowd-done"):
                break
            pages.append(page_state(page))
            text = page.text_content("#crowd-post").strip()
            if screenshots and not seen:
                ARTIFACTS.mkdir(parents=True, exist_ok=True)
                for width in (1280, 390):
                    page.set_viewport_size({"width": width, "height": 900})
                    texts[f"overflow-{width}"] = page.evaluate(
                        "document.documentElement.scrollWidth - document.documentElement.clientWidth")
                    page.screenshot(path=str(ARTIFACTS / f"participant-task-ja-{width}.png"), full_page=True)
                page.set_viewport_size({"width": 1280, "height": 900})
            texts.setdefault("task", page.inner_text("main"))
            before = page.text_content("#crowd-count")
            seen.append(text)
            page.click("#answer-yes" if truthful(text) else "#answer-no")
            wait_for_js(page, "!document.getElementById('crowd-done').hidden"
                              f" || document.getElementById('crowd-count').textContent !== {before!r}", 15)
        else:
            raise AssertionError(f"never done after {seen}")
        page.wait_for_selector("#crowd-done:not([hidden])")
        code = page.text_content("#completion-code").strip()
        pages.append(page_state(page, code))
        texts["done"] = page.inner_text("main")
        page.click("#copy-code")
        wait_for_js(page, "document.getElementById('copy-status').textContent.length > 0", 15)
        texts["copied"] = page.text_content("#copy-status")
        return {"seen": seen, "code": code, "code_visible": page.is_visible("#completion"), "pages": pages,
                "texts": texts, "errors": errors}
    finally:
        context.close()


def test_a_japanese_campaign_with_japanese_and_english_browsers(live_server, staff):
    posts = ([crowd.PostSpec(text, external_id=f"r{i}") for i, text in enumerate(PLACEABLE + UNPLACEABLE)]
             + [crowd.PostSpec(GOLD, CampaignPost.Kind.GOLD, False, "g1")] + crowd.attention_checks("ja", 2))
    campaign = crowd.create_campaign(
        owner=staff, name="この投稿はどこで?", language="ja",
        instructions="各投稿を読んで、どこで書かれたかわかるかどうかを「はい」か「いいえ」で答えてください。",
        consent_text="回答は無作為な参加者番号とともに保存され、研究にのみ使われます。", posts=posts,
        judgments_per_post=3, cutoff=0.5, per_participant_cap=10, gold_share=0.0, min_answers_for_code=4,
        checks_within=7, min_gold_answers=1, stop_when_decided=False)
    join_url = f"{live_server.url}/p/{campaign.join_token}/"
    # No database calls inside the browser block (Playwright's event loop makes Django refuse them).
    for page in browser_page():
        browser = page.context.browser
        shown = [run_participant(browser, join_url, "ja-JP", screenshots=True),
                 run_participant(browser, join_url, "ja-JP"),
                 run_participant(browser, join_url, "en-US")]

    for participant in shown:
        assert sorted(participant["seen"]) == EVERY_ITEM, participant["seen"]
        assert participant["code_visible"] and len(participant["code"]) == 10, participant
        assert len(participant["pages"]) == len(EVERY_ITEM) + 2  # join, each item, done
        for state in participant["pages"]:
            assert state["lang"] == "ja" and state["english"] == [], state
        texts = participant["texts"]
        assert "お願いしたいこと" in texts["join"] and "上記を読み、参加に同意します。" in texts["join"]
        assert "この投稿がどこで書かれたかわかりますか?" in texts["task"] and "はい、わかる" in texts["task"]
        # The script's texts come from the campaign's catalog, in Japanese even for the English browser.
        assert "完了: 7件に回答しました" in texts["done"] and "ご協力ありがとうございました" in texts["done"]
        assert texts["copied"] in ("コピーしました", "選択しました。Ctrl+C(または⌘C)でコピーしてください。")
        assert participant["errors"] == [], participant["errors"]
    assert shown[0]["texts"]["overflow-1280"] <= 0 and shown[0]["texts"]["overflow-390"] <= 0
    for width in (1280, 390):
        assert (ARTIFACTS / f"participant-task-ja-{width}.png").stat().st_size > 10_000
    assert campaign.participants.filter(completed_at__isnull=False, flagged_reason="").count() == 3


def test_an_english_campaign_stays_english_in_a_japanese_browser(live_server, staff):
    posts = [crowd.PostSpec("Had a nice cup of tea this afternoon.", external_id="r1"),
             crowd.PostSpec("Meet me at Hachiko in Shibuya at six.", external_id="r2")]
    campaign = crowd.create_campaign(
        owner=staff, name="Can you tell where?", language="en", instructions="Answer Yes if you can tell where.",
        consent_text="Answers are stored pseudonymously.", posts=posts, judgments_per_post=1, per_participant_cap=2,
        min_answers_for_code=2, min_gold_answers=0, gold_share=0.0)
    join_url = f"{live_server.url}/p/{campaign.join_token}/"
    for page in browser_page(locale="ja-JP"):
        page.set_default_timeout(15_000)
        page.goto(join_url)
        join = {"lang": page.evaluate("document.documentElement.lang"), "text": page.inner_text("main")}
        page.check("#consent")
        page.click("#start")
        page.wait_for_url("**/task/")
        wait_for_js(page, "document.getElementById('crowd-post').textContent.length > 0", 15)
        task = {"lang": page.evaluate("document.documentElement.lang"), "text": page.inner_text("main")}
        for _ in range(2):
            before = page.text_content("#crowd-count")
            page.keyboard.press("n")
            wait_for_js(page, "!document.getElementById('crowd-done').hidden"
                              f" || document.getElementById('crowd-count').textContent !== {before!r}", 15)
        page.wait_for_selector("#crowd-done:not([hidden])")
        done = page.inner_text("main")

    assert join["lang"] == "en" and "What you will do" in join["text"] and "I have read this" in join["text"]
    assert task["lang"] == "en" and "Yes, I can tell" in task["text"] and "Undo my last answer" in task["text"]
    assert "Done: 2 items answered" in done and "Your completion code:" in done
    for text in (join["text"], task["text"], done):
        assert not any(mark in text for mark in ("はい", "完了", "回答", "同意")), text
