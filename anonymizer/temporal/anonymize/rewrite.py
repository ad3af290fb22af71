"""The words a person would put where a time stood, chosen by its role: a rewrite by role ("your Saturday" ->
"your day"), a fitting rewrite ("it", "a while", "counting down"), a judged time, a greeting, a cut instead of a
neutral phrase."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from anonymizer.temporal.anonymize.lexicon import (
    ADJECTIVE_NOUNS,
    BARE_GREETINGS,
    BE_FORMS,
    CLAUSE_ADVERBS,
    CLOCK_HEDGES,
    COMPANY_PREPOSITIONS,
    COUNTDOWN_WORDS,
    DAY_WORDS,
    DEICTIC_WORDS,
    DURATION_HEDGES,
    EDGE_WORDS,
    FEELING_VERBS,
    FRAGMENT_PREPOSITIONS,
    GREETED,
    JUDGING_WORDS,
    KEPT_DETERMINERS,
    LENGTH_WORDS,
    MOTION_VERBS,
    OBJECT_PRONOUNS,
    OCCASION_NOUNS,
    OCCASION_VERBS,
    ORDINAL_WORD,
    ORDINAL_WORDS,
    PARTICLES,
    PERSON_VERBS,
    PLACEHOLDER_SUBJECTS,
    PLACEHOLDER_WORDS,
    PLURAL_DAY_NOUNS,
    PLURAL_TIME_NOUNS,
    POSSESSIVES,
    START_WORDS,
    SUBJECT_DEPS,
    TIME_TAKING_VERBS,
    WEEKDAY_FORMS,
    WHILE_HEADS,
    YEAR_NUMBER,
)
from anonymizer.temporal.anonymize.roles import (
    article_for,
    first_word,
    is_duration,
    is_hashtag_word,
    is_nominal,
    named_by_its_clause,
    neutral_noun,
    next_word,
    own_clause,
    reattaches,
    stands_as_subject,
    time_off,
    verb_agrees_plural,
)
from anonymizer.temporal.normalize import EMOJI_ONLY
from anonymizer.temporal.tagging.words import (
    DATE_SHAPE,
    DURATION_WORDS,
    MODIFIER_WORDS,
    MONTHS,
    PART_OF_HEADS,
    is_link,
    kind_of,
)


def rewrite_by_role(root: Any, tokens: list[int], marked: list[bool], *,
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
    if not is_nominal(root) or not root.is_alpha or root.pos_ == "NUM":
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
    return _keeping_its_describing_words(root, tokens, marked, prune=prune)


def _keeping_its_describing_words(root: Any, tokens: list[int], marked: list[bool], *,
                                  prune: bool) -> tuple[set[int], dict[int, str]] | None:
    """The rest of :func:`rewrite_by_role`: a time noun with its describing words or possessive keeps them with a
    neutral noun ("a good sunday" -> "a good day"), nouns in front naming an event stay ("Date night" -> "Date"),
    a bare plural or a noun after an adjective gets its own word; None for one neutral phrase."""
    doc = root.doc
    head = root.head
    plural = root.tag_ in ("NNS", "NNPS") or root.lower_ in PLURAL_TIME_NOUNS
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
            return set(), {root.i: neutral_noun(root)}  # "Perfect day for training" -> "Perfect time for training"
        others = [doc[i].lower_ for i in tokens if i != root.i]
        if not plural and others in (["a"], ["an"]) and tokens[0] < root.i \
                and any(c.dep_ == "prep" and c.lower_ == "with" for c in root.children):
            # "A night with Morgan and Nicole was much needed" -> "Time with Morgan and Nicole was much needed"
            return {tokens[0]}, {root.i: "Time" if doc[tokens[0]].text[:1].isupper() else "time"}
        if plural and tokens == [root.i] and root.lower_ in PLURAL_DAY_NOUNS and first_word(root) \
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
    replace = {root.i: neutral_noun(root)}
    kept = [i for i in tokens if i not in cut]
    if kept and doc[kept[0]].lower_ in ("a", "an") and replace[root.i].endswith("s"):
        replace[root.i] = replace[root.i][:-1]  # "Had a great 2.5 years with you" -> "Had a great time with you"
    if kept and doc[kept[0]].lower_ in ("a", "an") and len(kept) > 1:
        following = replace.get(kept[1], doc[kept[1]].text)
        if article_for(following) != doc[kept[0]].lower_:
            replace[kept[0]] = article_for(following)
    return cut, replace


Rewrite = tuple[set[int], dict[int, str]]  # (tokens to cut, token -> the words that replace it)


@dataclass(frozen=True)
class _TimePhrase:
    """A time argument :func:`fitting_rewrite` finds words for, with what its steps read."""

    root: Any
    tokens: list[int]
    marked: list[bool]
    prune: bool
    doc: Any
    head: Any
    start: int
    end: int
    following: Any  # the word after the phrase, or None
    words: list[Any]
    plural: bool
    duration: bool  # a stretch of time ("83 days"), not a point
    every: set[int]  # the phrase's tokens

    @classmethod
    def of(cls, root: Any, tokens: list[int], marked: list[bool], prune: bool) -> _TimePhrase:
        doc = root.doc
        start, end = min(tokens), max(tokens)
        return cls(root, tokens, marked, prune, doc, root.head, start, end, next_word(doc, end),
                   [doc[i] for i in tokens], root.tag_ in ("NNS", "NNPS") or root.lower_ in PLURAL_TIME_NOUNS,
                   is_duration(root, tokens), set(tokens))

    def phrase(self, text: str, cut_also: set[int] = frozenset()) -> Rewrite:
        """The phrase's tokens (and ``cut_also``) cut, ``text`` in place of its first."""
        return (self.every | set(cut_also)) - {self.start}, {self.start: text}


def fitting_rewrite(root: Any, tokens: list[int], marked: list[bool], *,
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
    if not is_nominal(root) or (root.pos_ == "NUM" and not is_duration(root, tokens) and not clock_after_be) \
            or (all(kind_of(doc[i]) is None for i in tokens) and not part_of_a_time):
        # not a time word ("Crew" of "Last Minute Street Crew"): nothing of these fits; "the rest of the week" is one
        return None
    if part_of_a_time:
        tokens = sorted(set(tokens) | {t.i for t in root.subtree if t.i > root.i and marked[t.i]})
    return _fit(_TimePhrase.of(root, tokens, marked, prune))


def _fit(slot: _TimePhrase) -> Rewrite | None:
    """The first of the steps that finds words for the phrase; for a stretch of time or what is left, the last
    step decides."""
    for step in (_off_own_clause_or_countdown, _after_a_copula_or_as_an_adverbial, _as_a_subject, _a_judged_stretch):
        if (rewrite := step(slot)) is not None:
            return rewrite
    if slot.duration:
        return _a_stretch_of_time(slot)
    return _a_complement_object_or_fragment(slot)


def _off_own_clause_or_countdown(slot: _TimePhrase) -> Rewrite | None:
    """Time off, a time with its own clause, the subject of an infinitive, the last stretch before something
    ("last chance") and countdowns ("counting down", "not long")."""
    root, marked, doc, head, start, end = slot.root, slot.marked, slot.doc, slot.head, slot.start, slot.end
    following, words, plural, duration, every = slot.following, slot.words, slot.plural, slot.duration, slot.every
    phrase = slot.phrase
    if time_off(root):
        return phrase("time")  # "I get all week off" -> "I get time off", "Day off in Amsterdam" -> "Time off in ..."
    if own_clause(root, marked) and (not duration or any(w.lower_ == "the" for w in words)):
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
    to_go = following is not None and following.lower_ == "to" and next_word(doc, following.i) is not None \
        and next_word(doc, following.i).lower_ == "go"  # "23 Hours to go!"
    countdown = following is not None and following.lower_ in COUNTDOWN_WORDS and (following.pos_ != "PART" or to_go) \
        and not any(w.lower_ in ("a", "an") for w in words) and (  # "it was a nice 10 hours till it lasted": none
        any(w.lower_ in ("more", "few", "couple") or w.like_num for w in words if w.i != root.i) or duration)
    if countdown and (duration or root.lower_ in ("day", "days", "hour", "hours", "week", "weeks", "sleeps")):
        # "83 days to my birthday!!" -> "Counting down to my birthday!!": says an event is coming, not when
        opening = first_word(doc[start]) and following.lower_ in ("to", "till", "until", "til") and not to_go
        return phrase("counting down" if opening else "not long")
    if any(w.lower_ == "more" for w in words) and duration and root.dep_ == "ROOT" \
            and (following is None or not following.is_alpha):
        return phrase("not long now")  # "5 more days!"
    return None


def _after_a_copula_or_as_an_adverbial(slot: _TimePhrase) -> Rewrite | None:
    """The complement of a copula after a subject that is no placeholder ("is on", "is coming up"), a bare
    deictic word (cut), a motion's stretch ("far"), "its time", a place or a wish or a diary verb after the time."""
    root, tokens, prune, doc, head, start = slot.root, slot.tokens, slot.prune, slot.doc, slot.head, slot.start
    end, following, words, plural, duration = slot.end, slot.following, slot.words, slot.plural, slot.duration
    every, phrase = slot.every, slot.phrase
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
    if stands_as_subject(root, tokens) and prune and root.dep_ == "npadvmod" and first_word(doc[start]) \
            and head.pos_ == "VERB" and (head.tag_ in ("VB", "VBP") or head.lower_ in PERSON_VERBS) \
            and head.lower_ not in BE_FORMS | {"have", "has", "had"}:
        # "Tomorrow get fresh with my boy" -> "Get fresh with my boy", "Last night dreamt that ..." -> "Dreamt that
        # ...": the writer is the verb's subject, left out as in a diary (readers: "They get fresh", "It dreamt")
        return every, {}
    return None


def _as_a_subject(slot: _TimePhrase) -> Rewrite | None:
    """A subject: "it", "they" for a plural verb, "that"/"this"/"that time" for a demonstrative."""
    root, tokens, head, end, words, phrase = slot.root, slot.tokens, slot.head, slot.end, slot.words, slot.phrase
    if stands_as_subject(root, tokens):
        if verb_agrees_plural(root):
            return phrase("they")
        demonstrative = [w.lower_ for w in words if w.dep_ == "det" and w.lower_ in ("this", "that", "those")]
        if demonstrative:
            # "When that day comes" -> "When that time comes"; "those 36 minutes just made my day" -> "that just
            # made my day"
            return phrase("that time" if head.i > end + 1 and demonstrative[0] == "that" else
                          "this" if demonstrative[0] == "this" else "that")
        return phrase("it")
    return None


def _a_judged_stretch(slot: _TimePhrase) -> Rewrite | None:
    """A stretch of time judged by an adjective ("a good hour" -> "a good time")."""
    root, words, duration, every = slot.root, slot.words, slot.duration, slot.every
    judging = [w for w in words if w.dep_ == "amod" and w.pos_ == "ADJ" and not w.like_num and kind_of(w) is None
               and w.lower_ not in MODIFIER_WORDS | LENGTH_WORDS]
    if duration and judging and any(w.lower_ in ("a", "an") for w in words):
        # "That wasn't a good hour." -> "That wasn't a good time." (the adjective judges the time; "a while" would not)
        return (every - {judging[0].i, root.i} - {w.i for w in words if w.lower_ in ("a", "an")}), {root.i: "time"}
    return None


def _a_stretch_of_time(slot: _TimePhrase) -> Rewrite | None:
    """A stretch of time: "a while" after "for", "in", "been" (with its hedges), "a bit" / "a while" as a
    measure, "some time" as an object; tied to now ("in the past 2 hours") it goes. None: nothing fits."""
    root, prune, doc, head, start, end = slot.root, slot.prune, slot.doc, slot.head, slot.start, slot.end
    words, every, phrase = slot.words, slot.every, slot.phrase
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


def _a_complement_object_or_fragment(slot: _TimePhrase) -> Rewrite | None:
    """The complement of "it is" ("time", "another day"), an object ("time", "it", or cut before a phrase), a
    fragment naming a time by its clause, with company or with a place. None: nothing fits."""
    root, marked, prune, doc, head, start = slot.root, slot.marked, slot.prune, slot.doc, slot.head, slot.start
    end, following, words, plural, every = slot.end, slot.following, slot.words, slot.plural, slot.every
    phrase = slot.phrase
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
                not next_word(doc, max(t.i for t in named[0].subtree))
                or not next_word(doc, max(t.i for t in named[0].subtree)).is_alpha
                or next_word(doc, max(t.i for t in named[0].subtree)).dep_ in ("prep", "cc", "punct")):
            # "Ride the Year of the Horse with us" -> "Ride it with us", not "Ride a certain time of the Horse"
            return phrase("it", {t.i for t in named[0].subtree})
        determined = any(w.dep_ == "det" for w in words) or head.lower_ in FEELING_VERBS
        after_particle = start > 0 and doc[start - 1].dep_ == "prt"  # "to end off the week": not "end off it"
        if determined and not after_particle and (following is None or (following.pos_ not in ("NOUN", "PROPN", "ADJ",
                                                                                               "NUM")
                                                  and following.lower_ != "of")):
            return phrase("it")  # "predicted the future" -> "predicted it"
        return None
    if root.dep_ == "ROOT" and prune and not first_word(doc[start]) \
            and any(w.lower_ in ("this", "next", "last", "that") for w in words):
        return every, {}  # "Back to CR this weekend for Kristi's birthday!": the parser made the time the root
    if named_by_its_clause(root):
        # "Best night I've had in a long time" -> "Best time I've had in a long time": the fragment names a time by
        # what happened in it
        kept = {w.i for w in words if w.i < root.i and w.dep_ in ("amod", "det") and kind_of(w) is None
                and not w.like_num and w.lower_ not in ("this", "last", "next", "that")}
        return every - kept - {root.i}, {root.i: "time"}
    if root.dep_ == "ROOT" and prune and first_word(doc[start]):
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


def cut_instead_of_a_neutral_phrase(root: Any, run: set[int], marked: list[bool]) -> set[int] | None:
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


def judged_time(root: Any, phrase: list[int], marked: list[bool]) -> str | None:
    """The neutral noun for a time judged by an adjective after "for" or "to" ("Thanks for a great weekend with
    you" -> "for a great time with you", "Here's to a fun Friday" -> "to a fun day"), or None."""
    doc = root.doc
    head = root.head
    after_preposition = root.dep_ == "pobj" and head.lower_ in ("for", "to")
    # "Enjoy a lovely Sunday with family", "Wishing you a wonderful weekend": the object of the verb before it
    after_verb = root.dep_ in ("dobj", "npadvmod") and head.pos_ == "VERB" and head.i < phrase[0] and all(
        doc[i].pos_ == "PRON" for i in range(head.i + 1, phrase[0]))
    year = YEAR_NUMBER.match(root.text) is not None and after_preposition  # "Here's to a great 2015 with you"
    if not (after_preposition or after_verb) or not (root.is_alpha or year) or not (is_nominal(root) or year) \
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
        return neutral_noun(root)  # as for the other objects: "Have a great weekend" -> "Have a great day"
    return "day" if root.lower_ in WEEKDAY_FORMS or root.lower_ in DEICTIC_WORDS else "time"


def not_of_the_time(doc: Any, marked: list[bool], cut: set[int], replace: dict[int, str]) -> set[int]:
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


def edge_of(root: Any, tokens: list[int], marked: list[bool]) -> str | None:
    """"the end" / "the start" for the last or first stretch of time of a thing named after it ("the last hour of
    the transfer window", "the first day of school"), when the thing is no time; else None."""
    doc = root.doc
    edges = [doc[i] for i in tokens
             if doc[i].dep_ == "amod" and doc[i].head.i == root.i and doc[i].lower_ in EDGE_WORDS]
    if len(edges) != 1 or not is_nominal(root) or root.lower_ in DEICTIC_WORDS:
        return None
    if any(not (doc[i].dep_ in ("det", "amod") or i == root.i) or (doc[i].dep_ == "det" and doc[i].lower_ != "the")
           for i in tokens):
        return None  # "this last week of June": more than the edge
    of = [c for c in root.children if c.dep_ == "prep" and c.lower_ == "of" and not marked[c.i] and c.i > root.i]
    if not of or not any(c.dep_ in ("pobj", "pcomp") and not marked[c.i] for c in of[0].children):
        return None
    return EDGE_WORDS[edges[0].lower_]


def start_word_before(doc: Any, tokens: list[int]) -> int | None:
    """The word right before a time phrase that says when something starts ("starting Feb 9.", "beg. 20 Jan:"), when
    the phrase ends its clause; else None. "soon" says the same without the date."""
    first, last = min(tokens), max(tokens)
    opener = first - 2 if first > 1 and doc[first - 1].text == "." else first - 1  # "beg", "." as two tokens
    if opener < 0 or doc[opener].lower_ not in START_WORDS:
        return None
    if last + 1 < len(doc) and (doc[last + 1].is_alpha or doc[last + 1].like_num) and not doc[last].text.endswith("."):
        return None
    return opener


def describing_time(token: Any, marked: list[bool]) -> set[int] | None:
    """The words of a time noun that only describes the noun right after it, parsed as its compound or (a gerund
    taken for a verb) its subject: "summer reading", "summer classes", "Last Night Episode"; None otherwise. Its
    own words must all be times ("a rainy day essentials" keeps its rewrite by role)."""
    head = token.head
    if not marked[token.i] or not is_nominal(token) or not token.is_alpha or head.i != token.i + 1 \
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


def bare_greeting(token: Any, marked: list[bool]) -> str | None:
    """The greeting a bare part of the day stands for ("Morning all!" -> "Hello", "Night all." -> "Take care"),
    when it is marked as a time, opens its sentence and is followed by nothing, punctuation, emoji, a link or a
    vocative ("you lot", "all", "guys") that ends the phrase; else None ("Morning run done", "Night shift again")."""
    greeting = BARE_GREETINGS.get(token.lower_)
    if greeting is None or not marked[token.i] or is_hashtag_word(token) or not first_word(token):
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
