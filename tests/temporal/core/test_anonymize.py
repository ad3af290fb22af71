"""Temporal anonymization on the paper's examples: adjunct time phrases are pruned, arguments generalized, and
whatever stays comes back exactly as written."""

from __future__ import annotations

import pytest

from anonymizer.temporal.anonymize import TemporalAnonymizer
from anonymizer.temporal.evaluate import naturalness_problems
from anonymizer.temporal.normalize import normalize


@pytest.mark.parametrize(
    ("post", "expected"),
    [
        ("I go to Tokyo with friends at 9AM.", "I go to Tokyo with friends."),  # the paper's Figure 1
        ("Heading to the gym at 3 PM", "Heading to the gym"),
        ("im goin 2 the gym w/ my bro 2moro at 9am!!!", "im goin 2 the gym w/ my bro!!!"),
        ("Tonight, we eeat sushiii", "We eeat sushiii"),
        ("Live Streaming on 14th December Friday http://t.co/QbOsZZdZ", "Live Streaming http://t.co/QbOsZZdZ"),
        ("no time here at all, just fun", "no time here at all, just fun"),
    ],
)
def test_adjunct_time_phrases_are_pruned_and_the_rest_is_kept_as_written(anonymizer, post, expected):
    (result,) = anonymizer.transform([post])
    assert result.text == expected


def test_a_time_subject_is_generalized_not_deleted(anonymizer):
    (result,) = anonymizer.transform(["Tomorrow is my birthday!!! sooo happyyy"])
    assert result.text == "A certain day is my birthday!!! sooo happyyy"
    assert result.generalized == [("Tomorrow", "A certain day")] and not result.removed


def test_prune_only_leaves_arguments_alone_and_generalize_only_never_cuts(anonymizer):
    nlp = anonymizer.nlp
    prune_only = TemporalAnonymizer(nlp, generalize=False)
    generalize_only = TemporalAnonymizer(nlp, prune=False)
    posts = ["Tomorrow is my birthday", "I go to Tokyo with friends at 9AM."]
    assert [r.text for r in prune_only.transform(posts)] == ["Tomorrow is my birthday", "I go to Tokyo with friends."]
    generalized = generalize_only.transform(posts)
    assert generalized[0].text == "A certain day is my birthday" and not any(r.removed for r in generalized)


def test_the_natural_check_flags_a_dangling_preposition(anonymizer):
    post = "I go to Tokyo with friends at 9AM."
    norm = normalize(post)
    doc = anonymizer.nlp(norm.text)
    time_tokens = {t.i for t in doc if t.text in ("9AM", "9", "AM")}
    problems = naturalness_problems(doc, time_tokens, set(), post, "I go to Tokyo with friends at.")
    # Both the parse rule and the text rule see it.
    assert problems == ["dangling preposition 'at'", "preposition without its object"]
    result = anonymizer.anonymize_doc(norm, doc)
    assert naturalness_problems(doc, result.cut_tokens, result.replaced_tokens, post, result.text) == []


@pytest.mark.parametrize(("post", "expected"), [
    # A stretch of time "of" something: the something takes its place.
    ("Paid respects to Mr Lee after 4+ hours of queuing.", "Paid respects to Mr Lee after queuing."),
    ("enjoy your well deserved months of leave", "enjoy your well deserved leave"),
    # A period with adjectives keeps them: they say nothing of when.
    ("It's been a wonderful month having you guys around.", "It's been a wonderful time having you guys around."),
    # A duration opening a sentence before "till" is generalized: cutting would leave "till I'm back".
    ("6 more days till I'm back to my happy place!", "Some time till I'm back to my happy place!"),
    # An adverb is cut, never generalized ("for a certain moment" is not English).
    ("I'm just doing boxing for now. Army soon?", "I'm just doing boxing. Army?"),
    # One neutral phrase for the whole noun phrase.
    ("Its a hot day !", "Its a certain day !"),
    # A preposition whose object was cut goes; a sentence of time only is generalized, not emptied.
    ("at 9am", "at a certain time"),
])
def test_shapes_found_in_real_tweets(anonymizer, post, expected):
    assert anonymizer.transform([post])[0].text == expected


def test_granularity_keeps_coarse_expressions_and_cuts_precise_ones(anonymizer):
    keep_parts_of_day = TemporalAnonymizer(anonymizer.nlp, keep_kinds=frozenset({"part_of_day"}))
    (result,) = keep_parts_of_day.transform(["I run in the morning on Monday."])
    assert result.text == "I run in the morning." and result.removed == ["on", "Monday"]
    (everything,) = anonymizer.transform(["I run in the morning on Monday."])
    assert everything.text == "I run."
    with pytest.raises(ValueError, match="unknown kinds"):
        TemporalAnonymizer(anonymizer.nlp, keep_kinds=frozenset({"fortnight"}))
