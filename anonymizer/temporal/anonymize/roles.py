"""What a time word is doing in its sentence, read from the parse: a subject, a stretch of time or a habit, an
argument its sentence cannot lose, a clause of its own; and the small facts about tokens the rewrites share."""

from __future__ import annotations

from typing import Any

from anonymizer.temporal.anonymize.lexicon import (
    ADJECTIVAL_TIME_WORDS,
    ANCHORING_PREPOSITIONS,
    ANCHORS_AFTER,
    BE_FORMS,
    COUNT_WORDS,
    DAY_WORDS,
    DETACHABLE_PREPOSITIONS,
    DURATION_UNITS,
    EVERY_UNITS,
    FREQUENCY_WORDS,
    FUNCTION_DEPS,
    MEASURED_WORDS,
    NOMINAL_POS,
    NOUN_PHRASE_DEPS,
    NOUN_PHRASE_POS,
    OBJECT_COMPLEMENT_VERBS,
    ORDINAL_WORD,
    ORDINAL_WORDS,
    PERIOD_WORDS,
    PLURAL_TIME_NOUNS,
    POSSESSIVES,
    QUANTITY_WORDS,
    REATTACHING_DEPS,
    STRETCH_UNITS,
    SUBJECT_DEPS,
    THINKING_VERBS,
    TIME_OF_DAY_WORDS,
    UNIT_WORDS,
    WEEKDAY_FORMS,
)
from anonymizer.temporal.normalize import EMOJI_ONLY
from anonymizer.temporal.tagging.words import (
    EVALUATIVE_WORDS,
    GLUED_DURATION,
    MAKE_FORMS,
    is_link,
    kind_of,
)


def reattaches(token: Any) -> bool:
    """Whether ``token`` reads as well hanging on the word above its head, once its head is cut."""
    return token.dep_ in REATTACHING_DEPS or (token.dep_ == "prep" and token.lower_ in DETACHABLE_PREPOSITIONS)


def is_nominal(token: Any) -> bool:
    """A time noun can stand in an argument position and be generalized; an adverb or an adjective
    ("now", "daily") cannot: it is cut."""
    return token.pos_ in NOMINAL_POS and token.lower_ not in ADJECTIVAL_TIME_WORDS


def describes(token: Any, run: set[int]) -> bool:
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


def neutral_phrase(root: Any) -> str:
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


def neutral_noun(root: Any) -> str:
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


def article_for(word: str) -> str:
    return "an" if word[:1].lower() in "aeiou" else "a"


def is_duration(root: Any, tokens: list[int]) -> bool:
    """Whether the noun phrase of ``root`` is a stretch of time ("83 days", "a few hours", "7months") rather than a
    point ("Friday", "the day")."""
    doc = root.doc
    if neutral_phrase(root) == "some time":
        return True
    lower = root.lower_
    quantified = any(doc[i].like_num or doc[i].lower_ in ("few", "couple", "several", "more", "many")
                     for i in tokens if i != root.i)
    if lower in PERIOD_WORDS | DURATION_UNITS | UNIT_WORDS | {"day", "days"} and root.head.lower_ == "been":
        return True  # "its been month since", "It's been a year": how long, not when
    return lower in DURATION_UNITS and quantified


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


def _counts(token: Any) -> bool:
    """A number that counts ("12", "two", "2.5"), not one that orders ("first", "2nd")."""
    return token.like_num and token.lower_ not in ORDINAL_WORDS and ORDINAL_WORD.match(token.text) is None


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



def how_long_with_spill(doc: Any, group: list[int]) -> bool:
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


def verb_agrees_plural(root: Any) -> bool:
    head = root.head
    return head.tag_ == "VBP" or head.lower_ in ("are", "were", "have") or any(
        c.dep_ in ("aux", "auxpass") and (c.tag_ == "VBP" or c.lower_ in ("are", "were", "have"))
        for c in head.children)  # "Weekends are made for": the passive's auxiliary agrees too


def next_word(doc: Any, i: int) -> Any:
    return doc[i + 1] if i + 1 < len(doc) else None


def named_by_its_clause(root: Any) -> bool:
    """A fragment opening a sentence that names a time by a clause after it: "Best night I've had in a long time"
    (parsed with a relative clause, or with the time as an adverbial of "had" before its subject)."""
    if not first_word(root.doc[min(t.i for t in root.subtree)]):
        return False
    if root.dep_ == "ROOT":
        return any(c.dep_ == "relcl" and c.i > root.i for c in root.children)
    head = root.head
    return root.dep_ == "npadvmod" and head.i > root.i + 1 and head.pos_ == "VERB" \
        and any(c.dep_ == "amod" and (c.tag_ == "JJS" or c.lower_ in ("best", "worst", "favorite", "favourite"))
                for c in root.children) \
        and any(c.dep_ == "nsubj" and root.i < c.i < head.i and c.pos_ == "PRON" for c in head.children)


def needs_its_words(root: Any, marked: list[bool]) -> bool:
    """Whether a time phrase the parser hung on as an adjunct is one its sentence cannot lose: the subject of a
    finite verb without one ("July 22 needs to hurry up"), the measure of "away" or "shy", the subject of an
    infinitive ("ready for today to be over"), a time noun with its own clause ("the same year I started
    college"), a time with "off" ("all week off")."""
    doc = root.doc
    if not is_nominal(root) or kind_of(root) is None:
        return False
    subtree = sorted(t.i for t in root.subtree)
    following = doc[subtree[-1] + 1] if subtree[-1] + 1 < len(doc) else None
    if root.dep_ == "npadvmod" and (stands_as_subject(root, subtree) or named_by_its_clause(root)):
        return True
    if root.dep_ == "npadvmod" and root.head.lower_ in MEASURED_WORDS and root.head.i > root.i:
        return True
    if time_off(root):
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
    return bool(own_clause(root, marked))


def time_off(root: Any) -> bool:
    """"the day off", "all week off", "two days off": time away from work ("this year off" is no such thing)."""
    doc = root.doc
    nxt = doc[root.i + 1] if root.i + 1 < len(doc) else None
    return nxt is not None and nxt.lower_ == "off" and nxt.pos_ in ("ADP", "ADV", "PART") and root.dep_ != "pobj" \
        and root.lower_ in ("day", "days", "week", "weeks", "weekend", "night", "nights", "morning", "afternoon") \
        and not any(c.lower_ in ("this", "that", "next", "last") for c in root.children)


def own_clause(root: Any, marked: list[bool]) -> list[Any]:
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
            and nxt.head.i > nxt.i and (nxt.head.i != root.head.i or first_word(root.left_edge)) \
            and any(c.dep_ == "det" and c.lower_ in ("the", "that") for c in root.children):
        return [nxt.head]
    return []


def is_function_word(token: Any) -> bool:
    return token.dep_ in FUNCTION_DEPS or token.is_punct


def opens_sentence(root: Any) -> bool:
    """Whether the phrase of ``root`` is the first thing in its sentence."""
    first = root.left_edge
    return first.is_sent_start or first.i == 0 or (first.nbor(-1).is_punct and first.nbor(-1).text in ".!?")


def subtree_root(doc: Any, tokens: set[int]) -> int:
    """The token of ``tokens`` whose head lies outside them (the subtree's root)."""
    return next(i for i in sorted(tokens) if doc[i].head.i not in tokens or doc[i].head.i == i)


def is_hashtag_word(token: Any) -> bool:
    doc = token.doc
    return token.i > 0 and doc[token.i - 1].text == "#" and not doc[token.i - 1].whitespace_


def is_content(token: Any) -> bool:
    """A word of the post (not punctuation, a link, or the word of a hashtag)."""
    return any(c.isalnum() for c in token.text) and not is_link(token) and not is_hashtag_word(token)


def kept_with_sentence(token: Any, marked: list[bool]) -> bool:
    """What stays when a sentence of time only goes: links, and hashtags that are not time words."""
    doc = token.doc
    if token.text == "#" and token.i + 1 < len(doc) and not token.whitespace_:
        return not marked[token.i + 1]
    if is_link(token) or (not any(c.isalnum() for c in token.text) and not token.is_punct):
        return True  # links and emoji ("Every Sunday 😇 https://…" -> "😇 https://…")
    return is_hashtag_word(token) and not marked[token.i]


def describing_word(token: Any) -> bool:
    """A word the recognizer took into a time that says something else ("a new day", "a long day")."""
    return token.lower_ in EVALUATIVE_WORDS


def first_word(token: Any) -> bool:
    """Whether ``token`` is the first word of its sentence (past @mentions, links and punctuation)."""
    return all(t.is_punct or is_link(t) or t.text in ("#", "@") or not any(c.isalnum() for c in t.text)
               for t in token.doc[token.sent.start:token.i])  # emoji are no words: "🍉  Happy #TreaTuesday"
