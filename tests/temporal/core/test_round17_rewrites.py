"""Round 17 (issue 46): rewrites the blind readers of the seed-20261213 samples found wrong, fixed by kind.

Each rule is tested on the readers' post, on variants of the same shape, and on a post of that shape without a time
(which must stay as written). The tests go through the public ``TemporalAnonymizer.transform``."""

from __future__ import annotations

import pytest


def _out(anonymizer, text: str) -> str:
    return anonymizer.transform([text])[0].text


# A bare part of the day opening its sentence, alone or before a vocative, greets as "Good morning" does; the post is
# never left empty ("Morning" -> "", "Morning all!" -> "All!", "Morning you lot." -> "A certain time you lot.").
@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Morning all!", "Hello all!"),
        ("Morning", "Hello"),
        ("Morning you lot.", "Hello you lot."),
        ("Right, time for me to head to bed. Night all. :3", "Right, time for me to head to bed. Take care all. :3"),
        ("Evening everyone, hope you are well.", "Hello everyone, hope you are well."),
        ("Night fam 💤", "Take care fam 💤"),
        ("Morning all, who is up for coffee?", "Hello all, who is up for coffee?"),
    ],
)
def test_a_bare_part_of_the_day_greets(anonymizer, text, expected):
    assert _out(anonymizer, text) == expected


@pytest.mark.parametrize(
    "text",
    [
        "Morning people are the worst.",
        "Night shift again.",
    ],
)
def test_a_part_of_the_day_naming_a_thing_is_no_greeting(anonymizer, text):
    assert _out(anonymizer, text) == text  # "Morning people", "Night shift": no time, no greeting


def test_a_greeting_without_a_part_of_the_day_stays(anonymizer):
    assert _out(anonymizer, "Hello all, who is up for coffee?") == "Hello all, who is up for coffee?"


# A time noun that only describes the noun after it goes alone: its preposition and its conjunction stay
# (readers: "excited a certain time reading", "busy with work classes").
@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            "The bookmobile came to help get our students excited about summer reading",
            "The bookmobile came to help get our students excited about reading",
        ),
        ("She is excited about weekend shopping", "She is excited about shopping"),
        (
            "I'm so freakin busy with work and summer classes. Prob have to start waking up early",
            "I'm so freakin busy with work and classes. Prob have to start waking up early",
        ),
        ("Busy with school and summer jobs", "Busy with school and jobs"),
    ],
)
def test_a_time_describing_a_noun_goes_alone(anonymizer, text, expected):
    assert _out(anonymizer, text) == expected


@pytest.mark.parametrize(
    "text",
    [
        "Excited about reading more books",
        "Busy with school and part-time jobs",
    ],
)
def test_the_same_shape_without_a_time_stays(anonymizer, text):
    assert _out(anonymizer, text) == text


# A subject the parser took for an adverbial before a passive verb keeps a subject (readers: "Was much needed"); the
# "to" of an infinitive whose verb stays is kept (readers: "excited for it start").
@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("This past week was much needed", "This was much needed"),
        ("I'm so excited for the fall semester to start", "I'm so excited for it to start"),
    ],
)
def test_a_subject_and_an_infinitive_keep_their_words(anonymizer, text, expected):
    assert _out(anonymizer, text) == expected


def test_an_infinitive_without_a_time_stays(anonymizer):
    text = "I'm so excited for the new album to drop"
    assert _out(anonymizer, text) == text


def test_a_list_of_parts_of_the_day_is_no_greeting(anonymizer):
    out = _out(anonymizer, "Morning, afternoon and night parade rehearsals at the camp!")
    assert not out.startswith("Hello")
    assert out == "Parade rehearsals at the camp!"


# Words of the sentence the time tagger took with the time next to them stay; only the time goes (readers:
# "Determined to have day.", "kill us.", "running which was", "get some steps", "Jasam are &amp;", "Dalia said").
@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Determined to have a great day today.", "Determined to have a great day."),
        ("Hoping to have a lovely day tomorrow.", "Hoping to have a lovely day."),
        ("puchi's gonna kill us all tomorrow.", "puchi's gonna kill us all."),
        ("Mom is gonna kill us all tonight.", "Mom is gonna kill us all."),
        (
            "Strained a calf muscle running to first tonight which was utterly predictable.",
            "Strained a calf muscle running to first which was utterly predictable.",
        ),
        (
            "at least I'll get some steps in today #theybetternotnoshow",
            "at least I'll get some steps in #theybetternotnoshow",
        ),
        (
            "#gh Jasam are on today &amp; that is the one thing I am looking forward to.",
            "#gh Jasam are on &amp; that is the one thing I am looking forward to.",
        ),
        ("Dalia said this months ago 💀💀😭", "Dalia said this 💀💀😭"),
        ("He told me this weeks ago.", "He told me this."),
    ],
)
def test_words_of_the_sentence_next_to_a_time_stay(anonymizer, text, expected):
    assert _out(anonymizer, text) == expected


@pytest.mark.parametrize(
    "text",
    [
        "Determined to have a great day.",
        "Mom is gonna kill us all.",
        "at least I'll get some steps in #theybetternotnoshow",
        "Dalia said this 💀💀😭",
    ],
)
def test_those_sentences_without_the_time_stay(anonymizer, text):
    assert _out(anonymizer, text) == text


# A date after a word that says when something starts, ending its clause, becomes "soon" (readers: "starting a
# certain time", "beg. A certain time:"); a start word before no time stays.
@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            "And the darting season goes big time, running for 15 weeks, starting Feb 9.",
            "And it goes big time, running for 15 weeks, starting soon.",
        ),
        ("The offer runs for a week, starting Feb 9.", "The offer runs for a week, starting soon."),
        ("Classes beginning 9 Jan. Sign up now", "Classes beginning soon. Sign up now"),
    ],
)
def test_a_start_date_becomes_soon(anonymizer, text, expected):
    assert _out(anonymizer, text) == expected


def test_a_start_word_without_a_date_stays(anonymizer):
    text = "The course starts with a quiz, starting easy."
    assert _out(anonymizer, text) == text


# The last or first stretch of time of a thing becomes its end or start (readers: "back to a certain time of the
# dullest transfer window"); the same words about no time stay.
@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            "Now back to the last hour of the dullest january transfer window in living memory.",
            "Now back to the end of the dullest transfer window in living memory.",
        ),
        (
            "Today is the last day of Pretty Little Liars and honestly I'm pumped.",
            "It is the end of Pretty Little Liars and honestly I'm pumped.",
        ),
        (
            "what am I gonna watch now since tomorrow is the last day of PLL?",
            "what am I gonna watch now since it is the end of PLL?",
        ),
    ],
)
def test_the_last_stretch_of_a_thing_is_its_end(anonymizer, text, expected):
    assert _out(anonymizer, text) == expected


def test_the_last_part_of_a_thing_without_a_time_stays(anonymizer):
    text = "I love the last page of the book."
    assert _out(anonymizer, text) == text


# A long or rough part of the day becomes a long or rough day, not "a long time" (readers: "I had a long time" reads
# oddly); other judged parts of the day keep "time"; the same words about no time stay.
@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("I had a long night", "I had a long day"),
        ("What a rough morning that was.", "What a rough day that was."),
        ("We had a fun evening with friends", "We had a fun time with friends"),
        ("Gonna be a long night #hospitalbound", "Gonna be a long time #hospitalbound"),  # judged natural
    ],
)
def test_a_long_part_of_the_day_is_a_long_day(anonymizer, text, expected):
    assert _out(anonymizer, text) == expected


def test_a_long_thing_without_a_time_stays(anonymizer):
    text = "I had a long talk with him"
    assert _out(anonymizer, text) == text


# A time opening a post before a verb only a person does, or one that does not agree with it, is no subject: it goes
# (readers: "They get fresh with my boy", "It dreamt that ..."); a time the verb agrees with is still "it".
@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Tomorrow get fresh with my boy https://t.co/oQlKSUeLyZ", "Get fresh with my boy https://t.co/oQlKSUeLyZ"),
        (
            "Last night dreamt that I stole a box of books out the back of a van.",
            "Dreamt that I stole a box of books out the back of a van.",
        ),
        ("Tonight watch the game with us!", "Watch the game with us!"),
        ("Today sucks.", "It sucks."),
        ("Yesterday killed me.", "It killed me."),
    ],
)
def test_a_time_before_a_verb_of_the_writer_is_no_subject(anonymizer, text, expected):
    assert _out(anonymizer, text) == expected


def test_a_verb_of_the_writer_without_a_time_stays(anonymizer):
    text = "Dreamt that I stole a box of books out the back of a van."
    assert _out(anonymizer, text) == text
