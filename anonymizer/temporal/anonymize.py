"""Temporal anonymization: prune the parse subtree that carries a time expression, or generalize it.

In English a time expression is mostly an adjunct ("I go to Tokyo with friends at 9AM"): the subtree that
carries it (the prepositional phrase "at 9AM", the noun-phrase adverbial "this morning") can be cut and the
sentence stays grammatical. Where it is an argument ("Tomorrow is my birthday") cutting breaks the sentence,
so it is replaced by a neutral phrase of its kind ("A certain day is my birthday").

Per time expression (a run of tagged tokens, see :mod:`anonymizer.temporal.tagging`), from its root token r
(the one whose head lies outside the run; a run that only modifies a time word outside it belongs to that word):
- a stretch of time "of" something ("after 4+ hours of queuing", "your well deserved months of leave"): the time
  noun with its quantity and determiners and "of" go, and the something takes its place;
- r is the object of a preposition (pobj/pcomp of an ADP): the preposition's subtree goes ("at 9AM", "in the
  morning", "for now");
- r is an adjunct (npadvmod, advmod, tmod, nmod, appos, amod, compound, nummod, poss, dep, meta, conj, prep): r's
  subtree goes ("this morning", "every day", "2 hours ago", "today's");
- a unit is cut only when all its words belong to the time phrase (time words, their preposition, determiners,
  describing words, punctuation); a place phrase ("at the studio") or a URL hanging on it stays. When other
  words would be left without their head, a time noun is generalized instead ("after a day of shopping" ->
  "after a certain day shopping"), an adverb or adjective ("now", "daily") is cut alone;
- otherwise (nsubj, dobj, attr, ROOT, a duration opening a sentence before "till"/"to") a time noun is
  generalized: the whole noun phrase ("a hot day", "wee hours") becomes one neutral phrase — "a certain day",
  "a certain time", "some time" (durations, "a week"), "a certain moment" ("now" as a sentence of its own); a
  period with adjectives keeps them ("a wonderful month" -> "a wonderful time"). With ``generalize`` off an
  argument stays: cutting it would break the sentence.
Before that, and in place of the one neutral phrase where the role allows (``_whole_units``, ``_rewrite_by_role``):
a greeting opening a sentence keeps greeting ("Good morning!!" -> "Hello!!"); a clause or a sentence that only says
when goes whole ("It's July and we've signed Sanchez" -> "We've signed Sanchez"); an argument keeps its possessive
or adjectives with a neutral noun ("your Saturday" -> "your day", "a fun day" -> "a fun time"), a subject right
before its copula becomes "it", nouns naming an event stay ("Date night" -> "Date"); a time hashtag is cut (an
argument with its article keeps a neutral noun: "enjoying the #sunset" -> "enjoying the time"); "A night with X"
-> "Time with X", "Perfect day for" -> "Perfect time for"; a clause that only says when, before a comma and another
clause, goes with the comma; a qualifier or hedge of the time's preposition goes with it ("even at night", "in like
an hour").
Where one neutral phrase used to stand, the words a person would put there (:func:`_fitting_rewrite`, round 6:
readers found "a certain day" unnatural nine times in ten): a subject becomes "it" (also one the parser hung on as an
adverbial, :func:`stands_as_subject`), a stretch of time "a while" / "a bit" / "some time" / "far", a countdown
"counting down" / "not long", "last chance", "time off", "is on" / "is coming up", "the time I ...", "it" for an
object with a determiner; a bare deictic word ("today") is cut wherever it hangs. Where none fits and the post says
something else, the sentence that holds the time goes whole (:meth:`TemporalAnonymizer._sentence_to_drop`).
An expression that only says how long or how often stays (``keep_how_long``, round 9: :func:`says_how_long_or_often`):
"for 12 hours", "1 year in college", "every day", "every 7 weeks" tell nothing of when, readers called posts with only
these timeless, and cutting them broke sentences; one tied to now or to a date still goes ("2 years ago", "in a
week", "3 days left", "our 3 yr", "every Sunday", "the first day").
Round 14 and 15 (readers of fresh samples): a day subject before a copula and a thing reads as a headline without both
("Tonight is a varsity game vs SE Warren." -> "A varsity game vs SE Warren."); where only "a certain time" was left, a
cut that leaves a sentence (:func:`_cut_instead_of_a_neutral_phrase`); a thing that starts or ends tomorrow starts or
ends "soon"; tags of a dated event go ("#Kscope17", "#PLLFinale").
Then the debris goes: a comma or dash left dangling (between two commas, both), a coordinating conjunction whose
conjunct was cut, a preposition whose object was cut, brackets left empty; a bracket pair cut in half keeps both
halves, and a cut phrase that started a sentence hands its capital to the next word.
Last (issue 46, :func:`_emptied_slots`): a word the cut left governing nothing before a separator, another preposition,
a conjunction or the end goes with its governing phrase ("closed for the from to ." -> "closed.", "between and" as one
unit, "IT'S !" -> its clause goes), or its time noun is generalized instead ("for a great with" -> "for a great time
with"); bare plurals of days become "some days", and a stretch of time kept in Title Case stays whole.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from anonymizer.temporal.normalize import EMOJI_ONLY, NormalizedText, normalize
from anonymizer.temporal.patterns import subtree_pattern
from anonymizer.temporal.tagging import (
    DATE_SHAPE,
    DEFAULT_KEEP_KINDS,
    DURATION_WORDS,
    EVALUATIVE_WORDS,
    GLUED_DURATION,
    KINDS,
    MAKE_FORMS,
    MODIFIER_WORDS,
    MONTHS,
    PART_OF_HEADS,
    WEEKDAY_ABBREVIATIONS,
    WEEKDAYS,
    TimeTagger,
    is_link,
    kind_of,
    runs,
)

__all__ = ["TemporalAnonymizer", "TemporalResult", "opens_sentence", "reattaches"]

ADJUNCT_DEPS = frozenset({"npadvmod", "advmod", "tmod", "obl", "nmod", "appos", "amod", "compound", "nummod",
                          "dep", "meta", "conj", "prep", "advcl", "quantmod", "punct", "poss"})
PREPOSITION_HEAD_DEPS = frozenset({"prep", "dative", "agent"})
FUNCTION_DEPS = frozenset({"det", "predet", "punct", "case", "cc", "prep", "aux", "neg", "quantmod"})
DESCRIBING_DEPS = frozenset({"amod", "compound", "nummod", "advmod", "quantmod", "poss", "det", "predet"})
# Adverbs that describe a time word ("right now", "just now", "2 hours ago", "early tomorrow"); other adverbial
# dependents ("also", a noun the parser took for an adverb) are not part of the time phrase.
TIME_ADVERBS = frozenset("right just only even so very too early late still already almost nearly about around "
                         "exactly precisely ago later earlier back until till since yet now".split())
# A copula's dependents that are no complement: with only these besides a time, the time is its complement.
COPULA_FRAME_DEPS = frozenset({"nsubj", "nsubjpass", "expl", "aux", "auxpass", "neg", "punct", "advcl", "cc",
                               "conj", "mark"})
HEDGES = frozenset("like about around roughly approximately maybe".split())
# Adverbs of a copula that leave the time its complement ("is it Monday again?").
PARTICLE_WORDS = frozenset("out up down off over away back around".split())
PRECISION_ADVERBS = frozenset("right exactly precisely promptly especially particularly".split())
COPULA_ADVERBS = frozenset("again yet already still finally almost nearly just only officially".split())
DANGLING_PUNCT = frozenset({",", "-", "–", "—", ";", ":", "@"})
# Words in front of a time noun that one neutral phrase replaces with it ("a hot day" -> "a certain day").
NOUN_PHRASE_DEPS = frozenset({"det", "predet", "amod", "compound", "nummod", "quantmod", "nmod", "poss"})
NOUN_PHRASE_POS = frozenset({"DET", "ADJ", "NUM", "NOUN", "PROPN", "SYM", "PRON"})
POSSESSIVES = frozenset("my your his her our their".split())  # not "its", in posts mostly "it's"
NOMINAL_POS = frozenset({"NOUN", "PROPN", "NUM", "PRON", "X", "SYM"})
ADJECTIVAL_TIME_WORDS = frozenset("daily weekly monthly yearly nightly hourly annual annually".split())
DETACHABLE_PREPOSITIONS = frozenset("at in on near around inside outside with".split())
WEEKDAY_FORMS = WEEKDAYS | WEEKDAY_ABBREVIATIONS


# Dependents that hang on to the word above a cut head and read as well there ("at least now you can" -> "at least
# you can", "a day in the hurricane area" -> "in the hurricane area"): clauses, adverbs, place phrases.
REATTACHING_DEPS = frozenset({"advmod", "npadvmod", "cc", "conj", "mark", "advcl", "parataxis", "intj", "dep",
                              "relcl", "acl", "appos"})


def reattaches(token: Any) -> bool:
    """Whether ``token`` reads as well hanging on the word above its head, once its head is cut."""
    return token.dep_ in REATTACHING_DEPS or (token.dep_ == "prep" and token.lower_ in DETACHABLE_PREPOSITIONS)


def _is_nominal(token: Any) -> bool:
    """A time noun can stand in an argument position and be generalized; an adverb or an adjective
    ("now", "daily") cannot: it is cut."""
    return token.pos_ in NOMINAL_POS and token.lower_ not in ADJECTIVAL_TIME_WORDS


def _describes(token: Any, run: set[int]) -> bool:
    """Whether ``token``, in front of a time noun, is part of the noun phrase one neutral phrase replaces."""
    if token.text == "#":  # the mark of a hashtag inside the phrase ("the #Christmas season")
        return True
    if token.dep_ == "quantmod" and token.pos_ != "VERB":  # "less than 12 hours", "more than an hour"
        return True
    if is_link(token) or token.pos_ not in NOUN_PHRASE_POS:
        return False
    if token.dep_ == "poss":
        return token.lower_ in POSSESSIVES
    return token.dep_ in NOUN_PHRASE_DEPS or token.i in run

# Neutral phrases by the kind of the expression's root word.
DAY_WORDS = frozenset("today tomorrow yesterday tonight day days weekend weekends birthday date christmas xmas "
                      "halloween easter thanksgiving monday tuesday wednesday thursday friday saturday sunday".split())
TIME_OF_DAY_WORDS = frozenset("morning afternoon evening night noon midnight dawn dusk hour minute am pm".split())


DURATION_UNITS = frozenset("seconds minutes hours days weeks months years decades".split())
QUANTITY_DEPS = frozenset({"det", "predet", "nummod", "quantmod", "compound"})
PERIOD_WORDS = frozenset("week weeks month months year years season semester term".split())
UNIT_WORDS = frozenset("hour minute second".split())  # "need a bout a hour" -> "need some time"


def _neutral_phrase(root: Any) -> str:
    lower = root.lower_
    indefinite = any(c.dep_ == "det" and c.lower_ in ("a", "an") for c in root.children)
    if (lower in DURATION_UNITS and any(c.dep_ == "nummod" or c.like_num for c in root.children)) or \
            GLUED_DURATION.match(root.text) or (lower in PERIOD_WORDS | UNIT_WORDS and indefinite):
        return "some time"  # "83 days to london" -> "some time to london"
    if lower in DAY_WORDS or lower in WEEKDAY_FORMS:
        return "a certain day"
    if lower in TIME_OF_DAY_WORDS or (any(c.isdigit() for c in lower) and ":" in lower):
        return "a certain time"
    if lower == "now":
        return "a certain moment"
    return "a certain time"


BE_FORMS = frozenset("is 's ’s was are were be been am 'm ’m s".split())
# Words a clause that only says when is made of besides the time ("It's Friday!", "Its the weekend!").
PLACEHOLDER_WORDS = frozenset("it its it's this that is 's ’s s was be been finally already almost".split())
# A greeting that opens a sentence with a time word ("Good morning!", "Happy Friday, friends!") becomes one
# that says nothing of when; "good night" bids farewell.
GREETING_OPENERS = {"good": "Hello", "gud": "Hello", "gd": "Hello", "happy": "Best wishes", "merry": "Best wishes",
                    "blessed": "Best wishes", "selamat": "Best wishes"}  # "Selamat Hari Raya"
# A holiday greeting with its wish after the holiday's name ("Eid Mubarak"): it becomes one without the holiday.
GREETING_CLOSERS = {("eid", "mubarak"): "Best wishes"}
FAREWELL_WORDS = frozenset("night nite nights".split())
VOCATIVES = frozenset("all everyone everybody guys yall y'all folks friends fam people world".split())
# A part of the day that greets on its own, without "good" ("Morning all!", "Night all.", "Evening everyone,"):
# it greets as "Good morning" does, when it opens its sentence alone or before a vocative (round 17: readers found
# "All!" and an empty post where "Morning all!" and "Morning" stood).
BARE_GREETINGS = {"morning": "Hello", "mornin": "Hello", "morningg": "Hello", "afternoon": "Hello",
                  "evening": "Hello", "night": "Take care", "nite": "Take care", "nighty": "Take care"}
# Words that address the readers after a greeting ("Morning you lot", "Night lads").
GREETED = VOCATIVES | frozenset("lads ladies gents peeps tweeps twitter team gang crew fam squad loves lovelies "
                                "babe babes darling darlings beautiful".split())
ONE_WORD_GREETINGS = {"goodnight": "Take care", "goodnite": "Take care", "gnight": "Take care",
                      "goodmorning": "Hello", "gmorning": "Hello"}
# Bare time words that stand where an object would and are adverbials ("Voting closes midnight!").
DEICTIC_WORDS = frozenset("today tonight tomorrow yesterday midnight noon now".split())
# A thing that starts or ends "soon" says no date ("Offer ends tomorrow:" -> "Offer ends soon:").
START_END_VERBS = frozenset("starts begins ends closes opens expires launches drops premieres".split())
# Words that only hedge a clock ("bout 9:30", "around 5"): they go with it.
CLOCK_HEDGES = frozenset("about abt bout around like roughly approximately approx almost nearly".split())
VERSUS_WORDS = frozenset("vs vs. v. versus against".split())
# Prepositions that only ever take a time: with the time right after them cut, they go ("since 2002 cowboys").
TIME_ONLY_PREPOSITIONS = frozenset("since until till til during".split())
CLAUSE_ADVERBS = frozenset("only just still even now already finally".split())
FRAMING_WORDS = frozenset("beginning starting effective ending through thru lasting come".split())
# Verbs whose time object can go when a phrase follows ("Starting the day with", "celebrate the 4th with").
OCCASION_VERBS = frozenset("start starts started starting begin begins began beginning end ends ended ending kick "
                           "kicks kicked kicking celebrate celebrates celebrated celebrating close closing".split())
# Occasions "it" stands for well as a day ("It is my birthday"); before other things the post reads as a headline.
OCCASION_NOUNS = frozenset("birthday bday anniversary anniv holiday day night weekend one".split())
KEPT_DETERMINERS = frozenset("a an the this that these those every each some any".split())
PLURAL_TIME_NOUNS = frozenset("days weeks months years nights hours minutes mornings evenings weekends "
                              "seasons decades".split())

# Bare plurals of days that "some days" stands for as a subject or an opening adverbial.
PLURAL_DAY_NOUNS = frozenset({"weekends", "weekdays", "holidays", *(day + "s" for day in WEEKDAYS)})


# Nouns that describe like adjectives in front of a time noun ("a fun evening" -> "a fun time").
ADJECTIVE_NOUNS = frozenset("fun quality".split())


def _neutral_noun(root: Any) -> str:
    """The noun that takes a time noun's place when its describing words stay: "day" for a named or deictic day
    ("your Saturday" -> "your day"), "time" for the rest ("a fun day" -> "a fun time"), plural for plural."""
    lower = root.lower_
    plural = root.tag_ in ("NNS", "NNPS") or lower in PLURAL_TIME_NOUNS
    noun = "day" if (lower in DAY_WORDS or lower in WEEKDAY_FORMS) and lower not in ("day", "days") else "time"
    if root.head.lower_ in MAKE_FORMS and any(c.dep_ == "poss" for c in root.children):
        noun = "day"  # "Made my night." -> "Made my day.": the idiom without the part of the day
    if lower in ("night", "evening", "morning", "afternoon", "nite") and any(
            c.dep_ == "poss" and c.lower_ in POSSESSIVES for c in root.children):
        noun = "day"  # "that's how my night is going" -> "how my day is going" (a round-14 reader: "my time" reads
        # as a placeholder)
    if lower in ("night", "evening", "morning", "afternoon", "nite") and any(
            c.dep_ == "amod" and c.lower_ in ("long", "short", "rough", "tough", "hard") for c in root.children) \
            and not (root.head.lower_ in BE_FORMS and root.head.i < root.i):
        noun = "day"  # "I had a long night" -> "I had a long day" (round-17 readers: "a long time" reads oddly); but
        # "Gonna be a long night" -> "Gonna be a long time" (judged natural)
    return noun + "s" if plural else noun


def _article_for(word: str) -> str:
    return "an" if word[:1].lower() in "aeiou" else "a"


def _rewrite_by_role(root: Any, tokens: list[int], marked: list[bool], *,
                     prune: bool = True) -> tuple[set[int], dict[int, str]] | None:
    """A rewrite of an argument time noun that fits its role, or None to fall back to one neutral phrase:
    (tokens to cut, token -> replacement)."""
    doc = root.doc
    head = root.head
    if root.dep_ in SUBJECT_DEPS and tokens == [root.i] and YEAR_NUMBER.match(root.text) and head.i > root.i \
            and head.pos_ in ("AUX", "VERB") and all(doc[i].dep_ in ("aux", "neg", "advmod") or doc[i].i == head.i
                                                     for i in range(root.i + 1, head.i + 1)) \
            and not any(YEAR_NUMBER.match(t.text) for t in root.sent if t.i != root.i):  # not "2016 was 1, 2015 was 2"
        return set(), {root.i: "this"}  # "2017 has been a wild ride" -> "This has been ...", not "A certain time ..."
    if not _is_nominal(root) or not root.is_alpha or root.pos_ == "NUM":
        return None
    if prune and root.dep_ == "compound" and head.i > root.i and not marked[head.i] and head.pos_ in ("NOUN", "PROPN") \
            and head.is_alpha:
        # "your rainy day essentials" -> "your essentials": the time describes a thing; the thing stays.
        return {i for i in tokens if not (doc[i].dep_ in ("poss", "det") and not marked[i])} | {root.i}, {}
    if prune and root.dep_ == "dobj" and tokens == [root.i] and (
            root.lower_ in DEICTIC_WORDS or root.lower_ in WEEKDAY_FORMS or root.lower_ in MONTHS):
        if any(c.dep_ in ("ccomp", "xcomp", "oprd", "acomp") and c.i > root.i for c in head.children):
            return set(), {root.i: "it"}  # "Make today great" -> "Make it great"
        return {root.i}, {}  # "Voting closes midnight!" -> "Voting closes!", "Meet Thursday w The Venue"
    plural = root.tag_ in ("NNS", "NNPS") or root.lower_ in PLURAL_TIME_NOUNS
    after = tokens[-1] + 1
    if root.dep_ in ("nsubj", "nsubjpass") and not plural and head.lower_ in BE_FORMS and after < len(doc) \
            and (after == head.i or (doc[after].head.i == head.i and doc[after].dep_ in ("aux", "neg"))) \
            and all(marked[i] or doc[i].dep_ == "det" for i in tokens):
        # "Tomorrow is my birthday" -> "It is my birthday" (a subject right before its copula). Before a thing or an
        # event the post reads as a headline without both: "Tonight is a varsity game vs SE Warren." -> "A varsity
        # game vs SE Warren.", "Reminder: Tomorrow is our sales blitz" -> "Reminder: our sales blitz" (readers called
        # "It is" there a placeholder four times in four, and "This is" four times in four; "It is a new day", "It
        # is my birthday" they kept).
        complements = [c for c in head.children if c.dep_ == "attr" and c.i > head.i]
        thing = head.lower_ in ("is", "'s", "’s") and len(tokens) == 1 and head.dep_ in ("ROOT", "acl") \
            and bool(complements) and all(c.dep_ in ("nsubj", "attr", "punct") or all(
                marked[t.i] or t.pos_ == "ADP" for t in c.subtree) for c in head.children) and all(
                c.pos_ in ("NOUN", "PROPN") and kind_of(c) is None and c.lower_ not in OCCASION_NOUNS
                and any(d.dep_ in ("det", "poss") for d in c.children) for c in complements)
        if thing and prune:
            return set(tokens) | {head.i}, {}
        return set(tokens[1:]), {tokens[0]: "it"}
    if root.lower_ in DURATION_WORDS:
        return None  # "wee hours", "Long Hours": idioms and titles; one neutral phrase
    # Adjectives say nothing of when; nouns in front of a time noun mostly name an event ("Date night").
    # An adjective the entity recognizer took into the time ("a long day", "What a fabulous day") carries no time.
    describing = [doc[i] for i in tokens if i != root.i
                  and (not marked[i] or (doc[i].is_alpha and doc[i].lower_ not in MODIFIER_WORDS))
                  and ((doc[i].dep_ == "amod" and (doc[i].pos_ in ("ADJ", "PROPN") or doc[i].tag_.startswith("JJ")))
                       or (doc[i].dep_ in ("amod", "compound") and doc[i].lower_ in ADJECTIVE_NOUNS))
                  and not doc[i].text.isupper()]
    possessive = [doc[i] for i in tokens if doc[i].dep_ == "poss" and doc[i].lower_ in POSSESSIVES]
    if any(doc[i].dep_ == "quantmod" for i in tokens) or (root.text.isupper() and not describing and not possessive):
        return None  # "SLOW SUNDAY" (a title); but "BEST TUESDAY EVER" -> "BEST DAY EVER"
    names = [i for i in tokens if i < root.i and doc[i].pos_ in ("NOUN", "PROPN") and not marked[i]
             and doc[i].dep_ != "amod" and not doc[i].tag_.startswith("JJ") and doc[i].lower_ not in ADJECTIVE_NOUNS]
    if names:
        # "Date night with my love" -> "Date with my love", "KARAOKE NIGHT" -> "KARAOKE": the nouns in front
        # name the event; the time word goes, the name stays.
        return ({root.i} | {i for i in tokens if marked[i] and i > names[-1]}, {}) if prune else None
    if not describing and not possessive:
        if tokens == [root.i] and head.pos_ == "ADJ" and head.i == root.i - 1 and not marked[head.i]:
            return set(), {root.i: _neutral_noun(root)}  # "Perfect day for training" -> "Perfect time for training"
        others = [doc[i].lower_ for i in tokens if i != root.i]
        if not plural and others in (["a"], ["an"]) and tokens[0] < root.i \
                and any(c.dep_ == "prep" and c.lower_ == "with" for c in root.children):
            # "A night with Morgan and Nicole was much needed" -> "Time with Morgan and Nicole was much needed"
            return {tokens[0]}, {root.i: "Time" if doc[tokens[0]].text[:1].isupper() else "time"}
        if plural and tokens == [root.i] and root.lower_ in PLURAL_DAY_NOUNS and _first_word(root) \
                and root.dep_ in ("nsubj", "nsubjpass", "ROOT", "npadvmod"):
            # "Weekends are made for football" -> "Some days are made for football", "Weekends all the buses slow
            # down" -> "Some days all the buses ...": a bare plural of days, as subject or as the adverbial opening
            # its sentence (readers: "Time all the buses slow", "It are made for").
            return set(), {root.i: "some days"}
        if plural and tokens == [root.i] and root.dep_ in ("nsubj", "ROOT", "dobj"):
            # "Days slipping" -> "Time slipping"; "if days are dark" -> "if times are dark" (the verb agrees).
            agrees_plural = root.dep_ == "nsubj" and (head.tag_ == "VBP" or head.lower_ in ("are", "were"))
            return set(), {root.i: "times" if agrees_plural else "time"}
        return None
    # "a good sunday" -> "a good day", "your Saturday" -> "your day", "the good old days" -> "the good old times":
    # the words that say nothing of when stay; the time-carrying ones (numbers, "next", "last") go.
    cut = {i for i in tokens if i != root.i and marked[i] and doc[i] not in describing
           and not (doc[i].dep_ in ("det", "poss") and doc[i].lower_ in KEPT_DETERMINERS | POSSESSIVES)}
    replace = {root.i: _neutral_noun(root)}
    kept = [i for i in tokens if i not in cut]
    if kept and doc[kept[0]].lower_ in ("a", "an") and replace[root.i].endswith("s"):
        replace[root.i] = replace[root.i][:-1]  # "Had a great 2.5 years with you" -> "Had a great time with you"
    if kept and doc[kept[0]].lower_ in ("a", "an") and len(kept) > 1:
        following = replace.get(kept[1], doc[kept[1]].text)
        if _article_for(following) != doc[kept[0]].lower_:
            replace[kept[0]] = _article_for(following)
    return cut, replace


# Round 6: where one neutral phrase used to stand ("a certain day", "some time"), readers found it unnatural nine
# times in ten on US posts. The rewrites below say the same nothing in the words people use for it.
SUBJECT_DEPS = frozenset({"nsubj", "nsubjpass"})
PLACEHOLDER_SUBJECTS = frozenset("it its it's this that there".split())
# Verbs whose object is a stretch of time that "some time" / "time" stands for ("it took me some time", "spend
# time with").
TIME_TAKING_VERBS = frozenset("last lasts lasted take takes took taking taken spend spends spent spending need needs "
                              "needed have has "
                              "had having waste wasted wasting kill killed burn burned burnt enjoy enjoyed enjoying "
                              "give gave get got make made share shared".split())
# Prepositions and words after which a stretch of time reads "a while" ("for a while", "been a while").
WHILE_HEADS = frozenset("for in after over like than about around been be is was 's ’s going".split())
# Words in front of a duration that only hedge it ("almost 7months", "like 2 months"): they go with it.
DURATION_HEDGES = frozenset("almost nearly about around like roughly approximately only just over under "
                            "abt approx slightly more less than".split())
COUNTDOWN_WORDS = frozenset("to till until til before left".split())
FRAGMENT_PREPOSITIONS = frozenset("at in on inside outside near around".split())
COMPANY_PREPOSITIONS = frozenset("with for".split())
LENGTH_WORDS = frozenset("entire whole full long short extra".split())
# Verbs whose object "it" stands for well ("I hate summer bc ..." -> "I hate it bc ...").
FEELING_VERBS = frozenset("love loves loved hate hates hated like likes liked miss misses missed enjoy enjoyed "
                          "enjoying loving hating missing".split())
MOTION_VERBS = frozenset("travel travels traveled travelled drive drives drove driven walk walks walked run ran runs "
                         "fly flew flies commute commutes commuted".split())
ORDINAL_WORD = re.compile(r"(?i)^\d+(?:st|nd|rd|th)$")
YEAR_NUMBER = re.compile(r"^(?:19|20)\d\d$")


def is_duration(root: Any, tokens: list[int]) -> bool:
    """Whether the noun phrase of ``root`` is a stretch of time ("83 days", "a few hours", "7months") rather than a
    point ("Friday", "the day")."""
    doc = root.doc
    if _neutral_phrase(root) == "some time":
        return True
    lower = root.lower_
    quantified = any(doc[i].like_num or doc[i].lower_ in ("few", "couple", "several", "more", "many")
                     for i in tokens if i != root.i)
    if lower in PERIOD_WORDS | DURATION_UNITS | UNIT_WORDS | {"day", "days"} and root.head.lower_ == "been":
        return True  # "its been month since", "It's been a year": how long, not when
    return lower in DURATION_UNITS and quantified


# A stretch of time counted in these units says how long, not when ("a 12 hour ride", "1 year in college"); with
# "every" or "after" it says how often ("every day", "week after week", "every 7 weeks").
STRETCH_UNITS = frozenset("second seconds sec secs minute minutes min mins hour hours hr hrs day days week weeks "
                          "wk wks month months year years yr yrs decade decades".split())
# Parts of the day that "every" makes a habit ("talking every night"); alone ("a great night") they are when.
EVERY_UNITS = frozenset("night nights morning mornings evening evenings afternoon afternoons weekend weekends "
                        "summer winter autumn spring fall".split())  # round 17: "every summer" is a habit
COUNT_WORDS = frozenset("a an one few couple several many of + half every each single other after by and & whole "
                        "full entire straight solid another about around almost nearly".split())
FREQUENCY_WORDS = frozenset("daily weekly monthly yearly hourly annually everyday".split())
# What ties a stretch to now or to a date: "3 days ago", "2 days left", "3 years since", "a year anniversary";
# "in 2 weeks", "within a day" (the stretch's preposition).
ANCHORS_AFTER = frozenset("ago later before after from left away until till til to since old anniversary "
                          "anniversaries anniv bday birthday more mark milestone out".split())
ANCHORING_PREPOSITIONS = frozenset("in within since until till til by".split())


def says_how_long_or_often(doc: Any, tokens: list[int]) -> bool:
    """Whether the time expression of ``tokens`` (its run and the marked words that hang on it, "a" of "a great 2.5
    years") only says how long or how often ("for 12 hours", "a week went by", "every day", "daily", "FT days"): a
    count and a unit, or a frequency, with nothing that ties it to now or to a date ("this", "last", "first", "ago",
    "in 2 weeks", "3 days left", "every Sunday", "all day", "wee hours"). Such an expression tells a reader nothing of
    when the post was written or where the writer is when; readers of the held-out samples called posts with only
    these timeless, and cutting them broke sentences ("I only spent in college")."""
    words = [doc[i] for i in sorted(tokens)]
    if len(words) == 2 and words[0].lower_ in ("every", "each") and words[1].lower_ in EVERY_UNITS:
        return True  # "went from talking every night to not talking at all"
    units = [t for t in words if t.lower_ in STRETCH_UNITS or GLUED_DURATION.match(t.text)]
    frequency = [t for t in words if t.lower_ in FREQUENCY_WORDS or t.lower_ in ("every", "each")
                 or (t.lower_ in ("after", "by") and 0 < t.i - words[0].i < len(words) - 1)]
    if not units and not frequency:
        return False
    counted = any(_counts(t) or GLUED_DURATION.match(t.text) or t.lower_ in QUANTITY_WORDS for t in words) or any(
        c.lower_ in QUANTITY_WORDS or _counts(c) for t in units for c in t.children)  # "how many seconds"
    if any(t.lower_ not in STRETCH_UNITS and t.lower_ not in COUNT_WORDS and t.lower_ not in FREQUENCY_WORDS
           and not _counts(t) and not GLUED_DURATION.match(t.text) and not (counted and t.lower_ == "the")
           for t in words):
        return False  # "this week", "every Sunday", "all day", "first day", "the 29th"
    if units and not frequency and not counted and not all(
            t.lower_.endswith("s") and not any(c.dep_ in ("amod", "det", "poss", "compound") for c in t.children)
            for t in units):
        return False  # "day", "week" alone: which day or week; "wee hours", "the days": a time of day, a period
    after_run = doc[words[-1].i + 1] if words[-1].i + 1 < len(doc) else None
    if any(c.dep_ == "poss" for t in units for c in t.children) and not (
            after_run is not None and after_run.pos_ in ("NOUN", "PROPN") and after_run.lower_ not in ANCHORS_AFTER):
        return False  # "on our 3 yr": an anniversary; not "his 6 month doctors appointment"
    if any(t.dep_ == "ROOT" and not any(c.pos_ in ("VERB", "AUX") or c.dep_ in ("amod", "prep", "relcl")
                                        for c in t.children) for t in units):
        return False  # "1 week ✈️", "3 hours! Here we go", "11 years!!!": a countdown or an anniversary; not
        # "THE BEST 3 YEARS OF MY LIFE"
    first = words[0].i
    if _tied_by_the_next_word(doc, tokens):
        return False
    if any(t.head.pos_ == "ADP" and t.head.lower_ in ANCHORING_PREPOSITIONS and t.head.i not in tokens
           for t in words) or (first and doc[first - 1].lower_ in ANCHORING_PREPOSITIONS):
        return False  # "in 2 weeks", "within a day"
    if first and doc[first - 1].lower_ in ("what", "such"):
        return False  # "What a week in NYC": the week just lived
    return True


def _tied_by_the_next_word(doc: Any, tokens: list[int]) -> bool:
    """Whether the word after a stretch ties it to now or to a date: "3 days ago", "3 days to Christmas", "10 days to
    go", "2 weeks from Friday", "2 days before that"; not "drove three hours to Milford" ("to" hangs on the verb),
    "2 hours from Amarillo" (how far), "a couple days after hard boozing" (after an event)."""
    last = max(tokens)
    following = doc[last + 1] if last + 1 < len(doc) else None
    beyond = doc[last + 2] if last + 2 < len(doc) else None
    if following is None or following.lower_ not in ANCHORS_AFTER:
        return False
    beyond_is_time = beyond is not None and kind_of(beyond) is not None
    if following.lower_ in ("after", "before"):
        return beyond is None or beyond_is_time or beyond.lower_ in ("that", "this", "then", "now")
    if following.lower_ == "to":
        return following.head.i in tokens or (beyond is not None and beyond.lower_ == "go")
    if following.lower_ == "from":
        return beyond is None or beyond.pos_ != "PROPN" or beyond_is_time
    if following.lower_ == "away" and following.head.pos_ == "VERB" and following.head.lower_ not in BE_FORMS:
        return False  # "living 30 minutes away": how far; "Christmas is 30 days away" counts down
    return True


QUANTITY_WORDS = frozenset("a an one few couple several many half".split())
ORDINAL_WORDS = frozenset("first second third fourth fifth sixth seventh eighth ninth tenth last".split())


def _counts(token: Any) -> bool:
    """A number that counts ("12", "two", "2.5"), not one that orders ("first", "2nd")."""
    return token.like_num and token.lower_ not in ORDINAL_WORDS and ORDINAL_WORD.match(token.text) is None


# Verbs whose object a complement is about ("Spent today belting", "made monday so much better").
OBJECT_COMPLEMENT_VERBS = frozenset("spend spent spends spending make made makes making".split())


def is_what_a_complement_is_about(root: Any, run: set[int]) -> bool:
    """Whether a lone day word ("today", "Monday") is what a verb's complement is about: the object of "spent" or
    "made" before the complement ("Spent today belting my face off", "it made monday so much better"; the parser
    calls it an adverbial) or the subject of a gerund ("about Monday being over"). Cutting it leaves the verb
    without its object; "the day" takes its place."""
    if len(run) != 1 or not (root.lower_ in WEEKDAY_FORMS or root.lower_ in ("today", "tomorrow", "yesterday")):
        return False
    head = root.head
    if root.dep_ in ("dobj", "npadvmod") and head.lower_ in OBJECT_COMPLEMENT_VERBS and head.i + 1 == root.i:
        deps = ("xcomp", "ccomp", "oprd", "acomp", "advmod") + (("prep",) if head.lower_.startswith("spen") else ())
        return any(c.i > root.i and c.dep_ in deps for c in head.children)  # "spent today at the beach" too
    following = root.doc[root.i + 1] if root.i + 1 < len(root.doc) else None
    if root.dep_ == "pobj" and following is not None and following.lower_ == "being":
        return True  # "about Monday being over", parsed with "Monday" as the preposition's object
    return root.dep_ in ("nsubj", "nsubjpass") and head.tag_ == "VBG" and head.dep_ in ("pcomp", "pobj")


def _finite_without_subject(verb: Any, ignore: int = -1) -> bool:
    """A finite verb with no subject of its own ("July 22 needs to hurry up": the parser took the date for an
    adverbial; it is the subject)."""
    finite = verb.tag_ in ("VBZ", "VBD", "VBP", "MD") or any(
        c.dep_ in ("aux", "auxpass") and c.tag_ in ("MD", "VBZ", "VBD", "VBP")
        for c in verb.children)  # "Today will be a good day", "This past week was much needed"
    return verb.pos_ in ("VERB", "AUX") and finite and not any(
        c.dep_ in ("nsubj", "nsubjpass", "expl", "csubj") and any(ch.isalnum() for ch in c.text)
        and not (c.i == ignore and c.lower_ in THINKING_VERBS)  # "Hope today was great": "Hope" is the verb
        for c in verb.children)  # an emoji the parser took for a subject ("😭😭 today is ...") is none


def stands_as_subject(root: Any, tokens: list[int]) -> bool:
    """Whether the time phrase is its verb's subject: so labelled, or an adverbial right before a finite verb that
    has no subject ("Hope today was great")."""
    head = root.head
    doc = root.doc
    if head.i < root.i and head.lower_ in THINKING_VERBS and root.dep_ == "npadvmod":
        # "can only hope tomorrow never comes": the parser hung the subject on "hope"
        clause = [c for c in head.children if c.dep_ == "ccomp" and c.i > max(tokens)]
        return bool(clause) and _finite_without_subject(clause[0]) and all(
            doc[i].head.i == clause[0].i and doc[i].dep_ in ("aux", "neg", "advmod")
            for i in range(max(tokens) + 1, clause[0].i))
    if head.i <= root.i or head.pos_ not in ("VERB", "AUX"):
        return False
    if root.dep_ in SUBJECT_DEPS:
        # A clause: a finite verb or one with its auxiliary ("hours locked up" is no clause).
        if head.tag_ not in ("VBZ", "VBD", "VBP", "MD") and head.dep_ != "ROOT" \
                and not any(c.dep_ in ("aux", "auxpass") for c in head.children):
            return False
    elif root.dep_ != "npadvmod" or not _finite_without_subject(head, ignore=min(tokens) - 1):
        return False
    before = doc[min(tokens) - 1] if min(tokens) else None
    if before is not None and any(c.isalnum() for c in before.text) and before.pos_ not in ("CCONJ", "SCONJ") \
            and not (before.i == head.head.i and head.dep_ in ("ccomp", "xcomp")) and not is_link(before) \
            and before.lower_ not in THINKING_VERBS and before.tag_ not in ("WP", "WDT", "WRB"):
        return False  # "having nothing to do all summer is the worst": the subject is what comes before
    between = range(max(tokens) + 1, head.i)
    if any(doc[i].lower_ in ("here", "there") for i in between):
        return False  # "so today here is E1": the subject follows "here is"
    return all((doc[i].head.i == head.i and doc[i].dep_ in ("aux", "auxpass", "neg", "advmod"))
               or doc[i].dep_ == "case" or EMOJI_ONLY.match(doc[i].text)
               for i in between)  # "Saturday's are for the girls", "Summer ☀️ IS Here"



def _how_long_with_spill(doc: Any, group: list[int]) -> bool:
    """Whether a run is a stretch of time followed by words the entity recognizer took in with it, in a Title Case
    post ("Runs For 100 Years Without Refuelling": "100 Years" says how long; "Without Refuelling" is no time). The
    words after the last unit must start with a preposition that ties nothing to a date and hold no time word."""
    units = [i for i in group if doc[i].lower_ in STRETCH_UNITS]
    if not units or units[-1] == group[-1]:
        return False
    rest = [doc[i] for i in group if i > units[-1]]
    if rest[0].pos_ != "ADP" or rest[0].lower_ in ANCHORS_AFTER | ANCHORING_PREPOSITIONS | {"of", "in", "on", "at"} \
            or any(kind_of(t) is not None or any(c.isdigit() for c in t.text) for t in rest):
        return False
    return says_how_long_or_often(doc, [i for i in group if i <= units[-1]])

# Verbs a clause with a time subject follows ("hope today is your best birthday yet").
THINKING_VERBS = frozenset("hope hoping think thinking guess bet wish pray praying know knew feel".split())


def _verb_agrees_plural(root: Any) -> bool:
    head = root.head
    return head.tag_ == "VBP" or head.lower_ in ("are", "were", "have") or any(
        c.dep_ in ("aux", "auxpass") and (c.tag_ == "VBP" or c.lower_ in ("are", "were", "have"))
        for c in head.children)  # "Weekends are made for": the passive's auxiliary agrees too


def _next_word(doc: Any, i: int) -> Any:
    return doc[i + 1] if i + 1 < len(doc) else None


# Words a measure of time cannot leave ("TWO HOURS AWAY", "8 minutes shy of"): the measure is their argument.
MEASURED_WORDS = frozenset("away shy short out".split())


def _named_by_its_clause(root: Any) -> bool:
    """A fragment opening a sentence that names a time by a clause after it: "Best night I've had in a long time"
    (parsed with a relative clause, or with the time as an adverbial of "had" before its subject)."""
    if not _first_word(root.doc[min(t.i for t in root.subtree)]):
        return False
    if root.dep_ == "ROOT":
        return any(c.dep_ == "relcl" and c.i > root.i for c in root.children)
    head = root.head
    return root.dep_ == "npadvmod" and head.i > root.i + 1 and head.pos_ == "VERB" \
        and any(c.dep_ == "amod" and (c.tag_ == "JJS" or c.lower_ in ("best", "worst", "favorite", "favourite"))
                for c in root.children) \
        and any(c.dep_ == "nsubj" and root.i < c.i < head.i and c.pos_ == "PRON" for c in head.children)


def _needs_its_words(root: Any, marked: list[bool]) -> bool:
    """Whether a time phrase the parser hung on as an adjunct is one its sentence cannot lose: the subject of a
    finite verb without one ("July 22 needs to hurry up"), the measure of "away" or "shy", the subject of an
    infinitive ("ready for today to be over"), a time noun with its own clause ("the same year I started
    college"), a time with "off" ("all week off")."""
    doc = root.doc
    if not _is_nominal(root) or kind_of(root) is None:
        return False
    subtree = sorted(t.i for t in root.subtree)
    following = doc[subtree[-1] + 1] if subtree[-1] + 1 < len(doc) else None
    if root.dep_ == "npadvmod" and (stands_as_subject(root, subtree) or _named_by_its_clause(root)):
        return True
    if root.dep_ == "npadvmod" and root.head.lower_ in MEASURED_WORDS and root.head.i > root.i:
        return True
    if _time_off(root):
        return True
    if root.dep_ == "pobj" and root.head.lower_ == "for" and following is not None and following.lower_ == "to" \
            and following.pos_ == "PART":
        return True
    durational = is_duration(root, [t.i for t in root.subtree])
    if durational and any(c.dep_ == "prep" and c.lower_ == "without" for c in root.children):
        return True  # "First cup of coffee after a week without caffeine" -> "after a while without caffeine"
    if durational and root.head.lower_ in ("give", "gave", "giving", "given") and root.dep_ in ("npadvmod", "dobj"):
        return True  # "Gave new TNA 10 weeks but" -> "Gave new TNA some time but"
    verb = root.head.head
    if root.dep_ == "pobj" and root.head.lower_ == "in" and durational \
            and any(c.dep_ == "neg" or (c.dep_ == "aux" and c.lower_ in ("have", "has", "had", "'ve"))
                    for c in verb.children):
        return True  # "Haven't seen Charli in two weeks" -> "in a while", not "Haven't seen Charli"
    return bool(_own_clause(root, marked))


def _time_off(root: Any) -> bool:
    """"the day off", "all week off", "two days off": time away from work ("this year off" is no such thing)."""
    doc = root.doc
    nxt = doc[root.i + 1] if root.i + 1 < len(doc) else None
    return nxt is not None and nxt.lower_ == "off" and nxt.pos_ in ("ADP", "ADV", "PART") and root.dep_ != "pobj" \
        and root.lower_ in ("day", "days", "week", "weeks", "weekend", "night", "nights", "morning", "afternoon") \
        and not any(c.lower_ in ("this", "that", "next", "last") for c in root.children)


def _own_clause(root: Any, marked: list[bool]) -> list[Any]:
    """The clause a time noun has of its own ("the year Toby turned around", "the same year I started college",
    which the parser may hang elsewhere): its verbs, or an empty list."""
    doc = root.doc
    if root.dep_ == "pobj" and root.head.lower_ in ("on", "by", "since", "until", "till"):
        return []  # "for a concert on the day I return": pruned ("in the 12 years I played" -> "in the time I played")
    clauses = [c for c in root.children if c.dep_ in ("relcl", "acl") and not marked[c.i] and c.i > root.i
               and (root.dep_ == "attr" or not any(t.tag_ in ("WRB",) for t in c.subtree if t.i < c.i))]
    # "when ..." reads without it, but not after a copula ("going to be the summer where I finally cut my hair")
    if clauses:
        return clauses
    nxt = doc[root.i + 1] if root.i + 1 < len(doc) else None
    if root.dep_ == "npadvmod" and nxt is not None and nxt.pos_ == "PRON" and nxt.dep_ == "nsubj" \
            and nxt.head.i > nxt.i and (nxt.head.i != root.head.i or _first_word(root.left_edge)) \
            and any(c.dep_ == "det" and c.lower_ in ("the", "that") for c in root.children):
        return [nxt.head]
    return []


def _fitting_rewrite(root: Any, tokens: list[int], marked: list[bool], *,
                     prune: bool = True) -> tuple[set[int], dict[int, str]] | None:
    """The words a person would put where a time argument stood, by its role (None: no rewrite fits):
    - time off ("all week off" -> "time off"); a time noun with its own clause ("the same year I started college"
      -> "the same time I started college"); the subject of an infinitive ("ready for today to be over" -> "for it");
    - a countdown opening its sentence ("83 days to my birthday", "6 more days till I'm back") -> "counting down",
      elsewhere "not long"; the last stretch before something ("Last day to submit") -> "last chance";
    - the complement of a copula after a subject that is no placeholder ("SDD is today!!" -> "is on", "Deadline is
      July 2nd!" -> "is coming up"); a bare deictic word elsewhere ("today") is cut;
    - a subject ("July 22 needs to hurry up", "Hope today was great", "those 36 minutes made my day") -> "it"
      ("they" for a plural verb, "that"/"this" for a demonstrative); a wish ("Friday come quick") loses it;
    - a stretch of time: after "for", "in", "been", "like" -> "a while" (with its hedge: "been like 2 months" ->
      "been a while"); with a judging adjective "a good time"; a measure of an adjective or adverb ("8 minutes shy
      of", "TWO HOURS AWAY") -> "a bit" / "a while"; the object of "take", "spend", "need" -> "some time"; of
      "travel", "drive" -> "far"; before "since" its number goes ("20 years since" -> "years since");
    - the complement of "it is" ("Is it 4:30 yet??") -> "time" ("another day" after "was");
    - the object of "spend", "have", "need" ("Spending the day with", "had the entire day to look") -> "time";
      another object followed by no noun ("predicted the future", "salvage the day") -> "it";
    - a fragment naming a time with a place ("A day at Pula Ubin", "Last nite at the show!") -> the place alone;
      with company or a purpose ("A quality day with your family", "fun weekend with the besties", "Another
      Wednesday night for some Sporcle Live") -> "time" with the describing words.
    """
    doc = root.doc
    last = doc[max(tokens)]
    if prune and last.lower_ in ("am", "pm") and last.dep_ == "ROOT" and max(tokens) + 1 < len(doc) \
            and doc[max(tokens) + 1].pos_ == "NOUN" and doc[max(tokens) + 1].head.i == last.i:
        return set(tokens), {}  # "2:14 am thoughts": the parser took "am" for the verb; the clock describes "thoughts"
    part_of_a_time = root.lower_ in PART_OF_HEADS and root.dep_ in SUBJECT_DEPS and any(
        c.lower_ == "of" and any(kind_of(o) is not None and marked[o.i] for o in c.children) for c in root.children)
    clock_after_be = kind_of(root) == "clock" and root.head.lower_ in BE_FORMS and any(
        t.lower_ == "yet" for t in root.sent if t.i > max(tokens))  # "Is it 4:30 yet??" -> "Is it time yet??"
    if not _is_nominal(root) or (root.pos_ == "NUM" and not is_duration(root, tokens) and not clock_after_be) \
            or (all(kind_of(doc[i]) is None for i in tokens) and not part_of_a_time):
        # not a time word ("Crew" of "Last Minute Street Crew"): nothing of these fits; "the rest of the week" is one
        return None
    if part_of_a_time:
        tokens = sorted(set(tokens) | {t.i for t in root.subtree if t.i > root.i and marked[t.i]})
    head = root.head
    start, end = min(tokens), max(tokens)
    following = _next_word(doc, end)
    words = [doc[i] for i in tokens]
    plural = root.tag_ in ("NNS", "NNPS") or root.lower_ in PLURAL_TIME_NOUNS
    duration = is_duration(root, tokens)
    every = set(tokens)

    def phrase(text: str, cut_also: set[int] = frozenset()) -> tuple[set[int], dict[int, str]]:
        return (every | set(cut_also)) - {start}, {start: text}

    if _time_off(root):
        return phrase("time")  # "I get all week off" -> "I get time off", "Day off in Amsterdam" -> "Time off in ..."
    if _own_clause(root, marked) and (not duration or any(w.lower_ == "the" for w in words)):
        # "the same year I started college" -> "the same time I started college"
        kept = {w.i for w in words if w.i < root.i and not w.like_num and w.dep_ in ("det", "amod", "poss")
                and kind_of(w) is None and not ORDINAL_WORD.match(w.text)}
        return every - kept - {root.i}, {root.i: "times" if plural and not duration else "time"}
    if root.dep_ == "pobj" and head.lower_ == "for" and following is not None and following.lower_ == "to":
        return phrase("it")  # "I was ready for today to be over" -> "ready for it to be over"
    # The last stretch before something, and countdowns.
    after = [c for c in root.children if c.i > end]
    infinitive = [c for c in after if c.dep_ in ("acl", "relcl", "xcomp", "advcl")
                  and any(a.lower_ == "to" and a.dep_ == "aux" for a in c.children)]
    if root.dep_ == "dobj" and head.lower_ in ("take", "takes", "took", "taking", "taken") and plural:
        return phrase("some time")  # "take these last few days to do for the folks" -> "take some time to do ..."
    if any(w.lower_ == "last" for w in words) and (infinitive or (following is not None and following.lower_ == "to")):
        return phrase("last chance")
    to_go = following is not None and following.lower_ == "to" and _next_word(doc, following.i) is not None \
        and _next_word(doc, following.i).lower_ == "go"  # "23 Hours to go!"
    countdown = following is not None and following.lower_ in COUNTDOWN_WORDS and (following.pos_ != "PART" or to_go) \
        and not any(w.lower_ in ("a", "an") for w in words) and (  # "it was a nice 10 hours till it lasted": none
        any(w.lower_ in ("more", "few", "couple") or w.like_num for w in words if w.i != root.i) or duration)
    if countdown and (duration or root.lower_ in ("day", "days", "hour", "hours", "week", "weeks", "sleeps")):
        # "83 days to my birthday!!" -> "Counting down to my birthday!!": says an event is coming, not when
        opening = _first_word(doc[start]) and following.lower_ in ("to", "till", "until", "til") and not to_go
        return phrase("counting down" if opening else "not long")
    if any(w.lower_ == "more" for w in words) and duration and root.dep_ == "ROOT" \
            and (following is None or not following.is_alpha):
        return phrase("not long now")  # "5 more days!"
    before = doc[start - 1] if start else None
    subjects = [c for c in head.children if c.dep_ == "nsubj" and c.i < head.i and any(ch.isalpha() for ch in c.text)]
    content_subject = bool(subjects) and all(c.lower_ not in PLACEHOLDER_SUBJECTS and not kind_of(c)
                                             and any(ch.isalpha() for ch in c.text) for c in subjects) \
        and not any(c.dep_ in ("nsubj", "expl") and c.lower_ in PLACEHOLDER_SUBJECTS for c in head.children)
    ends_clause = following is None or not following.is_alpha or following.dep_ == "cc"
    if head.lower_ in ("is", "'s", "’s", "are") and root.dep_ in ("attr", "npadvmod", "advmod") \
            and head.i < root.i and content_subject and not duration and ends_clause:
        # "SDD Vol. 4 is today!!" -> "SDD Vol. 4 is on!!"; "Deadline is July 2nd!" -> "Deadline is coming up!"; not
        # "how the heck is June almost over": there the time is the subject after its verb
        return phrase("on" if root.lower_ in ("today", "tonight", "now") else "coming up")
    if head.lower_ in ("is", "'s", "’s", "was") and head.i < root.i and root.dep_ in ("attr", "npadvmod", "nsubj") \
            and not ends_clause and following.pos_ in ("ADV", "ADJ") and len(tokens) == 1 and not duration \
            and not any(c.lower_ in PLACEHOLDER_SUBJECTS for c in head.children):  # not "Is it 4:30 yet"
        return phrase("it")  # "how the heck is June almost over already" -> "how the heck is it almost over ..."
    if root.lower_ in DEICTIC_WORDS and len(tokens) == 1 and prune and not stands_as_subject(root, tokens) \
            and root.dep_ not in SUBJECT_DEPS and not (root.dep_ in ("attr", "acomp") and head.lower_ in BE_FORMS):
        return every, {}  # a bare "today" is an adverbial wherever the parser hung it: it goes
    if duration and following is not None and following.lower_ == "since" and plural \
            and any(w.like_num for w in words):
        return {w.i for w in words if w.i != root.i}, {}  # "20 years since @user published" -> "years since ..."
    if duration and head.lower_ in MOTION_VERBS and root.dep_ in ("dobj", "npadvmod"):
        return phrase("far")  # "When he travels an hour to see you" -> "When he travels far to see you"
    if before is not None and before.lower_ in ("its", "it's", "it’s") and not duration:
        return phrase("time")  # "its 11am for me" -> "its time for me"
    place = [c for c in root.children if c.dep_ == "prep" and c.i == end + 1 and c.lower_ in ("at", "in")
             and any(o.dep_ == "pobj" and kind_of(o) is None and o.pos_ in ("NOUN", "PROPN") for o in c.children)]
    if root.dep_ in SUBJECT_DEPS and place and head.i > end and prune:
        return every | {place[0].i}, {}  # "Tomorrow at rotation is gonna blow" -> "Rotation is gonna blow"
    if root.dep_ in SUBJECT_DEPS and head.pos_ == "ADJ" and head.i > end and head.dep_ in ("ccomp", "xcomp"):
        return phrase("it")  # "Make today great" -> "Make it great"
    if stands_as_subject(root, tokens) and prune and head.tag_ == "VBP" and head.lower_ in ("come", "hurry") \
            and not plural and (root.lower_ in WEEKDAY_FORMS or root.lower_ in DEICTIC_WORDS):
        return every, {}  # "Friday come quick-seeing my favorite again!" -> "Come quick-seeing ...": a wish
    if stands_as_subject(root, tokens) and prune and root.dep_ == "npadvmod" and _first_word(doc[start]) \
            and head.pos_ == "VERB" and (head.tag_ in ("VB", "VBP") or head.lower_ in PERSON_VERBS) \
            and head.lower_ not in BE_FORMS | {"have", "has", "had"}:
        # "Tomorrow get fresh with my boy" -> "Get fresh with my boy", "Last night dreamt that ..." -> "Dreamt that
        # ...": the writer is the verb's subject, left out as in a diary (readers: "They get fresh", "It dreamt")
        return every, {}
    if stands_as_subject(root, tokens):
        if _verb_agrees_plural(root):
            return phrase("they")
        demonstrative = [w.lower_ for w in words if w.dep_ == "det" and w.lower_ in ("this", "that", "those")]
        if demonstrative:
            # "When that day comes" -> "When that time comes"; "those 36 minutes just made my day" -> "that just
            # made my day"
            return phrase("that time" if head.i > end + 1 and demonstrative[0] == "that" else
                          "this" if demonstrative[0] == "this" else "that")
        return phrase("it")
    judging = [w for w in words if w.dep_ == "amod" and w.pos_ == "ADJ" and not w.like_num and kind_of(w) is None
               and w.lower_ not in MODIFIER_WORDS | LENGTH_WORDS]
    if duration and judging and any(w.lower_ in ("a", "an") for w in words):
        # "That wasn't a good hour." -> "That wasn't a good time." (the adjective judges the time; "a while" would not)
        return (every - {judging[0].i, root.i} - {w.i for w in words if w.lower_ in ("a", "an")}), {root.i: "time"}
    if duration:
        hedges = {c.i for c in root.children if c.lower_ in DURATION_HEDGES and c.i < start}
        i = start - 1
        while i >= 0 and doc[i].lower_ in DURATION_HEDGES and i >= start - 3:
            hedges.add(i)  # "for slightly more than an hour" -> "for a while"
            i -= 1
        if head.lower_ in DURATION_HEDGES and head.i < start and head.head.pos_ == "ADP":
            hedges.add(head.i)  # "in like 6-8 years": the parser hung the years on "like"
            head = head.head
        if prune and head.pos_ == "ADP" and head.i == start - 1 and any(w.lower_ in ("past", "last", "next")
                                                                          for w in words):
            return every | {head.i}, {}  # "cut my finger TWICE in the past 2 hours then" -> "TWICE then": tied to now
        if head.lower_ in WHILE_HEADS or (root.dep_ in ("attr", "npadvmod") and head.lower_ in BE_FORMS):
            return phrase("a while", hedges)
        if root.dep_ == "npadvmod" and head.pos_ in ("ADJ", "ADV", "ADP") and head.i > end:
            # "TWO HOURS AWAY" -> "A WHILE AWAY", "8 minutes shy of the record" -> "a bit shy of the record"
            return phrase("a while" if head.lower_ in ("away", "later", "earlier", "before", "after", "back", "out")
                          else "a bit", hedges)
        if root.dep_ in ("dobj", "npadvmod") and head.lower_ in TIME_TAKING_VERBS:
            return phrase("a while" if head.lower_.startswith("last") else "some time", hedges)
        return None
    if root.dep_ in ("attr", "acomp", "npadvmod") and head.lower_ in BE_FORMS and not any(
            w.dep_ in ("det", "poss", "amod") and not marked[w.i] for w in words) and any(
            c.dep_ in ("nsubj", "expl") and c.lower_ in PLACEHOLDER_SUBJECTS for c in head.children):
        joined = [c for c in head.head.children if c.dep_ == "cc" and c.lower_ in ("and", "but", "&")
                  and c.i < head.i] if head.dep_ == "conj" else []
        clause = [t for t in head.subtree if not (t.is_punct and t.i > end)]
        if prune and joined and all(t.i in every or t.lower_ in PLACEHOLDER_WORDS or t.lower_ in CLAUSE_ADVERBS
                                    for t in clause):
            # "a terrible horrible week and it's only Tuesday." -> "a terrible horrible week.": the clause only
            # said when ("and it's time" is what a reader found)
            return every | {t.i for t in clause} | {joined[-1].i}, {}
        if head.lower_ in ("was", "were") and (root.lower_ in WEEKDAY_FORMS or root.lower_ in DAY_WORDS):
            return phrase("another day")  # "I thought it was Sunday until just now" -> "... it was another day ..."
        return phrase("time")  # "Is it 4:30 yet??" -> "Is it time yet??"
    if root.dep_ == "dobj" and prune and head.lower_ in OCCASION_VERBS and any(
            c.dep_ == "prep" and c.i > end for c in head.children):
        return every, {}  # "Starting the day with our last Board mtg" -> "Starting with ...", "celebrate the 4th
        # of July with all of the zoo animals" -> "celebrate with ..."
    if root.dep_ == "dobj" and prune and any(w.lower_ in ("this", "last", "next", "past", "every") for w in words):
        return every, {}  # "the experience I had this past weekend": an adverbial the parser took for an object
    if root.dep_ == "dobj":
        if head.lower_ in TIME_TAKING_VERBS and root.lower_ not in ("future", "past"):
            length = {w.i for w in words if w.lower_ in LENGTH_WORDS}
            return phrase("time", length)  # "Spending the day with" -> "Spending time with"
        named = [c for c in root.children if c.dep_ == "prep" and c.lower_ == "of" and c.i == end + 1
                 and any(o.dep_ == "pobj" and o.text[:1].isupper() for o in c.children)]
        if named and root.text[:1].isupper() and any(w.lower_ == "the" for w in words) and (
                not _next_word(doc, max(t.i for t in named[0].subtree))
                or not _next_word(doc, max(t.i for t in named[0].subtree)).is_alpha
                or _next_word(doc, max(t.i for t in named[0].subtree)).dep_ in ("prep", "cc", "punct")):
            # "Ride the Year of the Horse with us" -> "Ride it with us", not "Ride a certain time of the Horse"
            return phrase("it", {t.i for t in named[0].subtree})
        determined = any(w.dep_ == "det" for w in words) or head.lower_ in FEELING_VERBS
        after_particle = start > 0 and doc[start - 1].dep_ == "prt"  # "to end off the week": not "end off it"
        if determined and not after_particle and (following is None or (following.pos_ not in ("NOUN", "PROPN", "ADJ",
                                                                                               "NUM")
                                                  and following.lower_ != "of")):
            return phrase("it")  # "predicted the future" -> "predicted it"
        return None
    if root.dep_ == "ROOT" and prune and not _first_word(doc[start]) \
            and any(w.lower_ in ("this", "next", "last", "that") for w in words):
        return every, {}  # "Back to CR this weekend for Kristi's birthday!": the parser made the time the root
    if _named_by_its_clause(root):
        # "Best night I've had in a long time" -> "Best time I've had in a long time": the fragment names a time by
        # what happened in it
        kept = {w.i for w in words if w.i < root.i and w.dep_ in ("amod", "det") and kind_of(w) is None
                and not w.like_num and w.lower_ not in ("this", "last", "next", "that")}
        return every - kept - {root.i}, {root.i: "time"}
    if root.dep_ == "ROOT" and prune and _first_word(doc[start]):
        preps = [c for c in root.children if c.dep_ == "prep" and c.i > end]
        describing = [w for w in words if w.dep_ in ("amod", "compound") and w.i < root.i and w.is_alpha
                      and w.pos_ in ("ADJ", "NOUN") and kind_of(w) is None
                      and w.lower_ not in MODIFIER_WORDS | LENGTH_WORDS]
        if preps and preps[0].lower_ in COMPANY_PREPOSITIONS:
            if describing:
                first = describing[0].i
                return (every - set(range(first, end + 1))) | {root.i}, {root.i: "times" if plural else "time"}
            return phrase("time")  # "Another Wednesday night for some Sporcle Live" -> "Time for ..."
        if preps and preps[0].lower_ in FRAGMENT_PREPOSITIONS and not describing:
            return every, {}  # "A day at Pula Ubin" -> "At Pula Ubin"
    return None


def _cut_instead_of_a_neutral_phrase(root: Any, run: set[int], marked: list[bool]) -> set[int] | None:
    """Where only "a certain time" was left to stand for a time (readers found it unnatural nine times in ten), a cut
    that leaves a sentence, when nothing else hangs on the time: the time with its preposition ("I'll be at Coe bout
    9:30" -> "I'll be at Coe"), an adverbial of a verb ("I leave July 8th from Houston" -> "I leave from Houston"), a
    fragment before "and" ("2:32 and all alone" -> "All alone"). None for a subject, an object or a complement."""
    doc = root.doc
    words = set(run) | {t.i for t in root.subtree if marked[t.i]}
    hanging = [t for t in root.subtree if t.i not in words and not t.is_punct and not EMOJI_ONLY.match(t.text)
               and not reattaches(t) and not is_link(t)]
    if hanging:
        return None
    head = root.head
    if root.dep_ in ("pobj", "pcomp") and head.pos_ == "ADP" and head.i < min(words) \
            and all(t.i in words or t.i == head.i or t.lower_ in CLOCK_HEDGES for t in head.subtree):
        return words | {t.i for t in head.subtree}
    # A clock or a date is no object: "I leave July 8th from Houston", "I'll be at Coe bout 9:30" (parsed as objects).
    point = all(doc[i].like_num or kind_of(doc[i]) in ("clock", "date") or doc[i].lower_ in MONTHS
                or ORDINAL_WORD.match(doc[i].text) or DATE_SHAPE.match(doc[i].text) for i in words)
    if (root.dep_ in ("npadvmod", "advmod", "tmod") or (root.dep_ == "dobj" and point)) \
            and head.pos_ in ("VERB", "AUX") and head.i != root.i:
        before = doc[min(words) - 1] if min(words) else None
        return words | ({before.i} if before is not None and before.lower_ in CLOCK_HEDGES else set())
    following = doc[max(words) + 1] if max(words) + 1 < len(doc) else None
    if root.dep_ == "ROOT" and min(words) == root.sent.start and following is not None and following.dep_ == "cc" \
            and any(t.is_alpha for t in doc[following.i + 1:root.sent.end]):
        return words | {following.i}  # "2:32 and all alone" -> "All alone"
    return None


# Judging adjectives that keep their time noun as "time" after "for" / "to" ("for a great weekend"); not those that say
# how long ("a long weekend") or that belong to the date ("new").
JUDGING_WORDS = EVALUATIVE_WORDS - LENGTH_WORDS - frozenset({"new", "long"})


def _judged_time(root: Any, phrase: list[int], marked: list[bool]) -> str | None:
    """The neutral noun for a time judged by an adjective after "for" or "to" ("Thanks for a great weekend with
    you" -> "for a great time with you", "Here's to a fun Friday" -> "to a fun day"), or None."""
    doc = root.doc
    head = root.head
    after_preposition = root.dep_ == "pobj" and head.lower_ in ("for", "to")
    # "Enjoy a lovely Sunday with family", "Wishing you a wonderful weekend": the object of the verb before it
    after_verb = root.dep_ in ("dobj", "npadvmod") and head.pos_ == "VERB" and head.i < phrase[0] and all(
        doc[i].pos_ == "PRON" for i in range(head.i + 1, phrase[0]))
    year = YEAR_NUMBER.match(root.text) is not None and after_preposition  # "Here's to a great 2015 with you"
    if not (after_preposition or after_verb) or not (root.is_alpha or year) or not (_is_nominal(root) or year) \
            or kind_of(root) not in ("day", "period", "part_of_day") or root.tag_ in ("NNS", "NNPS"):
        return None
    words = [doc[i] for i in phrase if i != root.i]
    if not words or words[0].lower_ not in ("a", "an") or not any(
            w.dep_ == "amod" and w.lower_ in JUDGING_WORDS for w in words) or not all(
            (w.dep_ == "det" and w.lower_ in ("a", "an"))
            or (w.dep_ in ("amod", "advmod") and w.is_alpha and kind_of(w) is None) for w in words):
        return None
    if any(marked[t.i] and t.i not in phrase for t in root.subtree):
        return None  # "for a great weekend in June": more time hangs on it
    if year:
        return "year"  # "Here's to a great year with you all!": which one is gone
    if after_verb:
        return _neutral_noun(root)  # as for the other objects: "Have a great weekend" -> "Have a great day"
    return "day" if root.lower_ in WEEKDAY_FORMS or root.lower_ in DEICTIC_WORDS else "time"


# Words that hold a slot for what follows them: with it cut, they are left governing nothing ("at .", "from to",
# "between and", "for the", "on the !", "IT'S !").
SLOT_DETERMINERS = frozenset("a an the this that these those every each my your his her our their".split())
PLACEHOLDER_CLAUSE_SUBJECTS = frozenset("it this that there".split())


def _ends_a_slot(token: Any | None) -> bool:
    """Whether ``token`` (the next word kept) cannot fill the slot of a word before it: the end of the post or of a
    sentence, a separator, a link, an emoji, another preposition or a conjunction."""
    if token is None or is_link(token) or EMOJI_ONLY.match(token.text) or token.dep_ == "cc":
        return True
    if token.pos_ == "ADP" and token.dep_ in ("prep", "dative", "agent"):
        return True
    return token.is_punct and token.text not in ("(", "[", '"', "'", "“", "‘", "#", "@")


def _emptied_slots(doc: Any, marked: list[bool], cut: set[int], replace: dict[int, str],
                   generalized: set[int]) -> None:
    """The last pass over a plan (issue 46): a word the cut left without its complement before a separator, another
    preposition, a conjunction or the end goes with its whole governing phrase, or the time noun it described is
    generalized instead of deleted. It changes ``cut`` / ``replace`` / ``generalized`` in place:
    - "between 2 and 5 pm" is one unit: a cut inside it takes all of it ("happening between and ." -> "happening.");
    - a preposition whose objects all went, a determiner whose noun went ("closed for the from to ." -> "closed.");
    - an adjective whose time noun went keeps a neutral noun ("for a great with" -> "for a great time with");
    - a copula whose complement went, with only "it"/"this" as subject ("Yay IT'S ! Party" -> "Yay! Party"); a
      sentence left with punctuation only loses it too.
    Only a word right before a cut is judged, so a post without a time is never touched."""
    def present(i: int) -> bool:
        return i in replace or i not in cut

    def gone(i: int) -> bool:
        return not present(i)

    def emptied(token: Any) -> bool:
        return token.i + 1 < len(doc) and gone(token.i + 1)

    for token in doc:  # "between 2 and 5 pm": one unit
        if token.lower_ != "between" or gone(token.i) or token.pos_ != "ADP":
            continue
        # Its words: its subtree, or (parsed as a quantity of the first number) the numbers, times and "and" after it.
        inside = {t.i for t in token.subtree if t.i != token.i}
        for t in token.subtree:  # a place hanging on the time stays ("between 2 and 5 pm at the park")
            if t.dep_ == "prep" and t.lower_ in DETACHABLE_PREPOSITIONS and not marked[t.i] and t.i > token.i + 1:
                inside -= {d.i for d in t.subtree}
        j = token.i + 1
        while j < len(doc) and (marked[j] or doc[j].like_num or doc[j].lower_ in ("and", "&", "-", "–", "to")):
            inside.add(j)
            j += 1
        last = max(inside, default=token.i)
        inside.discard(last) if doc[last].is_punct else None
        if inside and any(marked[i] and (gone(i) or i in generalized) for i in inside) and all(
                gone(i) or marked[i] or doc[i].like_num or doc[i].pos_ in ("ADP", "CCONJ", "DET")
                or doc[i].dep_ in ("cc", "prep") or kind_of(doc[i]) is not None for i in inside):
            unit = {token.i} | inside
            cut |= unit
            for i in unit:
                replace.pop(i, None)
            generalized -= unit
    changed = True
    while changed:
        changed = False
        kept = [t for t in doc if present(t.i)]
        for position, token in enumerate(kept):
            if token.i in replace:
                continue
            adverbs = []  # a copula's adverbs before its cut complement ("it's finally Friday")
            if token.lower_ in BE_FORMS and token.pos_ == "AUX":
                while position + len(adverbs) + 1 < len(kept) and (
                        nxt := kept[position + len(adverbs) + 1]).head.i == token.i \
                        and nxt.dep_ in ("advmod", "neg") and nxt.lower_ in COPULA_ADVERBS | {"not", "n't"}:
                    adverbs.append(nxt)
            if not emptied(adverbs[-1] if adverbs else token):
                continue
            following = kept[position + len(adverbs) + 1] if position + len(adverbs) + 1 < len(kept) else None
            if not _ends_a_slot(following):
                continue
            head = token.head
            objects = [c for c in token.children if c.dep_ in ("pobj", "pcomp")] or [
                c for c in token.children if c.dep_ == "prep" and c.i > token.i
                and token.lower_ in ("except", "excluding", "from", "until", "till", "since")]  # "except on Mondays"
            if token.pos_ in ("ADP", "SCONJ") and token.dep_ in PREPOSITION_HEAD_DEPS | {"ROOT"} and objects \
                    and all(gone(t.i) for o in objects for t in o.subtree):
                cut.add(token.i)  # "at .", "from to", "for the from"
            elif token.dep_ in ("det", "predet", "poss") and token.lower_ in SLOT_DETERMINERS and head.i != token.i \
                    and gone(head.i) and not any(present(c.i) and c.dep_ == "amod" for c in head.children):
                cut.add(token.i)  # "for the from" -> "for from"
            elif token.dep_ == "amod" and token.pos_ == "ADJ" and head.i > token.i and gone(head.i) \
                    and marked[head.i] and _is_nominal(head) and kind_of(head) is not None and head.is_alpha:
                # "for a great weekend with" cut to "for a great with": the adjective keeps a neutral noun
                cut.discard(head.i)
                replace[head.i] = _neutral_noun(head)
                generalized.add(head.i)
            elif token.lower_ in BE_FORMS and token.pos_ == "AUX" and token.dep_ not in ("aux", "auxpass") \
                    and (following is None or not following.is_alpha):
                clause = token
                subjects = [c for c in clause.children if c.dep_ in ("nsubj", "expl")]
                complements = [c for c in clause.children if c.dep_ in ("attr", "acomp", "npadvmod", "oprd")
                               and c.i > token.i]
                others = [c for c in clause.children if c.dep_ in ("attr", "acomp", "oprd", "ccomp", "xcomp")
                          and c not in complements]
                content = [c for c in subjects if c.lower_ not in PLACEHOLDER_CLAUSE_SUBJECTS and c.pos_ in (
                    "NOUN", "PROPN") and not marked[c.i]]
                if token.dep_ == "ROOT" and content and len(subjects) == 1 and not others and following is not None \
                        and following.text in (".", "!", "?", "!!") and all(
                            gone(t.i) for t in doc[token.i + 1:following.i]):
                    # "The party is between 8 & 11pm." -> "The party is on.", not "The party is."; a date is "coming
                    # up" ("Our last day is on the 30th." -> "Our last day is coming up."), as in _fitting_rewrite
                    kinds = {kind_of(t) for t in doc[token.i + 1:following.i] if marked[t.i]} - {None}
                    today = any(t.lower_ in ("today", "tonight") for t in doc[token.i + 1:following.i])
                    replace[token.i + 1] = "on" if today or (kinds and kinds <= {"clock", "part_of_day", "now"}) \
                        else "coming up"
                    generalized.add(token.i + 1)
                    changed = True
                    break
                if not subjects or not complements or any(s.lower_ not in PLACEHOLDER_CLAUSE_SUBJECTS
                                                          for s in subjects) \
                        or any(present(t.i) for c in complements for t in c.subtree) or others \
                        or any(t.tag_ in ("WP", "WDT", "WRB") for t in token.sent if t.i < token.i):
                    continue  # "what it is today" -> not "what."
                words = {token.i} | {t.i for s in subjects for t in s.subtree} | {a.i for a in adverbs}
                cut |= words  # "Yay IT'S FRIDAY! Party" -> "Yay! Party", not "Yay IT'S! Party"
                before = next((t for t in reversed(doc[:min(words)]) if present(t.i)), None)
                if before is not None and before.text in DANGLING_PUNCT and _ends_a_slot(following):
                    cut.add(before.i)  # "Yes, it's Friday." -> "Yes.", not "Yes,."
                sentence = token.sent
                if not any(present(t.i) and _is_content(t) for t in sentence):
                    cut |= {t.i for t in sentence if t.is_punct and present(t.i)}
                elif all(gone(t.i) or not _is_content(t) for t in doc[sentence.start:token.i]):
                    for t in doc[token.i + 1:sentence.end]:  # "It's #Day, and in Wisconsin" -> "In Wisconsin"
                        if gone(t.i):
                            continue
                        if t.text not in DANGLING_PUNCT and t.dep_ != "cc":
                            break
                        cut.add(t.i)
            else:
                continue
            changed = True
            break


@dataclass
class TemporalResult:
    text: str  # the anonymized post, untouched pieces as the author wrote them
    removed: list[str] = field(default_factory=list)  # the pieces cut, in order
    generalized: list[tuple[str, str]] = field(default_factory=list)  # (expression, neutral phrase)
    removed_spans: list[tuple[int, int]] = field(default_factory=list)  # in the original text
    generalized_spans: list[tuple[int, int]] = field(default_factory=list)
    cut_tokens: frozenset[int] = frozenset()  # in the parse of the normalized text
    replaced_tokens: frozenset[int] = frozenset()
    # For every character of ``text``, the offset of the character of the original it comes from; -1 for the
    # characters of a neutral phrase. Empty: ``text`` is the original.
    offsets: list[int] = field(default_factory=list)
    original: str = ""  # the post as written

    @property
    def changed(self) -> bool:
        return bool(self.removed or self.generalized)

    @property
    def inserted_spans(self) -> list[tuple[int, int]]:
        """The spans of ``text`` that hold neutral phrases."""
        spans: list[tuple[int, int]] = []
        for position, offset in enumerate(self.offsets):
            if offset >= 0:
                continue
            if spans and spans[-1][1] == position:
                spans[-1] = (spans[-1][0], position + 1)
            else:
                spans.append((position, position + 1))
        return spans

    def original_span(self, start: int, end: int) -> tuple[int, int] | None:
        """Where the characters ``text[start:end]`` are in the original; None when they all belong to a
        neutral phrase."""
        if not self.offsets:
            return start, end
        inside = [offset for offset in self.offsets[start:end] if offset >= 0]
        return (inside[0], inside[-1] + 1) if inside else None


def _recapitalize(norm: NormalizedText, removed: set[int], text: str, offsets: list[int]) -> str:
    """A cut phrase that started a sentence with a capital ("From 3 - 5 October, join us") hands the capital
    to the first word kept after it ("Join us")."""
    chars = list(text)
    where = {offset: position for position, offset in enumerate(offsets) if offset >= 0}
    pieces = norm.pieces
    for index, piece in enumerate(pieces):
        if index not in removed or (index and index - 1 in removed):
            continue
        if not (piece.original[:1].isupper() and _starts_sentence(norm.original, piece.start)):
            continue
        following = next((p for i, p in enumerate(pieces[index:], start=index) if i not in removed), None)
        if following is not None and following.original[:1].islower() and following.start in where \
                and not following.original.startswith(("http", "www.")):
            chars[where[following.start]] = following.original[0].upper()
    return "".join(chars)


def _is_function_word(token: Any) -> bool:
    return token.dep_ in FUNCTION_DEPS or token.is_punct


def opens_sentence(root: Any) -> bool:
    """Whether the phrase of ``root`` is the first thing in its sentence."""
    first = root.left_edge
    return first.is_sent_start or first.i == 0 or (first.nbor(-1).is_punct and first.nbor(-1).text in ".!?")


def _ends_sentence(norm: NormalizedText, index: int) -> bool:
    following = norm.pieces[index + 1] if index + 1 < len(norm.pieces) else None
    return following is None or following.original[:1].isupper()


def _starts_sentence(text: str, start: int) -> bool:
    before = text[:start].rstrip()
    return not before or before[-1] in ".!?:;\n\"'(" or before.endswith("...")


def _subtree_root(doc: Any, tokens: set[int]) -> int:
    """The token of ``tokens`` whose head lies outside them (the subtree's root)."""
    return next(i for i in sorted(tokens) if doc[i].head.i not in tokens or doc[i].head.i == i)


def _is_hashtag_word(token: Any) -> bool:
    doc = token.doc
    return token.i > 0 and doc[token.i - 1].text == "#" and not doc[token.i - 1].whitespace_


def _is_content(token: Any) -> bool:
    """A word of the post (not punctuation, a link, or the word of a hashtag)."""
    return any(c.isalnum() for c in token.text) and not is_link(token) and not _is_hashtag_word(token)


def _kept_with_sentence(token: Any, marked: list[bool]) -> bool:
    """What stays when a sentence of time only goes: links, and hashtags that are not time words."""
    doc = token.doc
    if token.text == "#" and token.i + 1 < len(doc) and not token.whitespace_:
        return not marked[token.i + 1]
    if is_link(token) or (not any(c.isalnum() for c in token.text) and not token.is_punct):
        return True  # links and emoji ("Every Sunday 😇 https://…" -> "😇 https://…")
    return _is_hashtag_word(token) and not marked[token.i]


def _describing_word(token: Any) -> bool:
    """A word the recognizer took into a time that says something else ("a new day", "a long day")."""
    return token.lower_ in EVALUATIVE_WORDS


def _first_word(token: Any) -> bool:
    """Whether ``token`` is the first word of its sentence (past @mentions, links and punctuation)."""
    return all(t.is_punct or is_link(t) or t.text in ("#", "@") or not any(c.isalnum() for c in t.text)
               for t in token.doc[token.sent.start:token.i])  # emoji are no words: "🍉  Happy #TreaTuesday"


ORDINAL_WORDS = frozenset("first second third fourth fifth 1st 2nd 3rd 4th 5th".split())
OBJECT_PRONOUNS = frozenset("us you them we they y'all yall ya".split())
PARTICLES = frozenset("in on".split())


def _not_of_the_time(doc: Any, marked: list[bool], cut: set[int], replace: dict[int, str]) -> set[int]:
    """Cut words that belong to the sentence, not to the time next to them (round 17, readers: "Determined to have
    day.", "kill us.", "running which was", "get some steps", "Jasam are &amp;", "Dalia said"): they stay."""
    def gone(i: int) -> bool:
        return i in cut or i in replace

    kept: set[int] = set()
    for i in sorted(cut):
        token, head = doc[i], doc[i].head
        if token.lower_ in ("a", "an") and token.dep_ == "det" and head.i > i and head.pos_ == "NOUN" \
                and head.is_alpha and not marked[head.i] and not gone(head.i) and all(
                    doc[j].head.i == head.i and doc[j].dep_ in ("amod", "advmod") and doc[j].is_alpha
                    and kind_of(doc[j]) is None for j in range(i + 1, head.i)):
            # "Determined to have a great day today." -> "... a great day.": "a great" describe "day", which stays
            kept |= set(range(i, head.i))
        elif token.lower_ == "all" and i and doc[i - 1].lower_ in OBJECT_PRONOUNS:
            kept.add(i)  # "gonna kill us all tomorrow" -> "gonna kill us all"
        elif token.lower_ in ("this", "that") and token.dep_ == "det" and head.i == i + 1 \
                and head.lower_ in PLURAL_TIME_NOUNS and gone(head.i):
            kept.add(i)  # "Dalia said this months ago" -> "Dalia said this": no "this months"; "this" is the object
        elif token.lower_ in ORDINAL_WORDS and token.dep_ == "amod" and head.lower_ in DEICTIC_WORDS:
            kept.add(i)  # "running to first tonight" -> "running to first": first base, not the first night
            if i and doc[i - 1].pos_ == "ADP" and doc[i - 1].i in cut:
                kept.add(i - 1)
        elif token.lower_ in PARTICLES and i + 1 < len(doc) and doc[i + 1].lower_ in ("today", "tonight") \
                and gone(i + 1) and (i + 2 >= len(doc) or not doc[i + 2].is_alpha) \
                and i and (doc[i - 1].pos_ in ("NOUN", "AUX", "VERB") or doc[i - 1].lower_ in BE_FORMS):
            kept.add(i)  # "get some steps in today #..." -> "get some steps in", "Jasam are on today &amp;"
    return kept


# Past-tense verbs only a person does: a time before one opening a post is no subject ("Last night dreamt that").
PERSON_VERBS = frozenset("dreamt dreamed slept woke ate drank watched played met saw bought cooked".split())
EDGE_WORDS = {"last": "the end", "final": "the end", "first": "the start", "opening": "the start"}


def _edge_of(root: Any, tokens: list[int], marked: list[bool]) -> str | None:
    """"the end" / "the start" for the last or first stretch of time of a thing named after it ("the last hour of
    the transfer window", "the first day of school"), when the thing is no time; else None."""
    doc = root.doc
    edges = [doc[i] for i in tokens
             if doc[i].dep_ == "amod" and doc[i].head.i == root.i and doc[i].lower_ in EDGE_WORDS]
    if len(edges) != 1 or not _is_nominal(root) or root.lower_ in DEICTIC_WORDS:
        return None
    if any(not (doc[i].dep_ in ("det", "amod") or i == root.i) or (doc[i].dep_ == "det" and doc[i].lower_ != "the")
           for i in tokens):
        return None  # "this last week of June": more than the edge
    of = [c for c in root.children if c.dep_ == "prep" and c.lower_ == "of" and not marked[c.i] and c.i > root.i]
    if not of or not any(c.dep_ in ("pobj", "pcomp") and not marked[c.i] for c in of[0].children):
        return None
    return EDGE_WORDS[edges[0].lower_]


START_WORDS = frozenset("starting beginning beg beg. effective commencing".split())


def _start_word_before(doc: Any, tokens: list[int]) -> int | None:
    """The word right before a time phrase that says when something starts ("starting Feb 9.", "beg. 20 Jan:"), when
    the phrase ends its clause; else None. "soon" says the same without the date."""
    first, last = min(tokens), max(tokens)
    opener = first - 2 if first > 1 and doc[first - 1].text == "." else first - 1  # "beg", "." as two tokens
    if opener < 0 or doc[opener].lower_ not in START_WORDS:
        return None
    if last + 1 < len(doc) and (doc[last + 1].is_alpha or doc[last + 1].like_num) and not doc[last].text.endswith("."):
        return None
    return opener


def _describing_time(token: Any, marked: list[bool]) -> set[int] | None:
    """The words of a time noun that only describes the noun right after it, parsed as its compound or (a gerund
    taken for a verb) its subject: "summer reading", "summer classes", "Last Night Episode"; None otherwise. Its
    own words must all be times ("a rainy day essentials" keeps its rewrite by role)."""
    head = token.head
    if not marked[token.i] or not _is_nominal(token) or not token.is_alpha or head.i != token.i + 1 \
            or marked[head.i] or not head.is_alpha or kind_of(token) is None:
        return None
    if token.dep_ == "compound" and head.pos_ in ("NOUN", "PROPN"):
        pass
    elif not (token.dep_ == "nsubj" and head.tag_ == "VBG" and head.dep_ in ("pobj", "pcomp")
              and not list(token.children) and token.lower_ not in DEICTIC_WORDS
              and head.lower_ not in ("being", "having")):  # "With today being the 20th anniversary": a subject
        return None
    words = {t.i for t in token.subtree}
    if not all(marked[i] for i in words) or any(token.doc[i].pos_ == "NUM" for i in words):
        return None
    return words


def _bare_greeting(token: Any, marked: list[bool]) -> str | None:
    """The greeting a bare part of the day stands for ("Morning all!" -> "Hello", "Night all." -> "Take care"),
    when it is marked as a time, opens its sentence and is followed by nothing, punctuation, emoji, a link or a
    vocative ("you lot", "all", "guys") that ends the phrase; else None ("Morning run done", "Night shift again")."""
    greeting = BARE_GREETINGS.get(token.lower_)
    if greeting is None or not marked[token.i] or _is_hashtag_word(token) or not _first_word(token):
        return None
    doc = token.doc
    following = token.i + 1
    if following < len(doc) and doc[following].lower_ in ("you", "u", "ya", "y'all", "yall") \
            and following + 1 < len(doc) and doc[following + 1].lower_ in ("lot", "all", "guys", "people", "folks"):
        following += 2  # "Morning you lot." / "Night you all"
    elif following + 1 < len(doc) and doc[following].lower_ in ("y", "ya") \
            and doc[following + 1].lower_ in ("'all", "’all", "all"):
        following += 2  # "Afternoon y'all" (tokenized "y", "'all")
    elif following < len(doc) and doc[following].lower_ in GREETED:
        following += 1
    if following < len(doc) and any(c.isalnum() for c in doc[following].text) and not is_link(doc[following]) \
            and doc[following].text not in ("#", "@") and not doc[following].text.startswith("@"):
        return None
    if token.i + 1 < len(doc) and doc[token.i + 1].lower_ == token.lower_:
        return None  # "night night": a bedtime phrase of its own
    if following + 1 < len(doc) and doc[following].text == "," and marked[following + 1]:
        return None  # "Morning, afternoon and night Brigade rehearsals": a list of times, no greeting
    return greeting if token.text[:1].isupper() or token.i == doc[token.sent.start].i else greeting.lower()


class TemporalAnonymizer:
    """Configured with a spaCy pipeline (tagger, parser, NER), a :class:`TimeTagger` and the two switches;
    :meth:`transform` anonymizes posts in batches through ``nlp.pipe``."""

    def __init__(self, nlp: Any, *, tagger: TimeTagger | None = None, prune: bool = True,
                 generalize: bool = True, known_patterns: Mapping[str, int] | None = None,
                 keep_kinds: frozenset[str] = DEFAULT_KEEP_KINDS, keep_how_long: bool = True,
                 batch_size: int = 256) -> None:
        if not (prune or generalize):
            raise ValueError("at least one of prune and generalize must be on")
        unknown = set(keep_kinds) - set(KINDS)
        if unknown:
            raise ValueError(f"unknown kinds to keep {sorted(unknown)}; expected some of {', '.join(KINDS)}")
        # Expressions made only of these granularities stay ("part_of_day": keep "in the morning", cut "on Monday").
        self.keep_kinds = frozenset(keep_kinds)
        # Expressions that only say how long or how often stay ("for 12 hours", "every day"): see
        # says_how_long_or_often. Off: they go like every other time (the paper's setting).
        self.keep_how_long = keep_how_long
        self.nlp = nlp
        self.tagger = tagger or TimeTagger()
        self.prune = prune
        self.generalize = generalize
        # None: prune every removable time subtree; else only those whose pattern is known (see patterns.py).
        self.known_patterns = known_patterns
        self.batch_size = batch_size

    def transform(self, texts: list[str]) -> list[TemporalResult]:
        norms = [normalize(text) for text in texts]
        docs = self.nlp.pipe((n.text for n in norms), batch_size=self.batch_size)
        return [self.anonymize_doc(norm, doc) for norm, doc in zip(norms, docs, strict=True)]

    def _expressions(self, doc: Any, marked: list[bool]) -> list[tuple[Any, set[int], set[int] | None]]:
        """(root token, its run of time tokens, the subtree to cut or None) for every time expression; a
        removable subtree whose pattern is not known counts as not removable."""
        found = []
        for start, end in runs(marked):
            run = set(range(start, end))
            kinds = {kind for i in run if (kind := kind_of(doc[i])) is not None}
            if self.keep_kinds and kinds and kinds <= self.keep_kinds:
                continue
            for root in (doc[i] for i in sorted(run) if doc[i].head.i not in run or doc[i].head.i == i):
                if root.head.i != root.i and marked[root.head.i] and root.dep_ in NOUN_PHRASE_DEPS:
                    continue  # "a" of "a hot day": part of the expression of "day"
                found.append((root, run, self._unit(root, marked)))
        return found

    def time_marks(self, doc: Any) -> list[bool]:
        """The tagger's marks, less the expressions that only say how long or how often (``keep_how_long``)."""
        marked = self.tagger.tag(doc)
        if self.keep_how_long:
            for start, end in runs(marked):
                # The run with the marked words hanging on it from outside ("a" of "a great 2.5 years").
                group = set(range(start, end))
                group |= {c.i for i in range(start, end) for c in doc[i].children
                          if marked[c.i] and c.i not in group and c.lower_ in COUNT_WORDS | {"the"}}
                if says_how_long_or_often(doc, sorted(group)) or _how_long_with_spill(doc, sorted(group)):
                    for i in group:
                        marked[i] = False
        return marked

    def patterns_in(self, doc: Any) -> list[str | None]:
        """The pattern of every time expression's removable subtree (None: an argument, not removable)."""
        marked = self.time_marks(doc)
        return [None if unit is None else subtree_pattern(doc, _subtree_root(doc, unit), unit, marked)
                for _, _, unit in self._expressions(doc, marked)]

    def plan(self, doc: Any) -> tuple[set[int], dict[int, str], set[int]]:
        """Token indices to cut; the first token of each generalized run with its phrase (the run's other
        tokens are in the cut set); and all tokens of the generalized runs."""
        marked = self.time_marks(doc)
        cut: set[int] = set()
        replace: dict[int, str] = {}
        generalized: set[int] = set()
        # Whole units first: a greeting with a time word, a clause that only says when, a sentence of time only.
        handled = self._whole_units(doc, marked, cut, replace, generalized) if any(marked) else set()
        keep: set[int] = set()  # words a rule below keeps whatever the debris pass thinks of them
        if self.prune:
            for token in doc:
                if token.i not in handled and (modifier := _describing_time(token, marked)) is not None:
                    # "excited about summer reading" -> "excited about reading": the time only describes the thing
                    # after it; it goes alone, its preposition and neighbours stay (readers: "excited a certain time
                    # reading").
                    cut |= modifier
                    handled |= modifier
                    preposition = token.head.head
                    if preposition.pos_ == "ADP" and marked[preposition.i] and preposition.i == min(modifier) - 1 \
                            and not marked[preposition.head.i]:  # not "after a day of christmas shopping"
                        handled.add(preposition.i)
                        keep.add(preposition.i)
        for root, run, unit in self._expressions(doc, marked):
            if root.i in handled:
                continue
            quantity = self._quantity_of(root, run, marked) if self.prune else None
            if quantity is not None:
                cut |= quantity  # "after 4+ hours of queuing" -> "after queuing"
                continue
            if unit is not None and self.known_patterns is not None and subtree_pattern(
                    doc, _subtree_root(doc, unit), unit, marked) not in self.known_patterns:
                unit = None  # an unknown shape: not pruned
            after_run = doc[max(run) + 1] if max(run) + 1 < len(doc) else None
            if self.prune and run == {root.i} and root.dep_ == "conj" and root.pos_ in ("NOUN", "PROPN") \
                    and root.head.dep_ in ("nmod", "compound") and root.head.head.i == root.i + 1 \
                    and not marked[root.head.i] and not marked[root.i + 1]:
                # A time noun joined to another noun in front of a third only describes it: it goes alone, its
                # conjunction stays ("busy with work and summer classes" -> "with work and classes").
                cut.add(root.i)
                keep |= {c.i for c in root.head.children if c.dep_ == "cc" and c.i < root.i}
                continue
            if self.generalize and root.lower_ in ("today", "tonight", "tomorrow") and root.i + 2 < len(doc) \
                    and doc[root.i + 1].lower_ in ("'s", "’s") and run == {root.i, root.i + 1} \
                    and doc[root.i + 2].lower_ in POSSESSIVES | {"a", "an", "the"}:
                # "Crazy That Today's My B-Day" -> "That It's My B-Day": "'s" is "is" here
                replace[root.i] = "It" if root.text[:1].isupper() else "it"
                generalized.add(root.i)
                continue
            if self.generalize and root.lower_ in ("today", "tonight", "tomorrow") and len(run) == 1 \
                    and root.head.lower_ in START_END_VERBS and root.head.tag_ == "VBZ" and root.head.i == root.i - 1 \
                    and (after_run is None or not after_run.is_alpha):
                replace[root.i] = "soon"  # "Offer ends tomorrow: go go go!" -> "Offer ends soon: go go go!"
                generalized.add(root.i)
                continue
            if unit is not None and not unit and root.dep_ in ("pobj", "pcomp") and root.head.pos_ == "ADP" \
                    and root.head.i == min(run) - 1 and all(t.i in run for t in root.subtree) \
                    and (after_run is None or not after_run.is_alpha):
                # The subtree came out empty (the parser hung the words elsewhere: "Calcutta @ 8 p.m.🎱"): the run
                # goes with its preposition, when it ends the phrase.
                unit = set(run) | {root.head.i}
            if self.prune and (root.text == "#" or _is_hashtag_word(root)):
                # A time hashtag ("#TGIF", "#Friday") goes whole: a neutral phrase cannot stand for a tag.
                tags = sorted(i for i in run if doc[i].text == "#" or _is_hashtag_word(doc[i]))
                words = [doc[i] for i in tags if _is_hashtag_word(doc[i]) or doc[i].text != "#"]
                if self.generalize and words and words[0].dep_ in ("dobj", "pobj", "nsubj", "attr") \
                        and any(c.dep_ == "det" for c in words[0].children):
                    # An argument with its article keeps a neutral noun ("enjoying the #sunset at the riverfront"
                    # -> "enjoying the time at the riverfront").
                    replace[tags[0]] = _neutral_noun(words[0])
                    cut |= set(tags[1:])
                    generalized |= set(tags)
                elif self.generalize and words and words[0].dep_ in ("nsubj", "nsubjpass") \
                        and words[0].head.i > words[0].i and words[0].head.pos_ in ("VERB", "AUX"):
                    # A subject ("#NationalPTSDawarenessDay is very near & dear to me") -> "It is very near ..."
                    replace[tags[0]] = "it"
                    cut |= set(tags[1:])
                    generalized |= set(tags)
                else:
                    cut |= set(tags)
            elif self.generalize and (judged := _judged_time(root, self._noun_phrase(root, run), marked)) is not None:
                # "Thanks for a great weekend with you" -> "Thanks for a great time with you": the adjective says
                # something of its own; cutting the phrase would lose it (readers: "for a great with").
                replace[root.i] = judged
                generalized.add(root.i)  # its determiner and adjectives stay as written
            elif self.generalize and is_what_a_complement_is_about(root, run):
                replace[root.i] = "the day"  # "Spent today belting my face off" -> "Spent the day belting ..."
                generalized.add(root.i)
            elif unit is not None and self.prune:
                cut |= unit
                head = root.head
                before = doc[min(unit) - 1] if unit and min(unit) else None
                if unit and root.dep_ == "poss" and head.i not in unit and head.pos_ in ("NOUN", "PROPN") \
                        and max(unit) + 1 < len(doc) and not EMOJI_ONLY.match(doc[max(unit) + 1].text) \
                        and (not doc[max(unit) + 1].is_punct or doc[max(unit) + 1].text == "#") \
                        and not any(c.dep_ in ("det", "poss") and c.i not in unit for c in head.children) \
                        and before is not None and before.pos_ in ("ADP", "VERB", "AUX"):
                    # "swag for tomorrow's All-American Experience" -> "swag for the All-American Experience"
                    replace[min(unit)] = "the"
                    cut.discard(min(unit))
                    generalized |= unit
                before = doc[min(unit) - 1] if unit and min(unit) else None
                if before is not None and before.lower_ in PRECISION_ADVERBS and before.dep_ == "advmod":
                    cut.add(before.i)  # "calling you nonstop right at 8am" -> "calling you nonstop"
            elif not _is_nominal(root) and root.dep_ not in ("punct", "ROOT"):
                # An adverb ("now", "soon") is never an argument: it goes, with a preposition left without object.
                cut |= {t.i for t in root.subtree} & run
                if root.head.pos_ == "ADP" and all(c.i in cut for c in root.head.children):
                    cut.add(root.head.i)
            elif self.generalize and root.dep_ != "punct" and (rewrite := _rewrite_by_role(
                    root, self._noun_phrase(root, run), marked, prune=self.prune)) is not None:
                # The time noun's role picks the rewrite: "your Saturday" -> "your day", "a fun day" -> "a fun
                # time", "Tomorrow is ..." -> "It is ...", "rainy day essentials" -> "essentials".
                rewrite_cut, rewrite_replace = rewrite
                cut |= rewrite_cut
                replace.update(rewrite_replace)
                generalized |= set(rewrite_replace)
            elif self.generalize and root.dep_ != "punct" and (fit := _fitting_rewrite(
                    root, phrase := self._noun_phrase(root, run), marked, prune=self.prune)) is not None:
                # The words a person would put there: "it", "a while", "some time", "not long", "last chance".
                fit_cut, fit_replace = fit
                hanging = {t.i for t in root.subtree if t.i in run and t.lower_ != "off"} - set(phrase)
                cut |= (fit_cut | hanging) - set(fit_replace)
                replace.update(fit_replace)
                generalized |= (fit_cut | set(fit_replace)) if fit_replace else set()
            elif self.prune and self.generalize and root.dep_ != "punct" \
                    and (sentence := self._sentence_to_drop(root, marked)) is not None:
                # No rewrite fits and the post says something else: the sentence that holds the time goes whole
                # ("... Rest In Peace young Paco. Had a great 2.5 years with you" -> "... Rest In Peace young Paco.")
                # rather than "a certain time", which readers found unnatural nine times in ten.
                cut |= sentence
                handled |= sentence
            elif self.prune and self.generalize and root.dep_ != "punct" \
                    and (instead := _cut_instead_of_a_neutral_phrase(root, run, marked)) is not None:
                cut |= instead
            elif self.generalize and root.dep_ != "punct":
                tokens = self._noun_phrase(root, run)
                adjectives = [doc[i] for i in tokens if doc[i].dep_ == "amod" and doc[i].head.i == root.i
                              and not marked[i] and doc[i].pos_ == "ADJ"]
                if root.lower_ in PERIOD_WORDS and adjectives:
                    # "It's been a wonderful month" -> "a wonderful time": the adjectives say nothing of when.
                    start = adjectives[0].i
                    article = "an" if adjectives[0].lower_[:1] in "aeiou" else "a"
                    determiner = [doc[i] for i in tokens if i < start and doc[i].dep_ == "det"]
                    lead = (article + " ") if determiner and determiner[0].lower_ in ("a", "an") else \
                        (determiner[0].lower_ + " " if determiner else "")
                    words = " ".join(t.text for t in doc[start:root.i])
                    replace[tokens[0]] = f"{lead}{words} time"
                elif (edge := _edge_of(root, tokens, marked)) is not None:
                    # "back to the last hour of the dullest transfer window" -> "back to the end of the dullest
                    # transfer window", "Today is the last day of PLL" -> "It is the end of PLL" (readers: "back to a
                    # certain time of the dullest ...")
                    replace[tokens[0]] = edge
                elif (opener := _start_word_before(doc, tokens)) is not None:
                    # "running for 15 weeks, starting Feb 9." -> "starting soon.", "beg. 20 Jan:" -> "beg. soon:"
                    # (readers: "starting a certain time", "beg. A certain time:")
                    replace[tokens[0]] = "soon"
                    generalized.add(opener)
                else:
                    replace[tokens[0]] = _neutral_phrase(root)
                # The rest of the expression hanging from it ("of 2015" in "1st day of 2015") is cut.
                cut |= set(tokens[1:]) | ({t.i for t in root.subtree} & run)
                cut.discard(tokens[0])
                generalized |= set(tokens)
            # With generalization off, an argument stays: cutting it would break the sentence.
        cut |= self._debris(doc, cut, generalized)
        cut -= keep
        if self.generalize:
            _emptied_slots(doc, marked, cut, replace, generalized)
        # The "to" of an infinitive whose verb stays is no time ("excited for the fall semester to start" -> "for it
        # to start", not "for it start").
        cut -= {i for i in cut if doc[i].lower_ == "to" and doc[i].dep_ == "aux" and doc[i].head.i > i
                and doc[i].head.i not in cut and doc[i].head.i not in replace and not marked[doc[i].head.i]}
        if self.prune:
            cut -= _not_of_the_time(doc, marked, cut, replace)
        return cut, replace, generalized

    @staticmethod
    def _sentence_to_drop(root: Any, marked: list[bool]) -> set[int] | None:
        """The tokens of the sentence that holds ``root`` (its links, hashtags and emoji stay), when that sentence
        is a whole one (it starts after a full stop and ends with one or the post) and another sentence of the post
        says something that is not a time; else None."""
        doc = root.doc
        sentence = root.sent
        before = doc[sentence.start - 1].text if sentence.start else "."
        last = doc[sentence.end - 1]
        if before[-1:] not in ".!?" or not (sentence.end == len(doc) or last.text[-1:] in ".!?"
                                             or not any(c.isalnum() for c in last.text)):
            return None
        others = [t for t in doc if not (sentence.start <= t.i < sentence.end) and _is_content(t)
                  and not marked[t.i] and t.lower_ not in PLACEHOLDER_WORDS]
        if len(others) < 2:
            return None
        return {t.i for t in sentence if not _kept_with_sentence(t, marked)}

    def _whole_units(self, doc: Any, marked: list[bool], cut: set[int], replace: dict[int, str],
                     generalized: set[int]) -> set[int]:
        """Units larger than a time phrase, planned into ``cut`` / ``replace`` / ``generalized``; returns the
        tokens they cover (the expressions rooted there are done):
        - a greeting opening a sentence becomes one without the time ("Good morning!!" -> "Hello!!");
        - a clause that only says when, joined to another, goes with its conjunction ("It's July and we've
          signed Sanchez" -> "We've signed Sanchez");
        - a sentence made only of time (and "it's", determiners, prepositions) goes when another sentence has
          something to say ("Photo: Golden Path. April 2014. http://…" -> "Photo: Golden Path. http://…",
          "IT'S FRIDAY! Party" -> "Party"), also when it is all the post says (its links stay)."""
        handled: set[int] = set()
        if not self.generalize:
            return handled
        for token in doc:
            if token.lower_ in ONE_WORD_GREETINGS and marked[token.i] and token.i not in handled \
                    and not _is_hashtag_word(token):
                # "Gooooodnight guys" -> "Take care guys"
                phrase = ONE_WORD_GREETINGS[token.lower_]
                replace[token.i] = phrase if token.text[:1].isupper() or _first_word(token) else phrase.lower()
                generalized.add(token.i)
                handled.add(token.i)
                continue
            if (greeting := _bare_greeting(token, marked)) is not None and token.i not in handled:
                # "Morning all!" -> "Hello all!", "Night all." -> "Take care all.", "Morning" -> "Hello"
                replace[token.i] = greeting
                generalized.add(token.i)
                handled.add(token.i)
                continue
            closer = doc[token.i + 1] if token.i + 1 < len(doc) else None
            wish = GREETING_CLOSERS.get((token.lower_, closer.lower_)) if closer is not None else None
            if wish and marked[token.i] and marked[closer.i] and token.i not in handled:
                replace[token.i] = wish if token.text[:1].isupper() or _first_word(token) else wish.lower()
                cut.add(closer.i)  # "Eid Mubarak to everyone" -> "Best wishes to everyone"
                generalized |= {token.i, closer.i}
                handled |= {token.i, closer.i}
                continue
            opener = GREETING_OPENERS.get(token.lower_)
            previous = doc[token.i - 1] if token.i else None
            if opener is None or marked[token.i] or token.i + 1 >= len(doc) or not marked[token.i + 1]:
                continue
            end = token.i + 1
            while end < len(doc) and marked[end]:
                end += 1
            after = doc[end] if end < len(doc) else None
            addressed = after is None or after.is_punct or is_link(after) or after.lower_ in VOCATIVES \
                or not any(c.isalnum() for c in after.text)
            addressed = addressed and previous is not None and previous.pos_ not in ("DET", "ADP", "ADV", "ADJ")
            if previous is not None and (previous.dep_ == "poss" or previous.lower_ in POSSESSIVES):
                continue  # "take advantage of your good days": no greeting
            if opener == "Hello" and after is not None and after.pos_ == "ADP" \
                    and after.lower_ not in ("to", "from", "@"):
                continue  # "good night with good friends on the island": a night described, not a greeting
            if not (_first_word(token) or previous.is_punct or previous.pos_ == "INTJ" or addressed):
                continue  # "Well, good morning to you all", "Paid Internship Good morning all," greet too
            if opener == "Hello" and any(doc[i].lower_ in FAREWELL_WORDS for i in range(token.i + 1, end)):
                opener = "Take care"
            span = set(range(token.i, end))
            replace[token.i] = opener if token.text[:1].isupper() else opener.lower()
            cut |= span - {token.i}
            generalized |= span
            handled |= span
        if not self.prune:
            return handled
        sentences = list(doc.sents)
        for sentence in sentences:
            before = doc[sentence.start - 1].text if sentence.start else "."
            if not (before[:1] in ".!?" and not before.startswith("..")) and not before.startswith(("::", "|")):
                continue  # "Yoga was........ today.": the parser's sentence is the end of a clause
            words = [t for t in sentence if (_is_content(t) or (marked[t.i] and _is_hashtag_word(t)))
                     and t.i not in handled]
            if not any(marked[t.i] for t in words) or not all(
                    (marked[t.i] and not _describing_word(t)) or t.dep_ in ("det", "predet", "cc", "case")
                    or (t.dep_ == "prep" and any(c.dep_ in ("pobj", "pcomp") for c in t.children))
                    or t.lower_ in PLACEHOLDER_WORDS for t in words):  # "Already over this week": "over" says more
                continue
            # Even when nothing else is said: a post of time only keeps its links and emoji ("5 seconds ago
            # https://…" -> "https://…"); readers found every neutral sentence ("A certain day.") unnatural.
            gone = {t.i for t in sentence if not _kept_with_sentence(t, marked)}
            cut |= gone
            handled |= gone
        for verb in doc:
            # "It's going on midnight and ...": a clause of "it" and a time, as with "It's almost 10 pm and ..."
            going_on = [c for c in verb.children if c.lower_ == "on" and not list(c.children)] \
                if verb.lower_ == "going" else []
            if verb.i in handled or (verb.lower_ not in BE_FORMS and not going_on) or verb.pos_ not in ("AUX", "VERB"):
                continue
            children = list(verb.children)
            times = [c for c in children if c.dep_ in ("attr", "acomp", "npadvmod") and marked[c.i]]
            subjects = [c for c in children if c.dep_ in ("nsubj", "expl")]
            joined = [c for c in children if c.dep_ == "conj" and c.i > verb.i]
            conjunctions = [c for c in children if c.dep_ == "cc" and c.i > verb.i] or [
                t for j in joined[:1] for t in doc[verb.i + 1:j.left_edge.i + 1] if t.dep_ == "cc"
                and t.head.i in {j.i, *(c.i for c in times)}][:1]  # "It's almost 10 pm and I am making coffee"
            if not times or any(s.lower_ not in PLACEHOLDER_WORDS for s in subjects):
                continue
            end = max(t.i for t in verb.subtree) + 1
            if not joined and end < len(doc) and doc[end].dep_ == "cc" and doc[end].head.dep_ == "ROOT" \
                    and doc[end].head.i > end:
                conjunctions = [doc[end]]  # the parser ended the sentence before "and I've spent ..."
                joined = [doc[end].head]
            if not joined or not conjunctions:
                self._comma_clause(doc, verb, times + subjects, marked, cut, handled)
                continue
            clause = {verb.i, conjunctions[0].i} | {t.i for c in times + subjects for t in c.subtree}
            clause |= {c.i for c in going_on} | ({c.i for c in children if c.dep_ == "aux"} if going_on else set())
            rest = [c for c in children if c.i not in clause and c.dep_ not in ("conj", "punct")]
            if rest or not all(marked[i] or doc[i].dep_ in ("det", "cc", "nsubj", "expl") or i == verb.i
                               or (going_on and (doc[i].dep_ == "aux" or doc[i] in going_on)) for i in clause):
                continue
            clause |= {c.i for c in children if c.dep_ == "punct" and verb.i < c.i < conjunctions[0].i}
            cut |= clause
            handled |= clause
        return handled

    @staticmethod
    def _comma_clause(doc: Any, verb: Any, parts: list[Any], marked: list[bool], cut: set[int],
                      handled: set[int]) -> None:
        """A clause that only says when, opening a sentence before a comma and another clause, goes with its
        comma ("It's the weekend, Stop working and go shopping!" -> "Stop working and go shopping!")."""
        clause = {verb.i} | {t.i for part in parts for t in part.subtree}
        start, end = min(clause), max(clause) + 1
        if clause != set(range(start, end)) or not _first_word(doc[start]) or end + 1 >= len(doc):
            return
        comma = doc[end].text == ","
        # Without a comma, only before a clause with its own subject ("It's BIG BROTHER night I can hardly ...").
        if not comma and not ((doc[end].dep_ == "nsubj" and doc[end].pos_ == "PRON" and doc[end].head.i != verb.i
                               and doc[end].head.head.i == verb.i)
                              or (doc[end].tag_ in ("WRB", "WP") and doc[end].head.i != verb.i)):
            return  # "It's 2017 why am I listening ..." -> "Why am I listening ..."
        if not all(marked[i] or doc[i].dep_ in ("det", "nsubj", "expl") or i == verb.i
                   or (not comma and doc[i].dep_ in ("amod", "compound") and marked[doc[i].head.i]) for i in clause):
            return
        rest = [c for c in verb.children if c.i > end and not c.is_punct]
        if not rest or not any(c.pos_ in ("VERB", "AUX") and c.dep_ in ("xcomp", "ccomp", "conj", "parataxis", "advcl")
                               for c in rest):
            return
        cut |= clause | ({end} if comma else set())
        handled |= clause | ({end} if comma else set())

    def _quantity_of(self, root: Any, run: set[int], marked: list[bool]) -> set[int] | None:
        """For a stretch of time "of" something ("4+ hours of queuing", "the last 4 days of hols", "your well
        deserved months of leave"), the words to cut so that the something takes its place: the time noun, its
        quantity and determiners, and "of"; possessives and adjectives stay. None when the phrase is not one."""
        doc = root.doc
        if not _is_nominal(root) or root.i + 1 >= len(doc):
            return None
        of = doc[root.i + 1]
        objects = [c for c in of.children if c.dep_ in ("pobj", "pcomp")]
        if of.lower_ != "of" or of.head.i != root.i or marked[of.i] or not objects \
                or any(marked[t.i] for o in objects for t in o.subtree) or all(is_link(o) for o in objects):
            return None
        phrase = self._noun_phrase(root, run)
        if not (root.tag_ in ("NNS", "NNPS")
                or any(doc[i].like_num or doc[i].lower_ in ("a", "an", "another") for i in phrase)):
            return None  # "my last day of work" is no stretch "of" something; "a night of heavy drinking" is
        if any(doc[i].dep_ == "amod" and not marked[i] and doc[i].pos_ == "ADJ" for i in phrase) \
                and any(doc[i].lower_ in ("a", "an") for i in phrase):
            return None  # "a tough week of fishing" -> "a tough time of fishing": the adjective needs its noun
        cut = {i for i in phrase if i <= root.i and (marked[i] or doc[i].dep_ in QUANTITY_DEPS or doc[i].like_num)}
        return cut | {root.i, of.i}

    @staticmethod
    def _noun_phrase(root: Any, run: set[int]) -> list[int]:
        """The tokens one neutral phrase replaces: the time word with the words in front of it that describe
        it ("a hot day", "wee hours", "the #Christmas season") and the time words after it in its run."""
        doc = root.doc
        subtree = {t.i for t in root.subtree}
        start = end = root.i
        while start - 1 in subtree and (_describes(doc[start - 1], run) or (
                doc[start - 1].dep_ == "advmod" and doc[doc[start - 1].head.i].dep_ == "quantmod")):
            start -= 1  # "slightly" of "slightly more than an hour" goes with its quantity
        # A participle inside the phrase ("1st working day") goes with it; at its edge ("briefed minutes") it stays.
        while start - 2 in subtree and doc[start - 1].pos_ == "VERB" and doc[start - 1].dep_ in ("amod", "compound") \
                and _describes(doc[start - 2], run):
            start -= 2
            while start - 1 in subtree and _describes(doc[start - 1], run):
                start -= 1
        while end + 1 in subtree and end + 1 in run and not doc[end + 1].is_punct \
                and doc[end + 1].dep_ not in ("cc", "prep", "case", "conj"):
            end += 1
        return list(range(start, end + 1))

    def _unit(self, root: Any, marked: list[bool]) -> set[int] | None:
        """The subtree to cut for a run whose root is ``root``, or None when it is an argument."""
        head = root.head
        if is_link(head) and head.i != root.i and root.dep_ in ("compound", "nmod", "amod", "nummod") \
                and head.dep_ in ("pobj", "pcomp") and head.head.pos_ == "ADP":
            # "The beauty of sunset http://…": the parser hung "sunset" on the URL; the phrase is "of sunset".
            candidate = {head.head.i, *(t.i for t in root.subtree)}
            rest = [t for t in head.subtree if t.i not in candidate and t.i != head.i]
            if all(marked[i] or _is_function_word(root.doc[i]) for i in candidate) \
                    and all(_is_function_word(t) or is_link(t) for t in rest):
                return candidate
        following = root.doc[root.i + 1] if root.i + 1 < len(root.doc) else None
        if root.dep_ == "pobj" and head.pos_ == "ADP" and following is not None and following.pos_ == "NOUN" \
                and following.is_alpha and not marked[following.i] and following.dep_ == "dobj" \
                and following.head.i == head.head.i and all(marked[t.i] for t in root.subtree):
            # "go on late night Adventures": the time describes the noun after it, which the parser made the
            # verb's object; the preposition belongs to that noun and stays
            return {t.i for t in root.subtree}
        if root.dep_ in ("pobj", "pcomp") and (head.dep_ in PREPOSITION_HEAD_DEPS or head.pos_ == "ADP") \
                and head.i != root.i:
            candidate = {t.i for t in head.subtree}
        elif root.dep_ in ADJUNCT_DEPS:
            candidate = {t.i for t in root.subtree}
        else:
            return None
        # Emoji the parser hung on the time ("in the morning 😩") are no part of it: they stay.
        candidate -= {i for i in candidate if not any(c.isalnum() for c in root.doc[i].text)
                      and not root.doc[i].is_punct}
        if root.i not in candidate:
            return None
        # A conjunction at the subtree's edge that the tagger left out joins the clause to the next one ("did
        # last night & probably will"), not two times: it stays.
        while candidate and root.doc[max(candidate)].dep_ == "cc" and not marked[max(candidate)]:
            candidate.discard(max(candidate))
        if _needs_its_words(root, marked):
            return None  # an argument the parser labelled as an adjunct: rewritten by _fitting_rewrite
        if root.dep_ == "npadvmod" and head.lower_ in BE_FORMS and _is_nominal(root) and not any(
                c.i != root.i and (c.dep_ not in COPULA_FRAME_DEPS or c.tag_ in ("WP", "WDT"))
                and not (c.dep_ == "advmod" and c.lower_ in COPULA_ADVERBS) for c in head.children):
            return None  # "What a fabulous day it has been": the time is the copula's only complement
        if root.dep_ == "npadvmod" and opens_sentence(root) and _is_nominal(root):
            last = max(t.i for t in root.subtree if marked[t.i] or t.i <= root.i)
            after = root.doc[last + 1] if last + 1 < len(root.doc) else None  # "ONE MONTH FROM TODAY, ILL BE"
            if after is not None and after.lower_ in COUNTDOWN_WORDS | {"since"}:
                return None  # "6 more days till I'm back" -> "some time till I'm back", not "till I'm back"
        doc = root.doc
        if root.dep_ == "compound" and head.i > root.i and head.pos_ in ("NOUN", "PROPN") and not marked[head.i] \
                and head.is_alpha:
            # "your rainy day essentials" -> "your essentials": the determiner belongs to the thing described.
            candidate -= {i for i in candidate if i < root.i and doc[i].dep_ in ("poss", "det")
                          and doc[i].lower_ not in ("all", "every", "each")}  # "all night writing" -> "writing"
        following = doc[root.i + 1] if root.i + 1 < len(doc) else None
        if root.dep_ == "npadvmod" and following is not None and following.pos_ == "NOUN" and not marked[following.i] \
                and following.head.i == head.i and following.dep_ in ("dobj", "attr") \
                and not any(c.dep_ in ("det", "poss") for c in following.children):
            # "do i rekindle this summer fling": the time describes the object; its determiner stays with it.
            candidate -= {i for i in candidate if i < root.i and doc[i].dep_ == "det"
                          and doc[i].lower_ in ("this", "that", "the", "a", "an")}
        # A place phrase hanging from the time ("today at 9am at the studio") stays: it fits the sentence as well.
        for i in sorted(candidate):
            token = doc[i]
            if i in candidate and token.dep_ == "prep" and not marked[i] and marked[token.head.i] \
                    and (token.lower_ in DETACHABLE_PREPOSITIONS
                         or (token.lower_ == "for" and root.dep_ in ("pobj", "pcomp") and token.head.i == root.i)):
                # "getting up at 4 am for work" -> "getting up for work": a purpose after a time in its own
                # preposition hangs on the verb as well
                candidate -= {t.i for t in token.subtree}
            elif i in candidate and is_link(token) and token.i != root.i:  # a URL hung on the time by the parser
                candidate -= {t.i for t in token.subtree}
        # Words describing the time ("a rainy afternoon") go with it; anything else keeps the subtree.
        # A qualifier of the time's preposition ("even at night", "only on Sundays") goes with it.
        if all(marked[i] or doc[i].dep_ in FUNCTION_DEPS or doc[i].i == head.i
               or (doc[i].dep_ in DESCRIBING_DEPS and marked[doc[i].head.i] and not is_link(doc[i])
                   and (doc[i].dep_ != "advmod" or doc[i].lower_ in TIME_ADVERBS)
                   and not (doc[i].like_num and i > doc[i].head.i))  # "today 0.00 in": an amount, not the time's
               or (doc[i].dep_ == "advmod" and doc[i].lower_ in TIME_ADVERBS and doc[i].head.i == head.i
                   and head.pos_ == "ADP" and doc[i].i < head.i)
               or (doc[i].lower_ in HEDGES and doc[i].dep_ in ("intj", "advmod") and doc[i].head.i == head.i
                   and head.pos_ == "ADP" and head.i < doc[i].i < root.i)  # "in like an hour"
               for i in candidate):
            return candidate
        # Cut only the time words (and their preposition) when what is left hangs on as well without them
        # ("from Last Minute Crew interviewed by MTV" -> "interviewed by MTV"); else generalize a noun ("after a
        # day of shopping" -> "after a certain day shopping", not "after shopping").
        fallback = {t.i for t in root.subtree if marked[t.i]}
        other_objects = [c for c in head.children if c.dep_ in ("pobj", "pcomp") and c.i != root.i]
        if root.dep_ in ("pobj", "pcomp") and not other_objects:  # "At ICA now": "At" keeps its object "ICA"
            fallback.add(head.i)
        left_hanging = [doc[i] for i in candidate - fallback if doc[i].head.i in fallback and not doc[i].is_punct]
        first_time = min(i for i in fallback if marked[i])
        words_before = any(t.i < first_time and t.dep_ in ("compound", "amod", "nmod") for t in left_hanging) and all(
            (t.i < first_time and t.dep_ in ("compound", "amod", "nmod")) or reattaches(t) or is_link(t)
            for t in left_hanging)  # "Live In Concert July 9th (Houston,Tx)" -> "Live In Concert (Houston,Tx)"
        if self.generalize and _is_nominal(root) and root.lower_ not in DEICTIC_WORDS and not words_before \
                and not all(reattaches(t) or is_link(t) for t in left_hanging):
            return None  # a deictic word is an adverbial here: it goes alone ("Rain today 0.00 in" -> "Rain 0.00 in")
        if words_before:
            fallback.discard(head.i)  # the preposition keeps the words before the time ("for 21km tdy" -> "for 21km")
        return fallback

    @staticmethod
    def _debris(doc: Any, cut: set[int], generalized: set[int]) -> set[int]:
        """Punctuation, conjunctions and prepositions the cut leaves dangling, and brackets left with nothing
        inside or without their other half (a generalized expression counts as kept)."""
        extra: set[int] = set()
        if not cut:
            return extra
        # Brackets: a pair whose inside is all cut goes; a pair cut in half keeps both halves.
        stack: list[int] = []
        for token in doc:
            if token.text in ("(", "["):
                stack.append(token.i)
            elif token.text in (")", "]") and stack:
                opening = stack.pop()
                inside = range(opening + 1, token.i)
                if inside and all(i in cut for i in inside):
                    extra |= {opening, token.i}
                elif (opening in cut) != (token.i in cut):
                    cut.discard(opening)
                    cut.discard(token.i)
        gone = (cut | extra) - generalized
        # An article whose noun was cut goes ("Win Free Coffee For a Year" -> not "For a").
        for token in doc:
            if token.i not in gone and token.dep_ in ("det", "predet") and token.lower_ in ("a", "an", "the") \
                    and token.head.i in gone and token.head.i not in generalized and token.head.i != token.i:
                extra.add(token.i)
                gone.add(token.i)
        for token in doc:
            if token.i not in gone and token.text == "+" and token.i and token.i - 1 in gone \
                    and not doc[token.i - 1].whitespace_:
                extra.add(token.i)  # "in 3+ weeks": the "+" of the cut number
                gone.add(token.i)
        # An article left before a link, an emoji or the end, its noun cut ("Me in Abel at 3 am on a Tuesday https://…").
        for token in doc:
            if token.i in gone or token.lower_ not in ("a", "an", "the") or token.i + 1 not in gone:
                continue
            after = next((t for t in doc[token.i + 1:] if t.i not in gone), None)
            if after is None or is_link(after) or EMOJI_ONLY.match(after.text) or after.text in (".", "!", "?"):
                extra.add(token.i)
                gone.add(token.i)
        # A preposition whose objects were all cut goes too ("at 9am" parsed with "am" as the head of "at"), also
        # when what is left of its object's subtree is a phrase of its own ("game at 6:00 vs SE Warren" -> "game vs
        # SE Warren", not "game at vs SE Warren"); so does one that only ever takes a time ("since 2002 cowboys").
        for token in doc:
            objects = [c for c in token.children if c.dep_ in ("pobj", "pcomp")]
            if token.i in gone or token.pos_ not in ("ADP", "SCONJ") or token.dep_ != "prep" or not objects:
                continue
            left = [t for c in objects for t in c.subtree if t.i not in gone]
            beyond = next((t for t in doc[max(t.i for t in token.subtree) + 1:] if t.i not in gone), None)
            if beyond is not None and beyond.pos_ == "NOUN" and beyond.dep_ == "dobj" \
                    and beyond.head.i == token.head.i and beyond.i == max(t.i for t in token.subtree) + 1:
                continue  # "go on late night Adventures": the preposition is the next noun's (see _unit)
            if all(t.i in gone for c in token.children for t in c.subtree) or (
                    all(o.i in gone for o in objects) and token.i + 1 in gone and left
                    and left[0].dep_ == "prep" and left[0].head.i in gone) or (
                    token.lower_ in TIME_ONLY_PREPOSITIONS and token.i + 1 in gone and kind_of(doc[token.i + 1])):
                extra.add(token.i)
                gone.add(token.i)
        for token in doc:
            if token.i in gone or (token.pos_ != "ADP" and token.lower_ not in ("until", "till", "til", "circa")) \
                    or token.dep_ not in ("prep", "ROOT", "mark") \
                    or token.lower_ in PARTICLE_WORDS or token.i + 1 >= len(doc) or token.i + 1 not in gone:
                continue
            nxt = doc[token.i + 1]
            if nxt.pos_ == "ADP" and nxt.lower_ not in HEDGES and not (token.lower_ == "as" and nxt.lower_ == "of"):
                continue  # the cut phrase has its own preposition ("at 2 in the afternoon"); "as of Friday" goes
            after = next((t for t in doc[token.i + 1:] if t.i not in gone), None)
            if after is None or is_link(after) or after.lower_ in VERSUS_WORDS or (
                    not any(c.isalnum() for c in after.text) and after.text not in ("'", '"', "(", "[", "’", "‘", "“")):
                # "i'm out by 12:30 🤷", "At 5:00 - reaction", "until next year 🌀": the time went, its
                # preposition hangs on an emoji, a dash or a link, or on "vs" ("game at 6:00 vs SE Warren")
                extra.add(token.i)
                gone.add(token.i)
        # A word that only frames the time, left without it ("shift trial beginning in July." -> "shift trial.").
        for token in doc:
            if token.i not in gone and token.lower_ in FRAMING_WORDS and token.i + 1 in gone and any(
                    True for _ in token.children) and all(t.i in gone for c in token.children for t in c.subtree):
                extra.add(token.i)
                gone.add(token.i)
        # A conjunction left with adverbs only, its conjunct cut before an emoji, a stop or the end ("took a L but
        # definitely not tonight 😂 shit has me rolling" -> "took a L 😂 shit ...", not "but definitely 😂").
        for token in doc:
            if token.i in gone or token.dep_ != "cc" or token.lower_ not in ("but", "and", "or"):
                continue
            j = token.i + 1
            adverbs = []
            while j < len(doc) and j not in gone and doc[j].pos_ in ("ADV", "PART") \
                    and doc[j].dep_ in ("advmod", "neg"):
                adverbs.append(j)
                j += 1
            if not adverbs or j >= len(doc) or j not in gone:
                continue
            while j < len(doc) and j in gone:
                j += 1
            if j >= len(doc) or EMOJI_ONLY.match(doc[j].text) or doc[j].text in (".", "!", "?", ",") or is_link(doc[j]):
                extra |= {token.i, *adverbs}
                gone |= {token.i, *adverbs}
        kept = [t for t in doc if t.i not in gone]
        position = 0
        while position < len(kept):
            token = kept[position]
            if (token.text in DANGLING_PUNCT or token.dep_ == "cc") and (token.i - 1 in gone or token.i + 1 in gone):
                before = kept[position - 1] if position else None
                after = kept[position + 1] if position + 1 < len(kept) else None
                conjuncts = [c for c in token.head.children if c.dep_ == "conj"]
                if token.dep_ == "cc" and token.i - 1 in gone and (before is None or before.text in (".", "!", "?")):
                    dangling = True  # "its 5:30am and im blowing up" -> "im blowing up", not "and im blowing up"
                elif token.dep_ == "cc":
                    # "Daily and Weekly Winners" -> "Winners", not "And Winners": its first conjunct went.
                    # A conjunct that went keeps the conjunction when a clause joined to it stays ("but it's
                    # 2017 & most of them can't" -> "but most of them can't").
                    dangling = (bool(conjuncts) and all(c.i in gone and all(d.i in gone for d in c.children
                                                                             if d.dep_ == "conj")
                                                        for c in conjuncts)) \
                        or (token.head.i in gone and (before is None or before.is_punct))
                elif after is not None and before is not None and after.text in DANGLING_PUNCT \
                        and token.i + 1 in gone and after.i - 1 in gone:
                    # Two separators meet over the cut: a parenthetical cut between commas takes both ("brand,
                    # Flower 2000, delivers" -> "brand delivers"); else the first stays ("- Now, that" -> "- that").
                    victims = [token, after] if token.text == after.text == "," else [after]
                    extra |= {t.i for t in victims}
                    gone |= {t.i for t in victims}
                    kept = [t for t in kept if t.i not in gone]
                    continue
                else:
                    # A separator that starts or ends the post (before its links and emoji: "in Spanish, for
                    # tomorrow https://..."), or meets the end of a sentence, goes; so does a
                    # comma between describing words whose second went ("a full-time, office hours job").
                    dangling = before is None or after is None or before.is_punct \
                        or (after.is_punct and after.text not in ("(", "[", '"', "'")) \
                        or (token.i + 1 in gone and all(is_link(t) or EMOJI_ONLY.match(t.text)
                                                        for t in kept[position + 1:])) \
                        or (token.text == "," and token.i + 1 in gone and after.pos_ in ("NOUN", "PROPN")
                            and before.head.i == after.i
                            and all(doc[j].head.i == after.i or token.i < doc[j].head.i < after.i
                                    for j in range(token.i + 1, after.i)))
                if dangling:
                    extra.add(token.i)
                    gone.add(token.i)
                    kept.pop(position)
                    continue
            position += 1
        # A comma after the mentions that open a reply, once the words before it went ("@user Here lately, I've" ->
        # "@user I've").
        for position, token in enumerate(kept):
            if token.text == "," and token.i - 1 in gone and position and all(
                    t.text.startswith("@") for t in kept[:position]):
                extra.add(token.i)
                gone.add(token.i)
        # A sentence cut between two full stops leaves one ("so much fun! Especially for a whole week." -> "so much
        # fun!", not "fun!.").
        for previous, token in itertools.pairwise(kept):
            if token.text in (".", "!", "?") and previous.text[-1:] in ".!?" and token.i - previous.i > 1 \
                    and all(j in gone for j in range(previous.i + 1, token.i)):
                extra.add(token.i)
                gone.add(token.i)
        return extra

    def anonymize_doc(self, norm: NormalizedText, doc: Any,
                      plan: tuple[set[int], dict[int, str], set[int]] | None = None) -> TemporalResult:
        """Apply ``plan`` (default: :meth:`plan`) to the post; ``plan`` lets a baseline cut other tokens."""
        cut, replace, generalized = plan if plan is not None else self.plan(doc)
        if not cut and not replace:
            return TemporalResult(norm.original, original=norm.original)
        removed_pieces: set[int] = set()
        replaced_pieces: dict[int, str] = {}
        for piece_index, piece in enumerate(norm.pieces):
            tokens = [t.i for t in doc.char_span(piece.norm_start, piece.norm_end, alignment_mode="expand") or []]
            if not tokens:
                continue
            if piece.original in (".", "!", "?") and any(any(c.isalnum() for c in doc[i].text) for i in tokens) \
                    and _ends_sentence(norm, piece_index):
                continue  # a full stop the tokenizer glued to a cut word ("and Aug. Was ...") still ends its sentence
            firsts = [i for i in tokens if i in replace and piece.norm_start <= doc[i].idx < piece.norm_end]
            if firsts:
                phrase = replace[firsts[0]]
                tail = [i for i in tokens if i > firsts[0] and i not in cut and i not in replace]
                if tail and piece.normal == piece.original:
                    phrase += piece.original[doc[tail[0]].idx - piece.norm_start:]  # "today's been" -> "it's been"
                following = norm.pieces[piece_index + 1].original if piece_index + 1 < len(norm.pieces) else ""
                shouting = len(piece.original) > 1 or (len(following) > 1 and following.isupper())
                if piece.original.isupper() and shouting:
                    phrase = phrase.upper()  # "HOW MY FUTURE LOOKS" -> "HOW MY TIME LOOKS"
                elif (not piece.original[:1].islower() and _starts_sentence(norm.original, piece.start)) or (
                        all(j in removed_pieces for j in range(piece_index)) and piece_index
                        and phrase[:1].islower()):
                    phrase = phrase[0].upper() + phrase[1:]  # "#TuesdayThoughts - The week is" -> "It is"
                replaced_pieces[piece_index] = phrase
            elif all(i in cut or i in replace for i in tokens):
                removed_pieces.add(piece_index)
        text, offsets = norm.restore_aligned(removed_pieces, replaced_pieces)
        text = _recapitalize(norm, removed_pieces, text, offsets)
        return TemporalResult(
            text,
            removed=[norm.pieces[i].original for i in sorted(removed_pieces)],
            generalized=[(norm.pieces[i].original, phrase) for i, phrase in sorted(replaced_pieces.items())],
            removed_spans=[(norm.pieces[i].start, norm.pieces[i].end) for i in sorted(removed_pieces)],
            generalized_spans=[(norm.pieces[i].start, norm.pieces[i].end) for i in sorted(replaced_pieces)],
            cut_tokens=frozenset(cut), replaced_tokens=frozenset(generalized), offsets=offsets,
            original=norm.original,
        )
