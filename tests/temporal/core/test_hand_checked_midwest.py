"""A held-out sample from another source: English posts of ../shared/data/geo/us_midwest_2017 (Twitter's ``lang``
"en", no retweets), which no tagger rule, rewrite or checker rule was written from.

The draw, made before the round-4 outputs were looked at: the posts are split by an independent broad regular
expression (``TIME_HINT`` below, not the tagger: weekdays, months, "today", parts of the day, clock times and
dates, years, seasons, holidays), and ``random.Random(23).sample`` takes 100 of the sorted ids that match
(``hand_checked_midwest.json``) and ``random.Random(29).sample`` 100 of the rest (``hand_checked_midwest_plain.json``).
A person read every original and the round-4 anonymizer's output once, before any automatic verdict, and judged:
- each timed post **correct** (nothing a reader could take as when the post was written or the writer was
  somewhere survives; generalized counts as removed) and **natural** (as in test_hand_checked_sample.py), with a
  reason for every "no";
- each plain post whether it holds a time expression the regex missed ("earlier", "these days"); for the ones
  without, an output different from the post is a content word lost.

Round 4, judged once: 93 correct, 63 natural, **61 correct and natural** (Wilson 95%: 51-70%), below the SynTime
samples: ages cut as durations ("A fucking just flipped me off"), neutral phrases where no phrase fits ("it is a
certain time and"), articles and hedges left ("in the 💪", "with me like"), day numbers of "Jun 28" / "July 4"
left, weather-bot lines cut to nothing. Posts without time: 86 of 87 unchanged (the age "12yr old" cut).
Round 5 was developed on these failures, and the 25 changed outputs judged again: 96 correct, 76 natural, 75 both,
87 of 87 unchanged. That is development data now (optimistic).

The round-5 held-out sample (``hand_checked_midwest2*.json``): the same draw over the posts left (seeds 31 and 37),
judged once on the round-5 anonymizer before any automatic verdict: 95 correct, 69 natural, **68 correct and natural**
(Wilson 95%: 58-76%); posts without time 93 of 93 unchanged. What fails: neutral phrases where none fits ("Is it a
certain time yet??", "my birth a certain time"), durations cut out of their clauses ("been &amp; im still"), verse
numbers and fractions taken for clocks and dates ("Job 41:22", "8/10"), "&amp;" split, one English post refused.
The checker, judged against these verdicts: it flags 14 of the 31 unnatural outputs (recall 0.45) and 9 of the 68
natural ones (precision 0.61); on the round-4 sample, judged once, it had flagged 11 of 37 (0.30).
A post the product refuses as not English is stored with output null.

Round 6 (issue 18) was developed on the failures of both samples above and on posts outside every sample (never on
the round-6 draw): rewrites a person would write instead of one neutral phrase ("It needs to hurry up", "been a
while", "Counting down to", "time off", "is coming up"), a bare "today" cut wherever it hangs, HTML entities and
emoji kept whole, verses, thread numbers, titles ("Man of the year") and idioms ("made my day") left alone. The
outputs of rounds 4 and 5 that changed were judged again by a reader who saw only the (original, output) pairs:
round 4 now 97 correct, 85 natural, 84 both; round 5 98, 80, 78 (development data, optimistic).

The round-6 held-out sample (``hand_checked_midwest3*.json``): the same draw over the posts left by rounds 4 and 5
(seeds 41 and 43), drawn before the round-6 work and kept out of it, judged once on the round-6 anonymizer by a
reader who saw only the pairs and no automatic verdict: **96 correct, 77 natural, 74 correct and natural** (Wilson
95%: 65-81%), short of the 85% goal; posts without time: 92 of 95 unchanged (short of 99%: "a min. wage worker"
read as a minute, "a great day" generalized). The checkers were frozen before its verdicts were read: the rules and
language model flag 11 of its 23 unnatural outputs (0.48) and 18 natural ones; the fitted checker
(:class:`~anonymizer.temporal.evaluate.LearnedNaturalnessChecker`, fitted on the six earlier samples, threshold
0.35 chosen by leaving one sample out) flags 19 of 23 (recall 0.83) and 26 of the 77 natural ones (precision 0.42).

Round 7 was developed on the round-6 failures (its 19 changed outputs judged again: 98, 90, 88, development data) and
on the same 560 posts: rates and counts ("8$ an hour", "5 years in a row"), "it" for a small clause's subject ("Make
today great"), "another day" in a past copula, "a while without", a wish ("Friday come quick" -> "Come quick"), "a
great day" and "the day of my life" left alone, years leading a hashtag, one-word greetings.
The round-7 held-out sample (``hand_checked_midwest4*.json``): the same draw (seeds 47 and 53) over the posts left by
rounds 4-6 and by the 560 read in development, judged once on the round-7 anonymizer by another reader who saw only
the pairs: **92 correct, 74 natural, 70 correct and natural** (Wilson 95%: 60-78%); posts without time 86 of 93
unchanged. Frozen before its verdicts were read, the rules and language model flag 9 of its 26 unnatural outputs and
9 natural ones; the fitted checker (fitted on the seven earlier samples, threshold 0.37 by leaving one out) flags 19
of 26 (recall 0.73) and 16 natural ones (precision 0.54).

Round 8 was developed on the round-7 failures (6 changed outputs judged again) and on the next 140 posts of the
development pool: a sentence that holds a time no rewrite fits goes whole when the post says something else; a
clock with its zone stays a clock ("14:57:53 UTC"); "a good hour" -> "a good time"; "a 2008" (a car) is no time.
The round-8 held-out sample (``hand_checked_midwest5*.json``): seeds 59 and 61 over the posts left by rounds 4-7
and the 700 read in development, judged once by another reader who saw only the pairs: **96 correct, 84 natural, 80
correct and natural** (Wilson 95%: 71-87%), short of 85; posts without time 88 of 93 unchanged. Frozen before its
verdicts were read: the rules and language model flag 7 of its 16 unnatural outputs and 13 natural ones; the fitted
checker (fitted on the eight earlier samples, threshold 0.38 by leaving one out) flags 13 of 16 (recall 0.81) and
30 natural ones (precision 0.30).

Round 9 was developed on the round-8 failures (its 16 changed outputs, and 52 of the earlier samples, judged again by
a reader who saw only the pairs) and on the same 700 posts, reading no new ones: an expression that only says how long
or how often stays ("for 12 hours", "1 year in college", "every day", "every 7 weeks"; not "2 years ago", "in a
week", "3 days left", "our 3 yr", "every Sunday"): it tells nothing of when, round 8's reader called posts with only
these timeless, and cutting them broke sentences. Also "day one", "what now", "like it was yesterday", "a CHILL ass
day", "ABC5" are no times; "11am-2pm", "#vbs2017", "#July4" are. The round-9 held-out sample
(``hand_checked_midwest6*.json``): seeds 67 and 71 over the posts left by rounds 4-8 and the 700 read, judged once by
another reader who saw only the pairs: **90 correct, 78 natural, 73 correct and natural** (Wilson 95%: 64-81%); posts
without time 82 of 86 unchanged. Its reader was stricter on dated events than the earlier ones ("#CWSFinals",
"#NursesWeek", "BB19 STARTS", "Electric Forest": 6 of the 10 "not correct"); the 11 outputs that kept a stretch of
time were all judged correct, and 2 timeless posts stayed whole because of it ("One day it'll be okay", "your daily
reminder"). The re-judging reader of round 9 found four kept stretches that date a known event ("waited 7 years for
that trash ending #PLLEndGame", "to lead our country 26 years" with #Pakistan). Frozen before its verdicts were read:
the rules and language model flag 9 of its 22 unnatural outputs and 6 natural ones; the fitted checker (fitted on the
nine earlier samples, threshold 0.36 by leaving one out) flags 16 of 22 (recall 0.73) and 11 natural ones (precision
0.59).

Round 10 was developed on the round-9 failures (its 23 changed outputs judged again) and the same 700 posts: a time's
possessive before its noun leaves "the" ("swag for tomorrow's All-American Experience" -> "for the ..."), "It's going on
midnight and ..." goes like "It's almost 10 pm and ...", an article left before a link goes, "circa", "3+"; "Made my
night" -> "Made my day"; "my senior year", "all year round", "Day made", "my lucky day" are no times; "#summer17" is.
The round-10 held-out sample (``hand_checked_midwest7*.json``, seeds 73 and 79 over the posts left by rounds 4-9 and
the 700 read), judged once by another reader: **91 correct, 79 natural, 70 correct and natural** (Wilson 95%: 60-78%);
posts without time 87 of 89 unchanged. What failed: verbs left without the day they were about ("Spent belting", "how
it made so much better"), dated TV events ("BIG BROTHER STARTS"), neutral phrases ("A certain time until I'm 21").
Round 11 was developed on those (its 10 changed outputs judged again): a day a verb's complement is about becomes "the
day" ("Spent the day belting ..."), "to" after a stretch is a countdown only when it hangs on the stretch ("drove three
hours to Milford" stays), fractions ("1/3 of the time") are no dates, a clock in UTC ("17:22:17Z") is a clock. The
round-11 held-out sample (``hand_checked_midwest8*.json``, seeds 83 and 89), judged once by another reader: **84
correct, 71 natural, 58 correct and natural** (Wilson 95%: 48-67%); posts without time 79 of 84 unchanged. This
reader was the strictest yet: a kept stretch tied to a known event ("I dedicated seven years of my life to Pretty
Little Liars", unchanged), TV premieres and festivals ("#CWS", "Summerfest"), 12 outputs with a neutral word where a
time stood ("a certain time", "it is my time", "his time doctors appointment"), weather-bot lines. Frozen before its
verdicts were read: the rules and language model flag 12 of its 29 unnatural outputs and 8 natural ones; the fitted
checker (fitted on the eleven earlier samples, threshold 0.37 by leaving one out) flags 21 of 29 (recall 0.72) and 13
natural ones (precision 0.62).

Round 12 was developed on the round-11 failures (its 11 changed outputs judged again): a weekday keeps its adjectives
("BEST DAY EVER"), a stretch naming what a noun is stays ("his 6 month doctors appointment"), a time subject the
parser hung on "hope" becomes "it", "my first day", "00/0", "weekend pass", "There's always tomorrow", "It's 5 pm
somewhere", "2 hours from Amarillo" are no times, "#2017" is. A second reader judged the round-11 outputs once as well
(see the end of this module). The round-12 held-out sample (``hand_checked_midwest9*.json``, seeds 97 and 103), judged
once by another reader: **88 correct, 76 natural, 66 correct and natural** (Wilson 95%: 56-75%); posts without time
80 of 84 unchanged ("how many seconds", "a couple days after", "your good days" -> "your hello": gaps in the round-9
and round-6 rules). One of its posts crashed the round-10 possessive rule (an empty unit) before the outputs were
made: the guard was added then, without other change. Frozen before its verdicts were read: the rules and language
model flag 6 of its 24 unnatural outputs and 12 natural ones; the fitted checker (fitted on the twelve earlier
samples, threshold 0.35 by leaving one out) flags 19 of 24 (recall 0.79) and 25 natural ones (precision 0.43).

Round 13 was developed on the round-12 failures after its figure was taken (3 changed outputs judged again; not
measured on a fresh sample): a US zone after a cut clock goes ("10:10 PM ET"), "fall asleep", "night mode", "how many
seconds", "a couple days after hard boozing", "your good days" are no times.

Round 14 was developed on the round-12 failures, on 525 posts nobody had judged (read by two fresh readers) and on the
outputs that changed among 860 more (see ROUND14 below): a day subject before a copula and a thing reads as a headline
without both ("Tonight is a varsity game vs SE Warren." -> "A varsity game vs SE Warren."), what a cut leaves dangling
goes ("at vs", "since" before a cut year, "but definitely 😂", "beginning" before "in July", "come" before a date), tags
of a dated event go ("#Kscope17", "#PLLFinale"), sayings and generic times stay ("a hot minute", "another day", "not
today", "every night", "Why are mornings a thing"). The round-14 held-out sample (``hand_checked_midwest10*.json``,
seeds 107 and 109 over the posts left by rounds 4-12 and the first 2,300 of the shuffle), judged once by another reader:
**91 correct, 79 natural, 72 correct and natural** (Wilson 95%: 63-80%); posts without time 90 of 97 unchanged (5 of the
7 lost a word that says "now" - "rn", "now", "soon", "later" - which SynTime's annotation, and the issue's list of
misses ("Currently"), count as times and this reader did not). What failed: "a certain time" where a subject or an
object stood (4), words left without what was cut (about 10), dated events (the College World Series, Big Brother's
premiere, Electric Forest, the 2018 Olympics: 6 of the 9 not correct), words that were no time ("morning person",
"Tonight Dough", "Daily Caller", a protest "march"). Frozen before its verdicts were read: the rules and language model
flag 5 of its 21 unnatural outputs and 11 natural ones; the fitted checker (fitted on the thirteen earlier samples,
threshold 0.37 by leaving one out) flags 15 of 21 (recall 0.71) and 17 natural ones (precision 0.47).

Round 15 was developed on the round-14 failures (its 11 changed outputs judged again): where only "a certain time" was
left, a cut that leaves a sentence ("I'll be at Coe bout 9:30" -> "I'll be at Coe"), a thing that starts or ends
tomorrow starts or ends "soon", "Today's My B-Day" -> "It's My B-Day", names and traits are no times ("Tonight Dough",
"Daily Caller", "morning person", a protest "march"). The round-15 held-out sample (``hand_checked_midwest11*.json``,
seeds 113 and 127 over the posts left by rounds 4-14 and the same 2,300), judged once by another reader: **95 correct,
80 natural, 75 correct and natural** (Wilson 95%: 66-82%); posts without time 92 of 97 unchanged (all 5 lost a word that
says "now": "rn", "Now", "right now", "now", "lately"). What failed: words left without what was cut (about 12: "will
arrive.", "since and the league starts", "look forward"), "It"/"Times" standing for a day (3), "a certain time of Dimes"
(March of Dimes), a year that was a number ("we see 2000% more"); not correct: "#HumpDay", "my night shift", "JV SB
3:30", "#PLLGameOver", a closure with fireworks emoji. Frozen before its verdicts were read: the rules and language
model flag 7 of its 20 unnatural outputs and 13 natural ones; the fitted checker (fitted on the fourteen earlier
samples, threshold 0.37 by leaving one out) flags 17 of 20 (recall 0.85) and 25 natural ones (precision 0.40).

The verdicts are about the outputs stored with them: when an output changes, the test fails and the output must be
judged again (and the sample is then development data: draw another).
"""

from __future__ import annotations

import csv
import functools
import gzip
import json
import random
import re
from dataclasses import dataclass
from pathlib import Path

import pytest

from anonymizer.temporal.evaluate import LearnedNaturalnessChecker, NaturalnessChecker
from anonymizer.temporal.language import not_english_reason
from anonymizer.temporal.language_model import NGramLanguageModel
from tests.helpers import shared_data

HERE = Path(__file__).parent


def _load(name: str) -> list[dict]:
    return json.loads((HERE / name).read_text(encoding="utf-8"))


# The draw's split, independent of the tagger (word-bounded, case-insensitive).
TIME_HINT = re.compile(
    r"\b(mon|tues|wednes|thurs|fri|satur|sun)days?\b|\b(today|tonight|tomorrow|yesterday|tmrw|tmr|tonite|2nite|2day)\b|"
    r"\b(morning|afternoon|evening|night|noon|midnight|weekend|week|month|year|hour|minute)s?\b|"
    r"\b(january|february|march|april|june|july|august|september|october|november|december|jan|feb|mar|apr|jun|jul|"
    r"aug|sep|sept|oct|nov|dec)\b|\b\d{1,2}(:\d\d)?\s?(am|pm)\b|\b\d{1,2}:\d\d\b|\b\d{1,2}/\d{1,2}(/\d{2,4})?\b|"
    r"\b(ago|o'clock|christmas|xmas|thanksgiving|easter|halloween|summer|winter|spring|fall)\b|\b(19|20)\d\d\b", re.I)


@functools.cache  # every draw splits the same 47,000 posts again: 17 s of searches for the 11 samples otherwise
def has_time_hint(text: str) -> bool:
    return TIME_HINT.search(text) is not None


@dataclass(frozen=True)
class Sample:
    timed: list[dict]
    plain: list[dict]
    seeds: tuple[int, int]  # of the timed and the plain draw
    excluded: frozenset[str]  # ids of the earlier samples, left out of the pools
    # The person's counts on the stored outputs: correct, natural, both; posts without time, of them unchanged.
    human: tuple[int, int, int, int, int]
    # The pair-level checker (parse rules + a trigram model fitted without the sampled posts) on the timed outputs:
    # unnatural ones it flags, natural ones it flags.
    checker: tuple[int, int]


ROUND4 = Sample(_load("hand_checked_midwest.json"), _load("hand_checked_midwest_plain.json"), (23, 29), frozenset(),
                # Judged once: 93, 63, 61, 87, 86; the checker then flagged 11 of the 37 unnatural and 13 natural.
                # After round 5: 96, 76, 75, 87, 87; after rounds 6-8: 97, 87, 86, 87, 87; after round 9 (changed
                # outputs judged again): 96, 88, 86; after rounds 10-11: 96, 89, 87; after round 14 as below.
                human=(98, 91, 90, 87, 87), checker=(1, 23))
ROUND5 = Sample(_load("hand_checked_midwest2.json"), _load("hand_checked_midwest2_plain.json"), (31, 37),
                frozenset(j["id"] for j in ROUND4.timed + ROUND4.plain),
                # Judged once: 95, 69, 68, 93, 93 (checker 14, 9); after rounds 6-8: 98, 83, 81; after round 9: 98, 87,
                # 85; after round 14 (its changed output judged again) as below.
                human=(97, 88, 85, 93, 93), checker=(6, 13))  # round 17: one awaits a reader
ROUND6 = Sample(_load("hand_checked_midwest3.json"), _load("hand_checked_midwest3_plain.json"), (41, 43),
                frozenset(j["id"] for j in ROUND4.timed + ROUND4.plain + ROUND5.timed + ROUND5.plain),
                # Judged once: 96, 77, 74, 95, 92 (checker 11, 18); rounds 7 and 8 were developed on it, its changed
                # outputs judged again: 99, 92, 91; after round 14 as below.
                human=(100, 92, 92, 95, 94), checker=(2, 22))

# Round 7 was developed on the round-6 failures and on 560 posts of the timed pool left by rounds 4 and 5 (their
# seed-101 shuffle, less the round-6 draw), round 8 on the round-7 failures and on the next 140 of them, round 9 on
# the round-8 failures and the same 700 (so rounds 10 to 12): each round's held-out draw leaves out the posts read
# before it.
READ_IN_DEVELOPMENT = {"round7": 560, "round8": 700, "round9": 700, "round10": 700, "round11": 700, "round12": 700,
                       "round14": 2300, "round15": 2300}
ROUND7 = Sample(_load("hand_checked_midwest4.json"), _load("hand_checked_midwest4_plain.json"), (47, 53),
                frozenset(j["id"] for sample in (ROUND4, ROUND5, ROUND6) for j in sample.timed + sample.plain),
                # Judged once: 92, 74, 70, 93, 86 (checker 9, 9; the fitted checker 19 of 26 and 16 natural ones);
                # rounds 8 and 9 were developed on it, its changed outputs judged again: 93, 81, 77; after round 14:
                # 95, 82, 79; after round 15 as below.
                human=(95, 83, 80, 93, 90), checker=(5, 10))
ROUND8 = Sample(_load("hand_checked_midwest5.json"), _load("hand_checked_midwest5_plain.json"), (59, 61),
                frozenset(j["id"] for sample in (ROUND4, ROUND5, ROUND6, ROUND7) for j in sample.timed + sample.plain),
                # Judged once, the held-out figure of round 8: 96, 84, 80, 93, 88 (checker 7, 13); round 9 was
                # developed on it, its 16 changed outputs judged again, as below.
                human=(99, 92, 91, 93, 92), checker=(5, 13))
ROUND9 = Sample(_load("hand_checked_midwest6.json"), _load("hand_checked_midwest6_plain.json"), (67, 71),
                frozenset(j["id"] for sample in (ROUND4, ROUND5, ROUND6, ROUND7, ROUND8)
                          for j in sample.timed + sample.plain),
                # Judged once, the held-out figure of round 9: 90, 78, 73, 86, 82 (checker 9, 6); rounds 10, 11 and 14
                # were developed on it, its changed outputs judged again: 93, 87, 82; after round 14 as below.
                human=(93, 88, 83, 86, 84), checker=(7, 10))  # round 17: one awaits a reader
ROUND10 = Sample(_load("hand_checked_midwest7.json"), _load("hand_checked_midwest7_plain.json"), (73, 79),
                 frozenset(j["id"] for sample in (ROUND4, ROUND5, ROUND6, ROUND7, ROUND8, ROUND9)
                           for j in sample.timed + sample.plain),
                 # Judged once: 91, 79, 70, 89, 87; round 11 was developed on it, its 7 changed outputs judged again:
                 # 92, 84, 76; after round 15 as below.
                 human=(93, 85, 78, 89, 88), checker=(3, 12))
ROUND11 = Sample(_load("hand_checked_midwest8.json"), _load("hand_checked_midwest8_plain.json"), (83, 89),
                 frozenset(j["id"] for sample in (ROUND4, ROUND5, ROUND6, ROUND7, ROUND8, ROUND9, ROUND10)
                           for j in sample.timed + sample.plain),
                 # Judged once, the held-out figure of round 11: 84, 71, 58, 84, 79 (checker 12, 8); round 12 was
                 # developed on it, its 11 changed outputs judged again: 83, 80, 65; after round 14 as below.
                 human=(88, 83, 71, 84, 83), checker=(10, 12))
ROUND12 = Sample(_load("hand_checked_midwest9.json"), _load("hand_checked_midwest9_plain.json"), (97, 103),
                 frozenset(j["id"] for sample in (ROUND4, ROUND5, ROUND6, ROUND7, ROUND8, ROUND9, ROUND10, ROUND11)
                           for j in sample.timed + sample.plain),
                 # Judged once, the held-out figure of round 12: 88, 76, 66, 84, 80 (checker 6, 12); rounds 13 and 14
                 # were developed on it (3, then 8 changed outputs judged again): 88, 79, 69; after round 14 as below.
                 human=(89, 86, 76, 84, 83), checker=(4, 18))  # round 17: one awaits a reader
# Round 14 was developed on the round-12 failures, on the next 300 posts of the seed-101 shuffle (positions 700-1000,
# read by a fresh reader), on the changed outputs of the 1,000 after them, and on 300 more (positions 2000-2300, read
# by another): its held-out draw leaves out the first 2,300 of the shuffle.
ROUND14 = Sample(_load("hand_checked_midwest10.json"), _load("hand_checked_midwest10_plain.json"), (107, 109),
                 frozenset(j["id"] for sample in (ROUND4, ROUND5, ROUND6, ROUND7, ROUND8, ROUND9, ROUND10, ROUND11,
                                                  ROUND12) for j in sample.timed + sample.plain),
                 # Judged once, the held-out figure of round 14: 91, 79, 72, 97, 90 (checker 5, 11); round 15 was
                 # developed on it, its 11 changed outputs judged again: 92, 88, 81; issue 46 (rounds 16 and 17)
                 # changed more, each judged again by a fresh reader who saw only the pair: 92, 89, 82.
                 human=(92, 89, 82, 97, 96), checker=(4, 13))
# Round 15 was developed on the round-14 failures and on the changed outputs of the 1,000 regression posts (read
# before): its held-out draw leaves out the same 2,300.
ROUND15 = Sample(_load("hand_checked_midwest11.json"), _load("hand_checked_midwest11_plain.json"), (113, 127),
                 frozenset(j["id"] for sample in (ROUND4, ROUND5, ROUND6, ROUND7, ROUND8, ROUND9, ROUND10, ROUND11,
                                                  ROUND12, ROUND14) for j in sample.timed + sample.plain),
                 # Judged once, the held-out figure of round 15: 95, 80, 75, 97, 92; issue 46 (rounds 16 and 17)
                 # changed some outputs, each judged again by a fresh reader who saw only the pair: 93, 82, 76, and
                 # the "now" words kept leave all 97 timeless posts unchanged.
                 human=(93, 82, 76, 97, 97), checker=(6, 13))
SAMPLES = {"round4": ROUND4, "round5": ROUND5, "round6": ROUND6, "round7": ROUND7, "round8": ROUND8, "round9": ROUND9,
           "round10": ROUND10, "round11": ROUND11, "round12": ROUND12, "round14": ROUND14, "round15": ROUND15}
# The fitted checker on the latest held-out sample: unnatural outputs it flags, natural ones it flags (fitted on
# the earlier samples, its threshold chosen by leaving one of them out: bench/bench_naturalness.py). On round 6,
# fitted on the six samples before it (threshold 0.35), it flagged 19 of 23 and 26 natural ones.
# On the round-12 sample (fitted on the eleven samples before it, threshold 0.35) it gave (19, 25): recall 19/24.
# On the round-14 sample, fitted on the thirteen before it (threshold 0.37, chosen before its verdicts were read):
# (15, 17); on the round-15 sample, fitted on the fourteen before it (threshold 0.37 again, chosen before its verdicts
# were read):
LEARNED_ON_HELD_OUT = (14, 23)  # rounds 16-17: 20 outputs judged again (now words kept, round 17)
LEARNED_THRESHOLD = 0.37
EARLIER_SAMPLES = ("hand_checked_sample.json", "hand_checked_round2.json", "hand_checked_heldout.json",
                   "hand_checked_fresh.json", "hand_checked_midwest.json", "hand_checked_midwest2.json",
                   "hand_checked_midwest3.json", "hand_checked_midwest4.json", "hand_checked_midwest5.json",
                   "hand_checked_midwest6.json", "hand_checked_midwest7.json", "hand_checked_midwest8.json",
                   "hand_checked_midwest9.json", "hand_checked_midwest10.json")


def read_in_development(posts: dict[str, dict], count: int) -> frozenset[str]:
    """The posts read while developing rounds 7 and 8: the timed pool left by rounds 4 and 5, less the round-6 draw,
    in its seed-101 shuffle, the first ``count``."""
    earlier = {j["id"] for sample in (ROUND4, ROUND5) for j in sample.timed + sample.plain}
    round6 = {j["id"] for j in ROUND6.timed + ROUND6.plain}
    pool = sorted(row["id"] for row in posts.values() if row["lang"] == "en" and not row["text"].startswith("RT ")
                  and row["id"] not in earlier and has_time_hint(row["text"]))
    pool = [i for i in pool if i not in round6]
    random.Random(101).shuffle(pool)
    return frozenset(pool[:count])


@pytest.fixture(scope="module")
def posts() -> dict[str, dict]:
    with gzip.open(shared_data("geo/us_midwest_2017/tweets.csv.gz"), "rt", encoding="utf-8", newline="") as handle:
        return {row["id"]: row for row in csv.DictReader(handle)}


@pytest.fixture(scope="module")
def outputs(posts, anonymizer) -> dict[str, str | None]:
    """What the product gives for each sampled post: its anonymized text, or None when it refuses it."""
    ids = [judged["id"] for sample in SAMPLES.values() for judged in sample.timed + sample.plain]
    texts = [posts[i]["text"] for i in ids]
    results = anonymizer.transform(texts)
    return {i: None if not_english_reason(text) else result.text
            for i, text, result in zip(ids, texts, results, strict=True)}


@pytest.mark.parametrize("name", SAMPLES)
def test_the_samples_are_the_seeded_draws(posts, name):
    sample = SAMPLES[name]
    excluded = sample.excluded | (read_in_development(posts, READ_IN_DEVELOPMENT[name])
                                  if name in READ_IN_DEVELOPMENT else frozenset())
    english = [row for row in posts.values() if row["lang"] == "en" and not row["text"].startswith("RT ")
               and row["id"] not in excluded]
    timed = sorted(row["id"] for row in english if has_time_hint(row["text"]))
    plain = sorted(row["id"] for row in english if not has_time_hint(row["text"]))
    assert [judged["id"] for judged in sample.timed] == random.Random(sample.seeds[0]).sample(timed, 100)
    assert [judged["id"] for judged in sample.plain] == random.Random(sample.seeds[1]).sample(plain, 100)
    assert all(judged["note"] for judged in sample.timed if not (judged["correct"] and judged["natural"]))
    assert all(judged["note"] for judged in sample.plain if judged["has_time"])


ALL = [(name, judged) for name, sample in SAMPLES.items() for judged in sample.timed + sample.plain]


# Outputs the issue-46 rewrites changed since their verdicts were given (the old output's failure is what was fixed):
# the verdicts are about outputs we no longer give, so they stay out of the counts (test_the_human_counts counts only
# outputs still given) until a reader judges the new outputs; then store those verdicts and drop the ids from here.
# Rounds 16 and 17's changed outputs were judged again (see the notes in the files).
AWAITING_JUDGMENT: dict[str, str] = {}


@pytest.mark.parametrize(("name", "judged"), ALL, ids=[f"{name}-{judged['id']}" for name, judged in ALL])
def test_the_anonymizer_still_gives_the_judged_output(outputs, name, judged):
    # On failure the verdict is about an output we no longer give: judge it again.
    if judged["id"] in AWAITING_JUDGMENT:
        assert outputs[judged["id"]] != judged["output"], "the output is the judged one again: drop it from " \
            "AWAITING_JUDGMENT"
        return
    assert outputs[judged["id"]] == judged["output"]


@pytest.mark.parametrize("name", SAMPLES)
def test_the_human_counts(outputs, posts, name):
    sample = SAMPLES[name]
    still_given = [judged for judged in sample.timed if outputs[judged["id"]] == judged["output"]]
    without_time = [judged for judged in sample.plain if not judged["has_time"]]
    unchanged = sum(outputs[judged["id"]] == posts[judged["id"]]["text"] for judged in without_time)
    assert (sum(judged["correct"] for judged in still_given), sum(judged["natural"] for judged in still_given),
            sum(judged["correct"] and judged["natural"] for judged in still_given), len(without_time),
            unchanged) == sample.human


@pytest.fixture(scope="module")
def checker(anonymizer, posts) -> NaturalnessChecker:
    sampled = {judged["id"] for sample in SAMPLES.values() for judged in sample.timed + sample.plain}
    model = NGramLanguageModel().fit([row["text"] for row in posts.values()
                                      if row["lang"] == "en" and row["id"] not in sampled and row["text"]])
    return NaturalnessChecker(anonymizer.nlp, model)


@pytest.mark.parametrize("name", SAMPLES)
def test_the_checker_against_the_person(checker, posts, name):
    judged_outputs = [judged for judged in SAMPLES[name].timed if judged["output"] is not None]
    flagged = {judged["id"] for judged in judged_outputs
               if not checker.is_natural(posts[judged["id"]]["text"], judged["output"])}
    assert (sum(judged["id"] in flagged for judged in judged_outputs if not judged["natural"]),
            sum(judged["id"] in flagged for judged in judged_outputs if judged["natural"])) == SAMPLES[name].checker


def test_the_fitted_checker_against_the_person_on_the_held_out_sample(checker, posts):
    """Fitted on the earlier samples' verdicts only; judged on the round-15 sample, which none of them saw."""
    syntime = {row["id"]: row["text"] for row in map(json.loads, shared_data(
        "temporal/syntime_tweets/train.jsonl").read_text(encoding="utf-8").splitlines())}
    originals = {**syntime, **{i: row["text"] for i, row in posts.items()}}
    earlier = [judged for name in EARLIER_SAMPLES for judged in _load(name) if judged["output"] is not None]
    learned = LearnedNaturalnessChecker(checker, threshold=LEARNED_THRESHOLD).fit(
        [originals[j["id"]] for j in earlier], [j["output"] for j in earlier], [not j["natural"] for j in earlier])
    judged_outputs = [judged for judged in ROUND15.timed if judged["output"] is not None]
    flagged = {j["id"] for j in judged_outputs if not learned.is_natural(posts[j["id"]]["text"], j["output"])}
    assert (sum(j["id"] in flagged for j in judged_outputs if not j["natural"]),
            sum(j["id"] in flagged for j in judged_outputs if j["natural"])) == LEARNED_ON_HELD_OUT


# A second reader judged the round-11 outputs once, on their own, without the first reader's verdicts: 88 correct, 72
# natural, 63 both (the first: 84, 71, 58); the two agreed on 96, 97 and 93 of the 100 (Cohen's kappa 0.83, 0.93,
# 0.85). Both are helpers of the same kind, so this is an upper bound on how far two people would agree. Round 12
# to 15 changed 17 of those outputs (judged again by another reader); the agreement below is over the 83 still given.
SECOND_READER = _load("hand_checked_midwest8_second_reader.json")
# On the outputs still given: how many; the second reader's correct, natural, both; agreements on each.
SECOND_READER_COUNTS = (79, 74, 66, 61, 75, 76, 72)  # round 16: 4 more changed


def test_a_second_reader_on_the_round_11_outputs():
    first = {j["id"]: j for j in ROUND11.timed}
    assert [j["id"] for j in SECOND_READER] == [j["id"] for j in ROUND11.timed]
    assert all(j["note"] for j in SECOND_READER if not (j["correct"] and j["natural"]))
    same = [j for j in SECOND_READER if j["output"] == first[j["id"]]["output"]]
    both = [(j["correct"] and j["natural"], first[j["id"]]["correct"] and first[j["id"]]["natural"]) for j in same]
    assert (len(same), sum(j["correct"] for j in same), sum(j["natural"] for j in same), sum(a for a, _ in both),
            sum(j["correct"] == first[j["id"]]["correct"] for j in same),
            sum(j["natural"] == first[j["id"]]["natural"] for j in same),
            sum(a == b for a, b in both)) == SECOND_READER_COUNTS
