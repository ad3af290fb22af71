"""The interface in English and Japanese (issue 49): the catalogs are complete, no template or script shows a text
outside them, the language follows the switch, the account and the browser, and catalogs compile without GNU
gettext."""

from __future__ import annotations

import os
import re
import shutil

import pytest
from django.conf import settings
from django.contrib.auth import get_user_model
from django.test import Client
from django.urls import reverse

from anonymizer.models import UserSettings
from anonymizer.platform.i18n import compile_catalogs
from tests import i18n_catalog


@pytest.fixture(scope="module")
def catalog_states():
    if shutil.which("xgettext") is None:
        if os.environ.get("REQUIRE_BROWSER"):  # CI (.ci/run) installs it: there a missing one is a failure
            pytest.fail("xgettext is missing")
        pytest.skip("xgettext (Debian package 'gettext') is needed to extract the texts; .ci/run installs it")
    return i18n_catalog.catalog_states()


def test_every_marked_text_has_a_japanese_entry_none_fuzzy_none_unused(catalog_states):
    for state in catalog_states:
        assert not state.untranslated, (
            f"{state.domain}: texts without a Japanese entry (python -m tests.i18n_catalog missing prints them "
            f"ready to fill in): {state.untranslated}")
        assert not state.fuzzy, f"{state.domain}: fuzzy entries (the English changed): {state.fuzzy}"
        assert not state.obsolete, f"{state.domain}: entries nothing uses any more: {state.obsolete}"


_PLACEHOLDER = re.compile(r"%\([a-z_]+\)[sdf]|%[sdf]|\{[a-z_]*\}")


def test_each_translation_keeps_its_placeholders(catalog_states):
    for state in catalog_states:
        for message in state.merged:
            if not message.id:
                continue
            ids = message.id if isinstance(message.id, tuple) else (message.id,)
            strings = message.string if isinstance(message.string, tuple) else (message.string,)
            wanted = sorted(set(_PLACEHOLDER.findall(ids[-1])))
            for string in strings:
                assert sorted(set(_PLACEHOLDER.findall(string))) == wanted, (state.domain, ids[0], string)


@pytest.mark.parametrize("path", i18n_catalog.templates() + i18n_catalog.scripts(),
                         ids=lambda path: str(path.relative_to(i18n_catalog.ROOT)))
def test_no_text_is_shown_outside_the_catalog(path):
    outside = (i18n_catalog.script_texts_outside(path) if path.suffix == ".js"
               else i18n_catalog.template_texts_outside(path))
    assert not outside, f"{path.name} shows texts outside the catalog (mark them for translation): {outside}"


def test_the_scanners_find_what_they_are_for(tmp_path):
    page = tmp_path / "page.html"
    page.write_text('{% translate "Kept" %}<p title="Hover text">{{ x }} Plain words</p>'
                    '{% blocktranslate %}Also {{ n }} kept{% endblocktranslate %}<input type="submit" value="Go on">')
    assert [text.split(": ", 1)[1] for text in i18n_catalog.template_texts_outside(page)] == [
        "Hover text", "… Plain words", "Go on"]
    script = tmp_path / "page.js"
    script.write_text('const a = gettext("Marked text"); // Not a string\n'
                      'el.textContent = "Shown to a reader";\nq(".sel .ector"); /* "Comment text" */\n'
                      "x = /don't match/; y = `Done: ${n} items`;\n")
    assert [text.split(": ", 1)[1] for text in i18n_catalog.script_texts_outside(script)] == [
        "Shown to a reader", "Done: ${n} items"]


@pytest.mark.django_db
def test_the_browser_language_decides_for_a_visitor():
    japanese = Client(HTTP_ACCEPT_LANGUAGE="ja-JP,ja;q=0.9,en;q=0.5").get(reverse("login"))
    assert '<html lang="ja">' in japanese.content.decode()
    assert "本文へ移動" in japanese.content.decode() and "Skip to content" not in japanese.content.decode()
    assert japanese["Content-Language"] == "ja"
    english = Client(HTTP_ACCEPT_LANGUAGE="en-US,en;q=0.9").get(reverse("login"))
    assert '<html lang="en">' in english.content.decode() and "Skip to content" in english.content.decode()
    # A language the interface does not have falls back to English.
    assert "Skip to content" in Client(HTTP_ACCEPT_LANGUAGE="fr").get(reverse("login")).content.decode()


@pytest.mark.django_db
def test_the_switch_sets_the_language_and_returns_to_the_page():
    client = Client(HTTP_ACCEPT_LANGUAGE="en")
    response = client.post(reverse("set-language"), {"language": "ja", "next": reverse("login")})
    assert response.status_code == 302 and response["Location"] == reverse("login")
    assert response.cookies[settings.LANGUAGE_COOKIE_NAME].value == "ja"
    assert "本文へ移動" in client.get(reverse("login")).content.decode()
    # A language it does not have, or a next page elsewhere, changes nothing and goes nowhere else.
    response = client.post(reverse("set-language"), {"language": "xx", "next": "https://elsewhere.example/"})
    assert response["Location"] == "/" and "本文へ移動" in client.get(reverse("login")).content.decode()


@pytest.mark.django_db
def test_a_signed_in_users_choice_follows_them_to_another_browser():
    user = get_user_model().objects.create_user("kana", password="a long enough password 1")
    first = Client(HTTP_ACCEPT_LANGUAGE="en")
    first.force_login(user)
    first.post(reverse("set-language"), {"language": "ja", "next": "/"})
    assert UserSettings.objects.get(user=user).language == "ja"
    second = Client(HTTP_ACCEPT_LANGUAGE="en-US")  # another browser: no cookie, an English Accept-Language
    second.force_login(user)
    page = second.get(reverse("account")).content.decode()
    assert '<html lang="ja">' in page and "ログアウト" in page
    second.post(reverse("set-language"), {"language": "en", "next": "/"})
    assert UserSettings.objects.get(user=user).language == "en"
    assert "Log out" in first.get(reverse("account")).content.decode()


def test_catalogs_compile_without_gnu_gettext_and_only_when_changed(tmp_path):
    source = tmp_path / "src" / "ja" / "LC_MESSAGES" / "django.po"
    source.parent.mkdir(parents=True)
    source.write_text('msgid ""\nmsgstr ""\n"Content-Type: text/plain; charset=UTF-8\\n"\n\n'
                      'msgid "Help"\nmsgstr "ヘルプ"\n\n#, fuzzy\nmsgid "Jobs"\nmsgstr "仕事"\n', encoding="utf-8")
    compiled = tmp_path / "out"
    assert compile_catalogs(tmp_path / "src", compiled) == [compiled / "ja" / "LC_MESSAGES" / "django.mo"]
    assert compile_catalogs(tmp_path / "src", compiled) == []  # unchanged: not compiled again
    import gettext

    with (compiled / "ja" / "LC_MESSAGES" / "django.mo").open("rb") as mo:
        catalog = gettext.GNUTranslations(mo)
    assert catalog.gettext("Help") == "ヘルプ"
    assert catalog.gettext("Jobs") == "Jobs"  # a fuzzy entry is not used until a translator confirms it
