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
Before that, and in place of the one neutral phrase where the role allows (``_whole_units``, ``rewrite_by_role``):
a greeting opening a sentence keeps greeting ("Good morning!!" -> "Hello!!"); a clause or a sentence that only says
when goes whole ("It's July and we've signed Sanchez" -> "We've signed Sanchez"); an argument keeps its possessive
or adjectives with a neutral noun ("your Saturday" -> "your day", "a fun day" -> "a fun time"), a subject right
before its copula becomes "it", nouns naming an event stay ("Date night" -> "Date"); a time hashtag is cut (an
argument with its article keeps a neutral noun: "enjoying the #sunset" -> "enjoying the time"); "A night with X"
-> "Time with X", "Perfect day for" -> "Perfect time for"; a clause that only says when, before a comma and another
clause, goes with the comma; a qualifier or hedge of the time's preposition goes with it ("even at night", "in like
an hour").
Where one neutral phrase used to stand, the words a person would put there (:func:`fitting_rewrite`, round 6:
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
cut that leaves a sentence (:func:`cut_instead_of_a_neutral_phrase`); a thing that starts or ends tomorrow starts or
ends "soon"; tags of a dated event go ("#Kscope17", "#PLLFinale").
Then the debris goes: a comma or dash left dangling (between two commas, both), a coordinating conjunction whose
conjunct was cut, a preposition whose object was cut, brackets left empty; a bracket pair cut in half keeps both
halves, and a cut phrase that started a sentence hands its capital to the next word.
Last (issue 46, :func:`emptied_slots`): a word the cut left governing nothing before a separator, another preposition,
a conjunction or the end goes with its governing phrase ("closed for the from to ." -> "closed.", "between and" as one
unit, "IT'S !" -> its clause goes), or its time noun is generalized instead ("for a great with" -> "for a great time
with"); bare plurals of days become "some days", and a stretch of time kept in Title Case stays whole.

Where the parts are: ``lexicon`` (word lists), ``roles`` (what a time word does in its sentence), ``rewrite`` (the
words put in its place), ``debris`` (what a cut leaves behind), ``result`` (:class:`TemporalResult`) and ``anonymizer``
(:class:`TemporalAnonymizer`: :meth:`~TemporalAnonymizer.plan` and applying the plan).
"""

from __future__ import annotations

from anonymizer.temporal.anonymize.anonymizer import TemporalAnonymizer
from anonymizer.temporal.anonymize.lexicon import BE_FORMS
from anonymizer.temporal.anonymize.result import TemporalResult
from anonymizer.temporal.anonymize.roles import opens_sentence, reattaches

__all__ = ["BE_FORMS", "TemporalAnonymizer", "TemporalResult", "opens_sentence", "reattaches"]
