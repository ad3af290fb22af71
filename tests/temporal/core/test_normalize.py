"""SNS normalization for the parser, and the alignment that gives back what the author wrote."""

from __future__ import annotations

import pytest

from anonymizer.temporal.normalize import normalize


@pytest.mark.parametrize(
    ("post", "normalized"),
    [
        ("im goin 2 the gym w/ my bro 2moro at 9am!!!", "I'm going to the gym with my bro tomorrow at 9am!"),
        ("Heading out NOW, g0 g0 😀😀", "Heading out now, go go 😀😀"),
        ("eeats sushiii 2 pm", "eats sushi 2 pm"),  # "2" before "pm" is a number, not "to"
        ("Soooo happy @bob #blessed http://t.co/x", "So happy @bob #blessed http://t.co/x"),
        ("gooo team, yesss", "go team, yes"),
        ("I go to Tokyo with friends at 9AM.", "I go to Tokyo with friends at 9AM."),  # nothing to do
        ("Tonite!! c u l8r", "Tonight! c you later"),
    ],
)
def test_sns_writing_is_normalized_for_the_parser(post, normalized):
    assert normalize(post).text == normalized


def test_pieces_point_into_both_texts():
    post = "omg 2moro  w/ Ann 😀 at 9am!!!"
    norm = normalize(post)
    for piece in norm.pieces:
        assert post[piece.start:piece.end] == piece.original
        assert norm.text[piece.norm_start:piece.norm_end] == piece.normal
    assert [p.original for p in norm.pieces] == ["omg", "2moro", "w/", "Ann", "😀", "at", "9am", "!!!"]


def test_restore_gives_back_the_untouched_words_exactly_as_written():
    post = "Goin 2 Tokyooo w/ my frieeends  at 9AM!!! 😀"
    norm = normalize(post)
    assert norm.restore() == post
    at = [p.original for p in norm.pieces].index("at")
    assert norm.restore({at, at + 1}) == "Goin 2 Tokyooo w/ my frieeends!!! 😀"


def test_restore_removes_the_space_that_went_with_a_removed_piece():
    norm = normalize("Tomorrow  I eeat sushiii!!")
    assert norm.restore({0}) == "I eeat sushiii!!"
    assert norm.restore(set(), {0: "A certain day"}) == "A certain day  I eeat sushiii!!"
    norm = normalize("I go to Tokyo with friends at 9AM.")
    assert norm.restore({6, 7}) == "I go to Tokyo with friends."
    assert norm.restore({7, 8}) == "I go to Tokyo with friends at"  # the last pieces, the tail spacing too


@pytest.mark.parametrize(
    ("post", "normalized"),
    [
        ("from 2 Nov to 4 Dec", "from 2 Nov to 4 Dec"),  # a day number before a month is a number
        ("on 4 July, 2 December.", "on 4 July, 2 December."),
        ("going 2 the gym 4 an hour", "going to the gym for an hour"),
        ("see you fri, thurs @ 8", "see you Friday, Thursday @ 8"),
        ("friday night or sat?", "friday night or Saturday?"),
        ("tomo morning, tomolo night, trmw", "tomorrow morning, tomorrow night, tomorrow"),
        ("cya tn, this arvo, gd mornin", "cya tonight, this afternoon, gd morning"),
        ("Aft a long weekend", "After a long weekend"),
        ("sun is out, sat down", "sun is out, sat down"),  # "sun", "sat" alone are words
    ],
)
def test_times_in_sns_spelling(post, normalized):
    assert normalize(post).text == normalized


@pytest.mark.parametrize(("post", "normalized"), [
    ("this Sat,7pm at Kallang", "this Saturday, 7pm at Kallang"),
    ("in a week's time~ see you", "in a week's time ~ see you"),
    ("We paid 1,000 dollars", "We paid 1,000 dollars"),  # a number's comma is not a gap
])
def test_glued_punctuation_is_spaced_for_the_parser_only(post, normalized):
    norm = normalize(post)
    assert norm.text == normalized
    assert norm.restore() == post
