"""The recall bench (bench/bench_kanon_recall.py, issue 44 item 7) on made-up samples: the fresh sample's format
(a ``dpo`` flag per mention, CODE and CONTACT labels) is exercised here without reading the held-out file."""

from __future__ import annotations

import hashlib
import importlib.util
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def bench():
    spec = importlib.util.spec_from_file_location("bench_kanon_recall", REPO / "bench" / "bench_kanon_recall.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules["bench_kanon_recall"] = module
    spec.loader.exec_module(module)
    return module


class T:
    def __init__(self, start: int, end: int, label: str) -> None:
        self.start, self.end, self.label = start, end, label


def test_share_states_the_wilson_interval_of_the_platform_statistics(bench):
    # 16 of 60 (the issue's leaking posts): the interval is crowd.stats' Wilson interval, not a copy of it.
    assert bench.share(16, 60) == " 26.7% [17.1%, 39.0%] (16/60)"


def test_contact_and_code_mentions_are_typed_by_the_rule_types(bench):
    contact = {"start": 0, "end": 10, "label": "CONTACT"}
    code = {"start": 20, "end": 30, "label": "CODE"}
    assert bench.covered(contact, [T(0, 10, "MAIL")], typed=True)
    assert bench.covered(contact, [T(0, 10, "PHONE")], typed=True)
    assert not bench.covered(contact, [T(0, 10, "PERSON")], typed=True)
    assert bench.covered(contact, [T(0, 10, "PERSON")], typed=False)
    assert bench.covered(code, [T(18, 26, "CODE")], typed=True)            # 6 of 10 characters
    assert not bench.covered(code, [T(26, 40, "CODE")], typed=False)       # 4 of 10


def test_dpo_mentions(bench):
    fresh, dev = bench.SAMPLES["fresh"], bench.SAMPLES["dev"]
    assert bench.is_dpo({"label": "DATE", "dpo": True}, fresh)
    assert not bench.is_dpo({"label": "PERSON", "dpo": False}, fresh)
    assert bench.is_dpo({"label": "PERSON"}, dev) and not bench.is_dpo({"label": "DATE"}, dev)


def test_spacy_alone_turns_every_optional_recognizer_off(bench):
    recognizer = bench.spacy_alone(bench.BLOG_TYPES)
    assert not recognizer.lexicons and not recognizer.drop_ordinary_words


def test_run_on_a_made_up_fresh_sample(bench, monkeypatch, capsys):
    texts = ["Heh heh heh. Mail me at kurt.smith@example.com, Kurt Cobain says.",
             "mr wong came in today. Mmmm pizza.",
             "Mmmm chocolate"]

    def mention(post: int, words: str, label: str, dpo: bool) -> dict:
        start = texts[post].index(words)
        return {"start": start, "end": start + len(words), "text": words, "label": label, "dpo": dpo}

    judged = [
        {"post": 0, "mentions": [mention(0, "kurt.smith@example.com", "CONTACT", True),
                                 mention(0, "Kurt Cobain", "PERSON", True)]},
        {"post": 1, "mentions": [mention(1, "wong", "PERSON", True), mention(1, "today", "DATE", False)]},
        {"post": 2, "mentions": []},
    ]
    for item in judged:
        item["text_sha256"] = hashlib.sha256(texts[item["post"]].encode()).hexdigest()
    posts = [{"post": n, "id": str(n), "text": text} for n, text in enumerate(texts)]
    monkeypatch.setattr(bench, "load", lambda sample: (judged, posts))
    result = bench.run(bench.SAMPLES["fresh"], examples=5)
    out = capsys.readouterr().out
    assert (result["posts"], result["mentions"], result["dpo_mentions"]) == (3, 4, 3)
    alone, kakurega = result["figures"]["spaCy alone"], result["figures"]["Kakurega + string-level"]
    # spaCy tags "Mmmm" (GPE): a placeholder that replaced no identifier; Kakurega leaves it
    assert ("Mmmm" in [text for _, _, text in alone["examples"]]) and kakurega["no_identifier_placeholders"][0] == 0
    assert kakurega["not_judged_placeholders"] == 0           # the fresh reader judged e-mails (CONTACT)
    assert kakurega["dpo_recall"][0] >= 2                      # the e-mail (MAIL for CONTACT) and Kurt Cobain
    assert kakurega["leak_posts"][1] == 3 and kakurega["mention_recall"][1] == 4
    assert "CONTACT" in out and "  Kakurega\n" in out and "  spaCy alone\n" in out
