"""Tokenizer: offsets into the original text, noise removal, deletability, language detection, speed."""

from __future__ import annotations

import csv
import gzip
import itertools
from functools import cache
from pathlib import Path

import pytest

from anonymizer.location.tokenize import (
    Token,
    Tokenizer,
    TokenizerSettings,
    detect_language,
    get_tokenizer,
    noise_spans,
)

JA_CORPUS = Path("/work/shared/data/geo/japan_311/tweets.csv")
EN_CORPUS = Path("/work/shared/data/geo/us_midwest_2017/tweets.csv.gz")

JA_EXAMPLE = "今日は京都の鴨川で夕飯を食べた！ https://t.co/xx #京都 @user 楽しかった"
JA_SURFACES = ["今日", "は", "京都", "の", "鴨川", "で", "夕飯", "を", "食べ", "た", "！", "楽しかっ", "た"]


@cache
def _rows(language: str) -> list[dict[str, str]]:
    path = JA_CORPUS if language == "ja" else EN_CORPUS
    if not path.exists():
        pytest.skip(f"corpus {path} is not on this machine")
    opener = gzip.open if path.suffix == ".gz" else open
    with opener(path, "rt", encoding="utf-8", newline="") as f:
        return list(csv.DictReader(f))


def _sample(language: str, n: int) -> list[str]:
    """n posts spread over the whole corpus (the English one is in time order, bots come in bursts)."""
    texts = [row["text"] for row in _rows(language)]
    step = max(1, len(texts) // n)
    return texts[::step][:n]


def _without_noise_and_whitespace(text: str, spans: list[tuple[int, int, str]]) -> str:
    kept, pos = [], 0
    for start, end, _ in spans:
        kept.append(text[pos:start])
        pos = end
    kept.append(text[pos:])
    return "".join(c for c in "".join(kept) if not c.isspace())


def _check_invariants(text: str, tokens: list[Token], settings: TokenizerSettings) -> None:
    spans = noise_spans(text, settings)
    assert spans == sorted(spans)
    assert all(a[1] <= b[0] for a, b in itertools.pairwise(spans)), spans
    noise_chars = {i for start, end, _ in spans for i in range(start, end)}
    previous_end = 0
    for tok in tokens:
        assert text[tok.start : tok.end] == tok.text, (text, tok)
        assert tok.start < tok.end and tok.start >= previous_end, (text, tok)
        previous_end = tok.end
        assert not noise_chars.intersection(range(tok.start, tok.end)), (text, tok, spans)
        assert tok.text and not any(c.isspace() for c in tok.text), (text, tok)
        assert tok.norm and not any(c.isspace() for c in tok.norm), (text, tok)
    assert "".join(t.text for t in tokens) == _without_noise_and_whitespace(text, spans), text


@pytest.mark.parametrize("language", ["ja", "en"])
@pytest.mark.parametrize("remove", [True, False], ids=["noise-removed", "noise-kept"])
def test_real_posts_keep_offsets_and_lose_no_characters(language, remove):
    settings = TokenizerSettings(language, remove_urls=remove, remove_hashtags=remove, remove_mentions=remove)
    tokenizer = get_tokenizer(settings)
    texts = _sample(language, 1000)
    batch = list(tokenizer.tokenize_many(texts))
    assert len(batch) == len(texts)
    for text, tokens in zip(texts, batch, strict=True):
        _check_invariants(text, tokens, settings)
        assert tokenizer.tokenize(text) == tokens
    assert sum(map(len, batch)) > 5 * len(texts)


def test_noise_is_found_in_the_real_english_posts():
    settings = TokenizerSettings("en")
    kinds = {kind for text in _sample("en", 1000) for _, _, kind in noise_spans(text, settings)}
    assert kinds == {"url", "hashtag", "mention"}


def test_japanese_example():
    tokenizer = get_tokenizer(TokenizerSettings("ja"))
    tokens = tokenizer.tokenize(JA_EXAMPLE)
    assert [t.text for t in tokens] == JA_SURFACES
    assert [t.text for t in tokens if not t.deletable] == ["！"]
    # Nothing from the URL, "#京都" or "@user" (the only other 京都 is the one in the sentence).
    assert [t.start for t in tokens if t.text == "京都"] == [JA_EXAMPLE.index("京都")]
    assert all(t.end <= JA_EXAMPLE.index("https") or t.start >= JA_EXAMPLE.index("楽") for t in tokens)
    _check_invariants(JA_EXAMPLE, tokens, tokenizer.settings)


def test_japanese_hashtag_is_tokenized_when_not_removed():
    settings = TokenizerSettings("ja", remove_hashtags=False)
    tokens = get_tokenizer(settings).tokenize(JA_EXAMPLE)
    tag = JA_EXAMPLE.index("#京都")
    in_tag = [t for t in tokens if tag <= t.start < tag + 3]
    assert [(t.text, t.deletable) for t in in_tag] == [("#", False), ("京都", True)]
    assert not any("user" in t.text or "http" in t.text for t in tokens)
    _check_invariants(JA_EXAMPLE, tokens, settings)


def test_japanese_norm_symbols_and_unicode_whitespace():
    text = "わっしょい( ´ ▽ ` )ﾉ\u3000ＤＩＥＳＥＬ１２３\ue337\u00a0地震\r\n(^_^)😀!!"
    tokens = get_tokenizer(TokenizerSettings("ja")).tokenize(text)
    _check_invariants(text, tokens, TokenizerSettings("ja"))
    by_text = {t.text: t for t in tokens}
    assert by_text["ＤＩＥＳＥＬ"].norm == "DIESEL"  # NFKC, no lowercasing for Japanese
    assert by_text["１２３"].norm == "123"
    assert by_text["ﾉ"].norm == "ノ"
    assert by_text["´"].norm == "\u0301"  # NFKC gives " ́"; the space is dropped
    assert by_text["地震"].deletable and by_text["わっしょい"].deletable
    for symbol in ("(", "´", "▽", ")", "\ue337", "😀"):
        assert not by_text[symbol].deletable, symbol
    assert not any(t.deletable for t in tokens if t.start >= text.index("(^_^)"))


def test_english_example():
    text = "Loving the DEEP Dish at Lou's!! 🍕 #ChicagoEats @user https://t.co/AbC123 so good."
    tokens = get_tokenizer(TokenizerSettings("en")).tokenize(text)
    assert [(t.text, t.norm, t.deletable) for t in tokens] == [
        ("Loving", "loving", True),
        ("the", "the", True),
        ("DEEP", "deep", True),
        ("Dish", "dish", True),
        ("at", "at", True),
        ("Lou", "lou", True),
        ("'s", "'s", True),
        ("!", "!", False),
        ("!", "!", False),
        ("🍕", "🍕", False),
        ("so", "so", True),
        ("good", "good", True),
        (".", ".", False),
    ]
    assert [t.start for t in tokens][:3] == [0, 7, 11]
    assert tokens[-1].start == len(text) - 1
    _check_invariants(text, tokens, TokenizerSettings("en"))


def test_english_settings_off_keep_noise_and_case():
    text = "Loving the DEEP Dish #ChicagoEats @user https://t.co/AbC123"
    settings = TokenizerSettings("en", remove_urls=False, remove_hashtags=False, remove_mentions=False, lowercase=False)
    tokens = get_tokenizer(settings).tokenize(text)
    assert [t.norm for t in tokens] == [
        "Loving",
        "the",
        "DEEP",
        "Dish",
        "#",
        "ChicagoEats",
        "@user",
        "https://t.co/AbC123",
    ]
    _check_invariants(text, tokens, settings)


def test_english_unicode_whitespace_and_full_width():
    text = "Ｈｅｌｌｏ\u3000world\u00a0\t again\r\n🤦🏾\u200d♀️ ok"
    settings = TokenizerSettings("en")
    tokens = get_tokenizer(settings).tokenize(text)
    _check_invariants(text, tokens, settings)
    assert tokens[0].text == "Ｈｅｌｌｏ" and tokens[0].norm == "hello"
    assert [t.text for t in tokens if t.deletable] == ["Ｈｅｌｌｏ", "world", "again", "ok"]


@pytest.mark.parametrize("language", ["ja", "en"])
@pytest.mark.parametrize("text", ["", "   ", "\u3000\n\t", "https://t.co/abc #tag @user", "\x00"])
def test_empty_or_noise_only_gives_no_tokens(language, text):
    tokenizer = get_tokenizer(TokenizerSettings(language))
    assert tokenizer.tokenize(text) == []
    assert list(tokenizer.tokenize_many([text, text])) == [[], []]


def test_noise_spans():
    settings = TokenizerSettings("ja")
    text = (
        "見て https://example.com/a#frag@x www.Example.org/p t.co/Ab1 ＃渋谷 #tokyo_2011! ＠user1 @ home &#39; ＠練馬駅"
    )
    found = [(text[s:e], kind) for s, e, kind in noise_spans(text, settings)]
    assert found == [
        ("https://example.com/a#frag@x", "url"),
        ("www.Example.org/p", "url"),
        ("t.co/Ab1", "url"),
        ("＃渋谷", "hashtag"),
        ("#tokyo_2011", "hashtag"),
        ("＠user1", "mention"),
    ]
    only_tags = TokenizerSettings("ja", remove_urls=False, remove_mentions=False)
    # The fragment stays part of the (kept) URL instead of becoming a hashtag.
    assert [kind for _, _, kind in noise_spans(text, only_tags)] == ["hashtag", "hashtag"]
    off = TokenizerSettings("ja", remove_urls=False, remove_hashtags=False, remove_mentions=False)
    assert noise_spans(text, off) == []


def test_detect_language_examples():
    assert detect_language("今日は京都へ") == "ja"
    assert detect_language("京都へ") == "ja"
    assert detect_language("渋谷駅付近") == "ja"
    assert detect_language("Questioning myself ¯\\_(ツ)_/¯") == "en"
    assert detect_language("Pray for Japan https://t.co/abc") == "en"
    assert detect_language("@user 東京 https://t.co/abcdefghij") == "ja"
    assert detect_language("") == "en"


def test_detect_language_on_real_posts():
    ja = [row["text"] for row in _rows("ja")]
    en = [row["text"] for row in _rows("en") if row["lang"] == "en"]
    ja_share = sum(detect_language(t) == "ja" for t in ja) / len(ja)
    en_share = sum(detect_language(t) == "en" for t in en) / len(en)
    print(
        f"\ndetect_language: {ja_share:.2%} of {len(ja)} Japanese posts -> ja, "
        f"{en_share:.2%} of {len(en)} lang=en posts -> en"
    )
    assert ja_share >= 0.95
    assert en_share >= 0.95


def test_get_tokenizer_caches_per_settings():
    a = get_tokenizer(TokenizerSettings("en"))
    assert get_tokenizer(TokenizerSettings("en")) is a
    assert get_tokenizer(TokenizerSettings.from_dict(a.settings.to_dict())) is a
    assert get_tokenizer(TokenizerSettings("en", lowercase=False)) is not a
    assert get_tokenizer(TokenizerSettings("ja")) is get_tokenizer(TokenizerSettings("ja"))


def test_settings_round_trip_and_validation():
    settings = TokenizerSettings("ja", remove_urls=False, remove_hashtags=True, remove_mentions=False, lowercase=False)
    assert settings.to_dict() == {
        "language": "ja",
        "remove_urls": False,
        "remove_hashtags": True,
        "remove_mentions": False,
        "lowercase": False,
        "units": False,
    }
    assert TokenizerSettings.from_dict(settings.to_dict()) == settings
    assert TokenizerSettings.from_dict({"language": "en", "future_option": 1}) == TokenizerSettings("en")
    with pytest.raises(ValueError):
        TokenizerSettings("fr")
    with pytest.raises(ValueError):
        TokenizerSettings.from_dict({"language": "en", "remove_urls": "no"})
    with pytest.raises(TypeError):
        TokenizerSettings.from_dict({})


@pytest.mark.parametrize("language", ["ja", "en"])
def test_tokenize_many_gives_what_tokenize_gives_one_post_at_a_time(language):
    # The batch path (spaCy / fugashi over a stream) must not change a post's tokens; its speed is measured by
    # bench/bench_tokenize.py, not asserted here (a timed test fails on a loaded machine, not on slow code).
    texts = _sample(language, 300)
    batch = Tokenizer(TokenizerSettings(language)).tokenize_many(texts)
    batched = [[token.text for token in tokens] for tokens in batch]
    single = Tokenizer(TokenizerSettings(language))
    assert batched == [[token.text for token in single.tokenize(text)] for text in texts]
    assert sum(map(len, batched)) > 3 * len(texts)
