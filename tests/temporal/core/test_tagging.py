"""The time tagger's two views: ``tag()`` (whole units, for removal) and ``timex_spans()`` (TimeML spans)."""

from __future__ import annotations

import pytest

from anonymizer.temporal.normalize import normalize
from anonymizer.temporal.tagging import TimeTagger, holiday_phrases

TAGGER = TimeTagger()


def _parse(anonymizer, post):
    return anonymizer.nlp(normalize(post).text)


def timex(anonymizer, post):
    doc = _parse(anonymizer, post)
    return [doc[s:e].text for s, e in TAGGER.timex_spans(doc)]


def units(anonymizer, post):
    doc = _parse(anonymizer, post)
    return [doc[s:e].text for s, e in TAGGER.spans(doc)]


@pytest.mark.parametrize(
    ("post", "expected"),
    [
        ("Open house from 2 Nov to 4 Dec, come by", ["2 Nov", "4 Dec"]),  # not "to Nov", "for Dec"
        ("Starts work at 7.30am until now", ["7.30am", "now"]),
        ("overhead at noon (about 1.10pm SGT)", ["noon", "1.10pm SGT"]),
        ("visits the Arts school on 12 Oct 2013", ["12 Oct 2013"]),
        ("Left school at 1435, so tired", ["1435"]),
        ("Long day, left camp at 5+am and came back late", ["day", "5+am"]),
        ("photo taken 720pm by the lake", ["720pm"]),
        ("which takes 1.5hrs just to play", ["1.5hrs"]),
        ("Colonial past, war to peace, bright future", ["past"]),  # "bright future": a hope, no date (round 6)
        ("Some things are better left buried in the past.", ["the past"]),
        ("PRE XMAS GINGERBREAD LATTE", ["Christmas"]),
        ("see you fri!", ["Friday"]),
        ("leaving from Victoria to Crewe tomo morning.", ["tomorrow morning"]),
        ("Q3 results are out", ["Q3"]),
        ("Holiday on Hari Raya Puasa, then Good Friday and Boxing Day", ["Hari Raya Puasa", "Good Friday",
                                                                         "Boxing Day"]),
        ("need to burn a few weekend at public holiday", ["a few weekend", "public holiday"]),
    ],
)
def test_time_expressions_are_found(anonymizer, post, expected):
    assert timex(anonymizer, post) == expected


@pytest.mark.parametrize(
    ("post", "expected"),
    [
        # Ranges and lists: two TimeML spans, one removal unit.
        ("Workshop 10-12 October at the hub", ["10", "12 October"]),
        ("Open on 8 and 9 May", ["8", "9 May"]),
        ("Sale 13 Apr - 15 Apr only", ["13 Apr", "15 Apr"]),
        ("judging this Friday, Saturday at the hall", ["this Friday", "Saturday"]),
        # A day and a clock time are one expression.
        ("judging SDD Vol. 4 this Sat, 7pm at Kallang Theatre.", ["this Saturday, 7pm"]),
        # The possessive and describing words stay out; determiners and quantifiers stay in.
        ("Today's menu is great", ["Today"]),
        ("Aft a long weekend, back to work", ["weekend"]),
        ("what a very long day", ["day"]),
        ("Schedule quite a few weekend", ["a few weekend"]),
        ("It lasted about 2 hours", ["2 hours"]),
        ("I want it right now", ["right now"]),
        ("One more day to go", ["One more day"]),
    ],
)
def test_timex_spans_follow_timeml(anonymizer, post, expected):
    assert timex(anonymizer, post) == expected


@pytest.mark.parametrize(
    ("post", "unit"),
    [
        ("Workshop 10-12 October at the hub", "10-12 October"),
        ("Open on 8 and 9 May", "8 and 9 May"),
        ("Course 11-13 Oct", "11-13 Oct"),
        ("Sale 13 Apr - 15 Apr only", "13 Apr - 15 Apr"),
        ("a bit stupid every mon, wed, thur got parade", "every Monday, Wednesday, Thursday"),
        ("Today's menu is great", "Today's"),
        ("what a very long day", "a very long day"),
    ],
)
def test_tag_keeps_ranges_lists_and_describing_words_as_one_unit(anonymizer, post, unit):
    assert unit in units(anonymizer, post)


def test_time_hashtags_are_tagged_for_removal_but_not_timex(anonymizer):
    post = "#Friday drinks at the bar"
    doc = _parse(anonymizer, post)
    marked = [t.text for t, flag in zip(doc, TAGGER.tag(doc), strict=True) if flag]
    assert "Friday" in marked and "#" in marked
    assert TAGGER.timex_spans(doc) == []


@pytest.mark.parametrize(
    "post",
    [
        "The Sun will rise exactly in the East",
        "a date with my second account, may I?",
        "walked past the station and sat down",
        "Ma'am, a present for you",
        "future plans for the team",
    ],
)
def test_no_false_times(anonymizer, post):
    assert timex(anonymizer, post) == []


def test_holiday_table_is_built_once_from_the_holidays_package():
    table = holiday_phrases()
    assert ("chinese", "new", "year") in table["chinese"]
    assert ("hari", "raya", "puasa") in table["hari"]
    assert ("deepavali",) in table["deepavali"]
    assert holiday_phrases() is table
