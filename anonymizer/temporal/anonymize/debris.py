"""What a cut leaves behind and must go too: dangling punctuation, conjunctions and prepositions, brackets cut
in half, and words left governing an emptied slot (issue 46)."""

from __future__ import annotations

import itertools
from typing import Any

from anonymizer.temporal.anonymize.lexicon import (
    BE_FORMS,
    COPULA_ADVERBS,
    DANGLING_PUNCT,
    DETACHABLE_PREPOSITIONS,
    FRAMING_WORDS,
    HEDGES,
    PARTICLE_WORDS,
    PLACEHOLDER_CLAUSE_SUBJECTS,
    PREPOSITION_HEAD_DEPS,
    SLOT_DETERMINERS,
    TIME_ONLY_PREPOSITIONS,
    VERSUS_WORDS,
)
from anonymizer.temporal.anonymize.roles import is_content, is_nominal, neutral_noun
from anonymizer.temporal.normalize import EMOJI_ONLY
from anonymizer.temporal.tagging.words import (
    is_link,
    kind_of,
)


def _ends_a_slot(token: Any | None) -> bool:
    """Whether ``token`` (the next word kept) cannot fill the slot of a word before it: the end of the post or of a
    sentence, a separator, a link, an emoji, another preposition or a conjunction."""
    if token is None or is_link(token) or EMOJI_ONLY.match(token.text) or token.dep_ == "cc":
        return True
    if token.pos_ == "ADP" and token.dep_ in ("prep", "dative", "agent"):
        return True
    return token.is_punct and token.text not in ("(", "[", '"', "'", "“", "‘", "#", "@")


def emptied_slots(doc: Any, marked: list[bool], cut: set[int], replace: dict[int, str],
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

    _between_as_one_unit(doc, marked, cut, replace, generalized)
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
                    and marked[head.i] and is_nominal(head) and kind_of(head) is not None and head.is_alpha:
                # "for a great weekend with" cut to "for a great with": the adjective keeps a neutral noun
                cut.discard(head.i)
                replace[head.i] = neutral_noun(head)
                generalized.add(head.i)
            elif token.lower_ in BE_FORMS and token.pos_ == "AUX" and token.dep_ not in ("aux", "auxpass") \
                    and (following is None or not following.is_alpha):
                if not _emptied_copula(doc, token, following, adverbs, marked, cut, replace, generalized):
                    continue
            else:
                continue
            changed = True
            break


def _between_as_one_unit(doc: Any, marked: list[bool], cut: set[int], replace: dict[int, str],
                         generalized: set[int]) -> None:
    """"between 2 and 5 pm" is one unit: a cut inside it takes all of it (in place)."""
    def present(i: int) -> bool:
        return i in replace or i not in cut

    def gone(i: int) -> bool:
        return not present(i)

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


def _emptied_copula(doc: Any, token: Any, following: Any, adverbs: list[Any], marked: list[bool], cut: set[int],
                    replace: dict[int, str], generalized: set[int]) -> bool:
    """A copula whose complement went: "is on" / "is coming up" after a subject that says something, else its
    clause goes when its subject is only "it"/"this" (in place). False when it stays as it is."""
    def present(i: int) -> bool:
        return i in replace or i not in cut

    def gone(i: int) -> bool:
        return not present(i)

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
        # up" ("Our last day is on the 30th." -> "Our last day is coming up."), as in fitting_rewrite
        kinds = {kind_of(t) for t in doc[token.i + 1:following.i] if marked[t.i]} - {None}
        today = any(t.lower_ in ("today", "tonight") for t in doc[token.i + 1:following.i])
        replace[token.i + 1] = "on" if today or (kinds and kinds <= {"clock", "part_of_day", "now"}) \
            else "coming up"
        generalized.add(token.i + 1)
        return True
    if not subjects or not complements or any(s.lower_ not in PLACEHOLDER_CLAUSE_SUBJECTS
                                              for s in subjects) \
            or any(present(t.i) for c in complements for t in c.subtree) or others \
            or any(t.tag_ in ("WP", "WDT", "WRB") for t in token.sent if t.i < token.i):
        return False  # "what it is today" -> not "what."
    words = {token.i} | {t.i for s in subjects for t in s.subtree} | {a.i for a in adverbs}
    cut |= words  # "Yay IT'S FRIDAY! Party" -> "Yay! Party", not "Yay IT'S! Party"
    before = next((t for t in reversed(doc[:min(words)]) if present(t.i)), None)
    if before is not None and before.text in DANGLING_PUNCT and _ends_a_slot(following):
        cut.add(before.i)  # "Yes, it's Friday." -> "Yes.", not "Yes,."
    sentence = token.sent
    if not any(present(t.i) and is_content(t) for t in sentence):
        cut |= {t.i for t in sentence if t.is_punct and present(t.i)}
    elif all(gone(t.i) or not is_content(t) for t in doc[sentence.start:token.i]):
        for t in doc[token.i + 1:sentence.end]:  # "It's #Day, and in Wisconsin" -> "In Wisconsin"
            if gone(t.i):
                continue
            if t.text not in DANGLING_PUNCT and t.dep_ != "cc":
                break
            cut.add(t.i)
    return True


def dangling_debris(doc: Any, cut: set[int], generalized: set[int]) -> set[int]:
    """Punctuation, conjunctions and prepositions the cut leaves dangling, and brackets left with nothing
    inside or without their other half (a generalized expression counts as kept)."""
    extra: set[int] = set()
    if not cut:
        return extra
    _brackets(doc, cut, extra)
    gone = (cut | extra) - generalized
    _articles_and_prepositions(doc, generalized, extra, gone)
    _framing_words_and_conjunctions(doc, extra, gone)
    kept = _dangling_separators(doc, extra, gone)
    _mentions_and_stops(kept, extra, gone)
    return extra


def _brackets(doc: Any, cut: set[int], extra: set[int]) -> None:
    """Brackets: a pair whose inside is all cut goes; a pair cut in half keeps both halves (``cut`` loses them)."""
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


def _articles_and_prepositions(doc: Any, generalized: set[int], extra: set[int], gone: set[int]) -> None:
    """Articles and "+" left by a cut noun or number, prepositions whose objects all went or that hang on an emoji,
    a dash, a link or "vs"."""
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


def _framing_words_and_conjunctions(doc: Any, extra: set[int], gone: set[int]) -> None:
    """A word that only framed the time, a conjunction left with adverbs only."""
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


def _dangling_separators(doc: Any, extra: set[int], gone: set[int]) -> list[Any]:
    """Separators and conjunctions left dangling by the cut; returns the tokens kept."""
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
    return kept


def _mentions_and_stops(kept: list[Any], extra: set[int], gone: set[int]) -> None:
    """A comma after the mentions opening a reply, a stop after a stop."""
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
