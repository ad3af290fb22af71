"""Issue 46's rewrite failures, one test per kind (in the shape readers found them, not their tweets): emptied slots,
odd replacements, meaning damaged; and for each, posts without a time that the rule could wrongly touch."""

from __future__ import annotations

import pytest


def _outputs(anonymizer, posts: list[str]) -> list[str]:
    return [result.text for result in anonymizer.transform(posts)]


@pytest.mark.parametrize(
    ("post", "expected"),
    [
        # A bare copula left by its time ("IT'S !") goes with its placeholder subject.
        ("Yay IT'S FRIDAY! Time to party", "Yay! Time to party"),
        ("OMG IT'S FRIDAY!!! Let's go", "OMG!!! Let's go"),
        ("OMG it's finally Friday! Party time", "OMG! Party time"),  # not "it's finally!"
        ("Yes, it's Friday. Time for beer", "Yes. Time for beer"),  # not "Yes,."
        # ... and with the comma and conjunction it opened ("It's , and in Ohio").
        ("It's #NationalDonutDay , and in Ohio we celebrate with sprinkles!", "In Ohio we celebrate with sprinkles!"),
        # An adjective judging a time keeps a neutral noun ("for a great with").
        ("Thanks everyone for a great weekend with us!", "Thanks everyone for a great time with us!"),
        ("Enjoy a lovely Sunday with family", "Enjoy a lovely day with family"),
        ("Here's to a great 2015 with you all!", "Here's to a great year with you all!"),
        # "between ... and ..." is one unit ("happening between and .", "between 5 and a certain time").
        ("Free parking happening between 2 and 5 pm.", "Free parking happening."),
        ("Happy hour happening between 5 and 7pm!", "Happy hour happening!"),
        ("Meet us between 2 and 5 pm at the park", "Meet us at the park"),
        # A copula with a subject that says something keeps its slot filled ("The party is.").
        ("The party is between 8 & 11pm.", "The party is on."),
        ("Our last day is on the 30th.", "Our last day is coming up."),
        # A range and a holiday go whole ("closed for the from to .").
        ("We're closed for the Christmas holidays from 24 Dec to 2 Jan.", "We're closed."),
        # A preposition whose phrase went goes too ("open every day except.").
        ("The museum is open every day except on Mondays.", "The museum is open every day."),
    ],
)
def test_an_emptied_slot_takes_its_governing_phrase_or_keeps_a_neutral_word(anonymizer, post, expected):
    assert _outputs(anonymizer, [post]) == [expected]


@pytest.mark.parametrize(
    ("post", "expected"),
    [
        # A bare plural of days as subject or opening adverbial ("Time all the buses slow", "It are made for").
        ("Weekends are made for football and beer", "Some days are made for football and beer"),
        ("Weekends all the buses slow down, so plan ahead", "Some days all the buses slow down, so plan ahead"),
        ("Mondays are for basics and coffee", "Some days are for basics and coffee"),
        # A named year as an object: a fitting word, never "a certain time".
        ("Ride the Year of the Horse with us at the parade", "Ride it with us at the parade"),
        ("Ride the Year of the Horse!", "Ride it!"),
    ],
)
def test_an_odd_replacement_gives_way_to_a_fitting_word(anonymizer, post, expected):
    (output,) = _outputs(anonymizer, [post])
    assert output == expected
    assert "a certain" not in output.lower()


@pytest.mark.parametrize(
    "post",
    [
        # A stretch of time is kept by default, also in Title Case where the recognizer takes the words after it in.
        "Runs For 100 Years Without Refuelling",
        "New Engine Runs For 100 Years Without Refuelling",
        "Battery Lasts For 10 Hours Without Charging",
    ],
)
def test_a_stretch_of_time_in_title_case_is_kept(anonymizer, post):
    assert _outputs(anonymizer, [post]) == [post]


def test_a_title_case_time_tied_to_a_date_still_goes(anonymizer):
    # "Ago" ties the stretch to now: it is a time, and the cut leaves no preposition governing nothing.
    assert _outputs(anonymizer, ["Concert Was 2 Years Ago Without Doubt"]) == ["Concert Was Without Doubt"]


@pytest.mark.parametrize(
    "post",
    [
        # Where the rules above could wrongly fire on a post without a time.
        "It's raining!",
        "Is it true?",
        "Yes, it's finally done.",
        "Here's to a great team with you all!",
        "What it is.",
        "Thanks for a great game with us!",
        "Enjoy a lovely walk with family",
        "We went between the trees and the river.",
        "Everything between us and them is fine.",
        "I waited for the bus from home to school.",
        "Buses are made for people",
        "Ride the Horse with us",
        "I ran for 100 years without stopping",
    ],
)
def test_a_post_without_a_time_stays_unchanged(anonymizer, post):
    assert _outputs(anonymizer, [post]) == [post]
