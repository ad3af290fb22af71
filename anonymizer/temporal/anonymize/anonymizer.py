"""The anonymizer: plans, for every time expression of a parsed post, what to cut and what to replace, then
applies the plan to the post as written."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from anonymizer.temporal.anonymize.debris import dangling_debris, emptied_slots
from anonymizer.temporal.anonymize.lexicon import (
    ADJUNCT_DEPS,
    BE_FORMS,
    COPULA_ADVERBS,
    COPULA_FRAME_DEPS,
    COUNT_WORDS,
    COUNTDOWN_WORDS,
    DEICTIC_WORDS,
    DESCRIBING_DEPS,
    DETACHABLE_PREPOSITIONS,
    FAREWELL_WORDS,
    FUNCTION_DEPS,
    GREETING_CLOSERS,
    GREETING_OPENERS,
    HEDGES,
    NOUN_PHRASE_DEPS,
    ONE_WORD_GREETINGS,
    PERIOD_WORDS,
    PLACEHOLDER_WORDS,
    POSSESSIVES,
    PRECISION_ADVERBS,
    PREPOSITION_HEAD_DEPS,
    QUANTITY_DEPS,
    START_END_VERBS,
    TIME_ADVERBS,
    VOCATIVES,
)
from anonymizer.temporal.anonymize.result import TemporalResult, ends_sentence, recapitalize, starts_sentence
from anonymizer.temporal.anonymize.rewrite import (
    bare_greeting,
    cut_instead_of_a_neutral_phrase,
    describing_time,
    edge_of,
    fitting_rewrite,
    judged_time,
    not_of_the_time,
    rewrite_by_role,
    start_word_before,
)
from anonymizer.temporal.anonymize.roles import (
    describes,
    describing_word,
    first_word,
    how_long_with_spill,
    is_content,
    is_function_word,
    is_hashtag_word,
    is_nominal,
    is_what_a_complement_is_about,
    kept_with_sentence,
    needs_its_words,
    neutral_noun,
    neutral_phrase,
    opens_sentence,
    reattaches,
    says_how_long_or_often,
    subtree_root,
)
from anonymizer.temporal.normalize import EMOJI_ONLY, NormalizedText, normalize
from anonymizer.temporal.patterns import subtree_pattern
from anonymizer.temporal.tagging.tagger import TimeTagger, runs
from anonymizer.temporal.tagging.words import (
    DEFAULT_KEEP_KINDS,
    KINDS,
    is_link,
    kind_of,
)


@dataclass
class _Plan:
    """A plan being made for one post (see :meth:`TemporalAnonymizer.plan`); the rules change it in place."""

    doc: Any
    marked: list[bool]
    cut: set[int] = field(default_factory=set)  # tokens to cut
    replace: dict[int, str] = field(default_factory=dict)  # token -> the phrase in its place
    generalized: set[int] = field(default_factory=set)  # the tokens of the generalized runs
    handled: set[int] = field(default_factory=set)  # tokens a rule has done (whole units, sentences)
    keep: set[int] = field(default_factory=set)  # words a rule keeps whatever the debris pass thinks of them


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
                if says_how_long_or_often(doc, sorted(group)) or how_long_with_spill(doc, sorted(group)):
                    for i in group:
                        marked[i] = False
        return marked

    def patterns_in(self, doc: Any) -> list[str | None]:
        """The pattern of every time expression's removable subtree (None: an argument, not removable)."""
        marked = self.time_marks(doc)
        return [None if unit is None else subtree_pattern(doc, subtree_root(doc, unit), unit, marked)
                for _, _, unit in self._expressions(doc, marked)]

    def plan(self, doc: Any) -> tuple[set[int], dict[int, str], set[int]]:
        """Token indices to cut; the first token of each generalized run with its phrase (the run's other
        tokens are in the cut set); and all tokens of the generalized runs."""
        marked = self.time_marks(doc)
        p = _Plan(doc, marked)
        # Whole units first: a greeting with a time word, a clause that only says when, a sentence of time only.
        if any(marked):
            p.handled = self._whole_units(doc, marked, p.cut, p.replace, p.generalized)
        if self.prune:
            self._describing_times(p)
        for root, run, unit in self._expressions(doc, marked):
            if root.i not in p.handled:
                self._plan_expression(p, root, run, unit)
        return self._finish(p)

    def _describing_times(self, p: _Plan) -> None:
        """Times that only describe the thing after them go alone ("excited about summer reading")."""
        doc, marked, cut, handled, keep = p.doc, p.marked, p.cut, p.handled, p.keep
        for token in doc:
            if token.i not in handled and (modifier := describing_time(token, marked)) is not None:
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

    def _plan_expression(self, p: _Plan, root: Any, run: set[int], unit: set[int] | None) -> None:
        """One time expression: the cases settled before its role (a stretch "of" something, a time noun joined to
        another, "Today's my", "ends tomorrow"), then :meth:`_plan_by_role`."""
        doc, marked, cut, replace, generalized, keep = p.doc, p.marked, p.cut, p.replace, p.generalized, p.keep
        quantity = self._quantity_of(root, run, marked) if self.prune else None
        if quantity is not None:
            cut |= quantity  # "after 4+ hours of queuing" -> "after queuing"
            return
        if unit is not None and self.known_patterns is not None and subtree_pattern(
                doc, subtree_root(doc, unit), unit, marked) not in self.known_patterns:
            unit = None  # an unknown shape: not pruned
        after_run = doc[max(run) + 1] if max(run) + 1 < len(doc) else None
        if self.prune and run == {root.i} and root.dep_ == "conj" and root.pos_ in ("NOUN", "PROPN") \
                and root.head.dep_ in ("nmod", "compound") and root.head.head.i == root.i + 1 \
                and not marked[root.head.i] and not marked[root.i + 1]:
            # A time noun joined to another noun in front of a third only describes it: it goes alone, its
            # conjunction stays ("busy with work and summer classes" -> "with work and classes").
            cut.add(root.i)
            keep |= {c.i for c in root.head.children if c.dep_ == "cc" and c.i < root.i}
            return
        if self.generalize and root.lower_ in ("today", "tonight", "tomorrow") and root.i + 2 < len(doc) \
                and doc[root.i + 1].lower_ in ("'s", "’s") and run == {root.i, root.i + 1} \
                and doc[root.i + 2].lower_ in POSSESSIVES | {"a", "an", "the"}:
            # "Crazy That Today's My B-Day" -> "That It's My B-Day": "'s" is "is" here
            replace[root.i] = "It" if root.text[:1].isupper() else "it"
            generalized.add(root.i)
            return
        if self.generalize and root.lower_ in ("today", "tonight", "tomorrow") and len(run) == 1 \
                and root.head.lower_ in START_END_VERBS and root.head.tag_ == "VBZ" and root.head.i == root.i - 1 \
                and (after_run is None or not after_run.is_alpha):
            replace[root.i] = "soon"  # "Offer ends tomorrow: go go go!" -> "Offer ends soon: go go go!"
            generalized.add(root.i)
            return
        if unit is not None and not unit and root.dep_ in ("pobj", "pcomp") and root.head.pos_ == "ADP" \
                and root.head.i == min(run) - 1 and all(t.i in run for t in root.subtree) \
                and (after_run is None or not after_run.is_alpha):
            # The subtree came out empty (the parser hung the words elsewhere: "Calcutta @ 8 p.m.🎱"): the run
            # goes with its preposition, when it ends the phrase.
            unit = set(run) | {root.head.i}
        self._plan_by_role(p, root, run, unit)

    def _plan_by_role(self, p: _Plan, root: Any, run: set[int], unit: set[int] | None) -> None:
        """The first rule that fits the expression's role: a hashtag, a judged time, a subtree to prune, an adverb, a
        rewrite by role or one that fits, its sentence, a cut, or one neutral phrase."""
        marked, cut, replace, generalized, handled = p.marked, p.cut, p.replace, p.generalized, p.handled
        if self.prune and (root.text == "#" or is_hashtag_word(root)):
            self._hashtag(p, root, run)
        elif self.generalize and (judged := judged_time(root, self._noun_phrase(root, run), marked)) is not None:
            # "Thanks for a great weekend with you" -> "Thanks for a great time with you": the adjective says
            # something of its own; cutting the phrase would lose it (readers: "for a great with").
            replace[root.i] = judged
            generalized.add(root.i)  # its determiner and adjectives stay as written
        elif self.generalize and is_what_a_complement_is_about(root, run):
            replace[root.i] = "the day"  # "Spent today belting my face off" -> "Spent the day belting ..."
            generalized.add(root.i)
        elif unit is not None and self.prune:
            _prune_unit(p, root, unit)
        elif not is_nominal(root) and root.dep_ not in ("punct", "ROOT"):
            # An adverb ("now", "soon") is never an argument: it goes, with a preposition left without object.
            cut |= {t.i for t in root.subtree} & run
            if root.head.pos_ == "ADP" and all(c.i in cut for c in root.head.children):
                cut.add(root.head.i)
        elif self.generalize and root.dep_ != "punct" and (rewrite := rewrite_by_role(
                root, self._noun_phrase(root, run), marked, prune=self.prune)) is not None:
            # The time noun's role picks the rewrite: "your Saturday" -> "your day", "a fun day" -> "a fun
            # time", "Tomorrow is ..." -> "It is ...", "rainy day essentials" -> "essentials".
            rewrite_cut, rewrite_replace = rewrite
            cut |= rewrite_cut
            replace.update(rewrite_replace)
            generalized |= set(rewrite_replace)
        elif self.generalize and root.dep_ != "punct" and (fit := fitting_rewrite(
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
                and (instead := cut_instead_of_a_neutral_phrase(root, run, marked)) is not None:
            cut |= instead
        elif self.generalize and root.dep_ != "punct":
            self._one_neutral_phrase(p, root, run)
        # With generalization off, an argument stays: cutting it would break the sentence.

    def _hashtag(self, p: _Plan, root: Any, run: set[int]) -> None:
        """A time hashtag ("#TGIF", "#Friday") goes whole: a neutral phrase cannot stand for a tag."""
        doc, cut, replace, generalized = p.doc, p.cut, p.replace, p.generalized
        tags = sorted(i for i in run if doc[i].text == "#" or is_hashtag_word(doc[i]))
        words = [doc[i] for i in tags if is_hashtag_word(doc[i]) or doc[i].text != "#"]
        if self.generalize and words and words[0].dep_ in ("dobj", "pobj", "nsubj", "attr") \
                and any(c.dep_ == "det" for c in words[0].children):
            # An argument with its article keeps a neutral noun ("enjoying the #sunset at the riverfront"
            # -> "enjoying the time at the riverfront").
            replace[tags[0]] = neutral_noun(words[0])
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

    def _one_neutral_phrase(self, p: _Plan, root: Any, run: set[int]) -> None:
        """Where nothing else fits: one neutral phrase ("a wonderful time", "the end", "soon", "a certain day")."""
        doc, marked, cut, replace, generalized = p.doc, p.marked, p.cut, p.replace, p.generalized
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
        elif (edge := edge_of(root, tokens, marked)) is not None:
            # "back to the last hour of the dullest transfer window" -> "back to the end of the dullest
            # transfer window", "Today is the last day of PLL" -> "It is the end of PLL" (readers: "back to a
            # certain time of the dullest ...")
            replace[tokens[0]] = edge
        elif (opener := start_word_before(doc, tokens)) is not None:
            # "running for 15 weeks, starting Feb 9." -> "starting soon.", "beg. 20 Jan:" -> "beg. soon:"
            # (readers: "starting a certain time", "beg. A certain time:")
            replace[tokens[0]] = "soon"
            generalized.add(opener)
        else:
            replace[tokens[0]] = neutral_phrase(root)
        # The rest of the expression hanging from it ("of 2015" in "1st day of 2015") is cut.
        cut |= set(tokens[1:]) | ({t.i for t in root.subtree} & run)
        cut.discard(tokens[0])
        generalized |= set(tokens)

    def _finish(self, p: _Plan) -> tuple[set[int], dict[int, str], set[int]]:
        """The debris, the words kept, the emptied slots and the words that belong to the sentence, then the plan."""
        doc, marked, cut, replace, generalized, keep = p.doc, p.marked, p.cut, p.replace, p.generalized, p.keep
        cut |= dangling_debris(doc, cut, generalized)
        cut -= keep
        if self.generalize:
            emptied_slots(doc, marked, cut, replace, generalized)
        # The "to" of an infinitive whose verb stays is no time ("excited for the fall semester to start" -> "for it
        # to start", not "for it start").
        cut -= {i for i in cut if doc[i].lower_ == "to" and doc[i].dep_ == "aux" and doc[i].head.i > i
                and doc[i].head.i not in cut and doc[i].head.i not in replace and not marked[doc[i].head.i]}
        if self.prune:
            cut -= not_of_the_time(doc, marked, cut, replace)
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
        others = [t for t in doc if not (sentence.start <= t.i < sentence.end) and is_content(t)
                  and not marked[t.i] and t.lower_ not in PLACEHOLDER_WORDS]
        if len(others) < 2:
            return None
        return {t.i for t in sentence if not kept_with_sentence(t, marked)}

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
        self._greetings(doc, marked, cut, replace, generalized, handled)
        if not self.prune:
            return handled
        self._sentences_of_time(doc, marked, cut, handled)
        self._clauses_of_when(doc, marked, cut, handled)
        return handled

    @staticmethod
    def _greetings(doc: Any, marked: list[bool], cut: set[int], replace: dict[int, str], generalized: set[int],
                   handled: set[int]) -> None:
        """A greeting opening a sentence becomes one without the time ("Good morning!!" -> "Hello!!", "Morning
        all!" -> "Hello all!", "Eid Mubarak" -> "Best wishes")."""
        for token in doc:
            if token.lower_ in ONE_WORD_GREETINGS and marked[token.i] and token.i not in handled \
                    and not is_hashtag_word(token):
                # "Gooooodnight guys" -> "Take care guys"
                phrase = ONE_WORD_GREETINGS[token.lower_]
                replace[token.i] = phrase if token.text[:1].isupper() or first_word(token) else phrase.lower()
                generalized.add(token.i)
                handled.add(token.i)
                continue
            if (greeting := bare_greeting(token, marked)) is not None and token.i not in handled:
                # "Morning all!" -> "Hello all!", "Night all." -> "Take care all.", "Morning" -> "Hello"
                replace[token.i] = greeting
                generalized.add(token.i)
                handled.add(token.i)
                continue
            closer = doc[token.i + 1] if token.i + 1 < len(doc) else None
            wish = GREETING_CLOSERS.get((token.lower_, closer.lower_)) if closer is not None else None
            if wish and marked[token.i] and marked[closer.i] and token.i not in handled:
                replace[token.i] = wish if token.text[:1].isupper() or first_word(token) else wish.lower()
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
            if not (first_word(token) or previous.is_punct or previous.pos_ == "INTJ" or addressed):
                continue  # "Well, good morning to you all", "Paid Internship Good morning all," greet too
            if opener == "Hello" and any(doc[i].lower_ in FAREWELL_WORDS for i in range(token.i + 1, end)):
                opener = "Take care"
            span = set(range(token.i, end))
            replace[token.i] = opener if token.text[:1].isupper() else opener.lower()
            cut |= span - {token.i}
            generalized |= span
            handled |= span

    @staticmethod
    def _sentences_of_time(doc: Any, marked: list[bool], cut: set[int], handled: set[int]) -> None:
        """A sentence made only of time goes (its links and emoji stay)."""
        sentences = list(doc.sents)
        for sentence in sentences:
            before = doc[sentence.start - 1].text if sentence.start else "."
            if not (before[:1] in ".!?" and not before.startswith("..")) and not before.startswith(("::", "|")):
                continue  # "Yoga was........ today.": the parser's sentence is the end of a clause
            words = [t for t in sentence if (is_content(t) or (marked[t.i] and is_hashtag_word(t)))
                     and t.i not in handled]
            if not any(marked[t.i] for t in words) or not all(
                    (marked[t.i] and not describing_word(t)) or t.dep_ in ("det", "predet", "cc", "case")
                    or (t.dep_ == "prep" and any(c.dep_ in ("pobj", "pcomp") for c in t.children))
                    or t.lower_ in PLACEHOLDER_WORDS for t in words):  # "Already over this week": "over" says more
                continue
            # Even when nothing else is said: a post of time only keeps its links and emoji ("5 seconds ago
            # https://…" -> "https://…"); readers found every neutral sentence ("A certain day.") unnatural.
            gone = {t.i for t in sentence if not kept_with_sentence(t, marked)}
            cut |= gone
            handled |= gone

    def _clauses_of_when(self, doc: Any, marked: list[bool], cut: set[int], handled: set[int]) -> None:
        """A clause of "it" and a time joined to another goes with its conjunction (or its comma)."""
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


    @staticmethod
    def _comma_clause(doc: Any, verb: Any, parts: list[Any], marked: list[bool], cut: set[int],
                      handled: set[int]) -> None:
        """A clause that only says when, opening a sentence before a comma and another clause, goes with its
        comma ("It's the weekend, Stop working and go shopping!" -> "Stop working and go shopping!")."""
        clause = {verb.i} | {t.i for part in parts for t in part.subtree}
        start, end = min(clause), max(clause) + 1
        if clause != set(range(start, end)) or not first_word(doc[start]) or end + 1 >= len(doc):
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
        if not is_nominal(root) or root.i + 1 >= len(doc):
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
        while start - 1 in subtree and (describes(doc[start - 1], run) or (
                doc[start - 1].dep_ == "advmod" and doc[doc[start - 1].head.i].dep_ == "quantmod")):
            start -= 1  # "slightly" of "slightly more than an hour" goes with its quantity
        # A participle inside the phrase ("1st working day") goes with it; at its edge ("briefed minutes") it stays.
        while start - 2 in subtree and doc[start - 1].pos_ == "VERB" and doc[start - 1].dep_ in ("amod", "compound") \
                and describes(doc[start - 2], run):
            start -= 2
            while start - 1 in subtree and describes(doc[start - 1], run):
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
            if all(marked[i] or is_function_word(root.doc[i]) for i in candidate) \
                    and all(is_function_word(t) or is_link(t) for t in rest):
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
        if needs_its_words(root, marked):
            return None  # an argument the parser labelled as an adjunct: rewritten by fitting_rewrite
        if root.dep_ == "npadvmod" and head.lower_ in BE_FORMS and is_nominal(root) and not any(
                c.i != root.i and (c.dep_ not in COPULA_FRAME_DEPS or c.tag_ in ("WP", "WDT"))
                and not (c.dep_ == "advmod" and c.lower_ in COPULA_ADVERBS) for c in head.children):
            return None  # "What a fabulous day it has been": the time is the copula's only complement
        if root.dep_ == "npadvmod" and opens_sentence(root) and is_nominal(root):
            last = max(t.i for t in root.subtree if marked[t.i] or t.i <= root.i)
            after = root.doc[last + 1] if last + 1 < len(root.doc) else None  # "ONE MONTH FROM TODAY, ILL BE"
            if after is not None and after.lower_ in COUNTDOWN_WORDS | {"since"}:
                return None  # "6 more days till I'm back" -> "some time till I'm back", not "till I'm back"
        return self._narrowed_unit(root, marked, candidate)

    def _narrowed_unit(self, root: Any, marked: list[bool], candidate: set[int]) -> set[int] | None:
        """The subtree to cut less what belongs to the thing described, a place phrase, a purpose or a URL; the
        whole of it when all that is left describes the time, else :meth:`_time_words_only`."""
        head = root.head
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
        return self._time_words_only(root, marked, candidate)

    def _time_words_only(self, root: Any, marked: list[bool], candidate: set[int]) -> set[int] | None:
        """The time words of the subtree (and their preposition) when what is left hangs on as well without them;
        None for a noun to generalize instead."""
        doc = root.doc
        head = root.head
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
        if self.generalize and is_nominal(root) and root.lower_ not in DEICTIC_WORDS and not words_before \
                and not all(reattaches(t) or is_link(t) for t in left_hanging):
            return None  # a deictic word is an adverbial here: it goes alone ("Rain today 0.00 in" -> "Rain 0.00 in")
        if words_before:
            fallback.discard(head.i)  # the preposition keeps the words before the time ("for 21km tdy" -> "for 21km")
        return fallback

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
                    and ends_sentence(norm, piece_index):
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
                elif (not piece.original[:1].islower() and starts_sentence(norm.original, piece.start)) or (
                        all(j in removed_pieces for j in range(piece_index)) and piece_index
                        and phrase[:1].islower()):
                    phrase = phrase[0].upper() + phrase[1:]  # "#TuesdayThoughts - The week is" -> "It is"
                replaced_pieces[piece_index] = phrase
            elif all(i in cut or i in replace for i in tokens):
                removed_pieces.add(piece_index)
        text, offsets = norm.restore_aligned(removed_pieces, replaced_pieces)
        text = recapitalize(norm, removed_pieces, text, offsets)
        return TemporalResult(
            text,
            removed=[norm.pieces[i].original for i in sorted(removed_pieces)],
            generalized=[(norm.pieces[i].original, phrase) for i, phrase in sorted(replaced_pieces.items())],
            removed_spans=[(norm.pieces[i].start, norm.pieces[i].end) for i in sorted(removed_pieces)],
            generalized_spans=[(norm.pieces[i].start, norm.pieces[i].end) for i in sorted(replaced_pieces)],
            cut_tokens=frozenset(cut), replaced_tokens=frozenset(generalized), offsets=offsets,
            original=norm.original,
        )


def _prune_unit(p: _Plan, root: Any, unit: set[int]) -> None:
    """A removable subtree goes; a day's possessive before a thing becomes "the", a precision adverb before it goes."""
    doc, cut, replace, generalized = p.doc, p.cut, p.replace, p.generalized
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
