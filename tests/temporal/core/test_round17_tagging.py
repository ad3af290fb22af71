"""Issue 46, round 17, the tagging side, through the public anonymizer: the kinds of names, titles, idioms, job-ad
terms and distances that hold a time word but date nothing stay as written; the kinds of times the readers found
left (a bare "a.m.", "April Fools' Day", hashtags with a month, season or holiday inside, a goodnight, a date
between bullets, "it's the 27th") go. Each rule has the readers' shape, a variant, and a post that must stay."""

from __future__ import annotations

import pytest


def _out(anonymizer, post: str) -> str:
    (result,) = anonymizer.transform([post])
    return result.text


@pytest.mark.parametrize(
    "post",
    [
        # A show or a venue in Title Case.
        "Fire on, watching Saturday Kitchen and reading cookbooks",
        "Brunch and then watching Sunday Brunch on the telly",  # the show named after a dating noun: see below
        "Uh oh. I've seen this Night Garden before.",
        "I'm at High Noon Saloon - @user in Madison, WI",
        # Titles written without their "the".
        "I have trophies for Goal of Season & Manager Of The Year from Uni.",
        "Finally made Employee of Month at the store",
        # Kinds of things that date nothing.
        "HE TOOK THE MIDNIGHT TRAIN GOING ANYWHERE",
        "LOL y'all crazy if you think she's gonna sleep off her anger after a night time fight.",
        "I don't watch any other night time dramas",
        "Ceiling Fixers required for a variety of short term positions, night... #Jobs",
        "Cooks wanted: days, nights, weekends. Apply now #hiring",
        "Universal Banker - Sioux Falls, SD (FT/40 Hours) - #Banking #Job",
        "Part time role (PT/20 Hours) in Leeds #Job",
        # Idioms.
        "Last minute plans for the party!",
        "Doing a spring clean of the garage",
        "@user My b time of night**",
        # Distances.
        "I left 30 of my best friends in a town 18 hours from mine. Someone help",
        "My house is 10 minutes from here",
        # A goodnight mentioned, not said.
        "She said night night and left",
        # Hashtags that only look like a season.
        "Love the #waterfall and #offspring",
    ],
)
def test_names_titles_idioms_and_distances_stay(anonymizer, post):
    if "Sunday Brunch" in post:
        # "Sunday Brunch" names the Sunday meal as much as the show: the weekday still goes.
        assert _out(anonymizer, post) == "Brunch and then watching Brunch on the telly"
        return
    assert _out(anonymizer, post) == post


@pytest.mark.parametrize(
    ("post", "expected"),
    [
        # A weekday before a dating noun or after a date word is still the day.
        ("See you Saturday Morning", "See you"),
        ("Sunday Funday with the crew", "Time with the crew"),
        # The time of the idioms' words, where it is one.
        ("Spring clean in January", "Spring clean"),
        (
            "Last minute gig addition tonight: My favourite haunt, Cellar Door!",
            "Last minute gig addition: My favourite haunt, Cellar Door!",
        ),
        # "a.m." / "p.m." without a number after a day word.
        ("Loughborough tomorrow in the a.m!", "Loughborough!"),
        ("See you Monday in the a.m.", "See you."),
        ("See you in the am", "See you"),
        # A month, a season or a holiday inside a hashtag.
        ("Stupid longer crappy month too... #lame #hatefebruary", "Stupid longer crappy time too... #lame"),
        ("#purplesummer #tstspringawakening Missing y'all tonight.", "#tstspringawakening Missing y'all."),
        ("#OctoberFest with the lads", "with the lads"),
        ("Happy New Year 2012 #fireworks #HappyNewYear #photography", "Best wishes #fireworks #photography"),
        ("Merry everything #MerryChristmas", "Merry everything"),
        ("I like iTunes 12 days of Christmas. #12days", "I like iTunes."),
        ("8 years of mediocrity. #MyTwitterAnniversary", "8 years of mediocrity."),
        # The writer's own goodnight.
        ("I sleep for Lauren... night night #birchersbitches", "I sleep for Lauren... #birchersbitches"),
        ("Night night everyone x", "Everyone x"),
        # A date between bullets, "it's the 27th".
        ("#PLL •5/7/17• so good", "#PLL •• so good"),
        (
            "Happy birthday (cause it's the 27th in Paris) to my homie",
            "Happy birthday (cause it's time in Paris) to my homie",
        ),
    ],
)
def test_times_left_before_go(anonymizer, post, expected):
    assert _out(anonymizer, post) == expected


@pytest.mark.parametrize(
    "post",
    [
        "It's the 3rd time I've asked",  # an ordinal before a noun is no date
        "Christmas is 30 days away",  # a countdown, not a distance: it still goes
        "The train leaves at midnight",  # midnight as a time still goes
    ],
)
def test_times_in_the_same_shapes_still_go(anonymizer, post):
    out = _out(anonymizer, post)
    if post.startswith("It's"):
        assert out == post
    else:
        assert out != post


@pytest.mark.parametrize(
    "post",
    [
        # Durations and habits stay by default (keep_how_long): "another", "about" count them as a number does.
        "I could slee for another 8484636282958 hours. But I gotta get up",
        "Waited for another 20 minutes and left",
        "Chemo takes about a year to exit body",
        "The drive takes around 3 hours",
        "I grew up in a town where every summer we would have a party",
        "We go there every winter with the kids",
    ],
)
def test_durations_and_habits_stay(anonymizer, post):
    assert _out(anonymizer, post) == post


@pytest.mark.parametrize(
    ("post", "expected"),
    [
        ("See you in another 2 days", "See you"),  # tied to now by "in"
        ("It happened about a year ago", "It happened"),  # tied by "ago"
        ("Going to Spain this summer", "Going to Spain"),  # which summer
    ],
)
def test_dated_stretches_still_go(anonymizer, post, expected):
    assert _out(anonymizer, post) == expected
