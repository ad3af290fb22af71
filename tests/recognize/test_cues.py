"""Handles, organisations and venues by cue, streets and dated events (issue 44, item 2): each span a reader found
left in a released post is recognized, and the ordinary phrases next to the same cues stay.

The recognizer-level tests run through TermRecognizer with a spaCy stand-in (what spaCy finds is given per text),
so they show what the lexicons add and how they merge with spaCy's spans, and fail on a recognizer without them."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from anonymizer.recognize import TermRecognizer

# The blog configuration's entity types (rx-anon's e_blog_authorship_corpus.yaml): no CARDINAL, ORDINAL, MAIL.
BLOG_TYPES = ("PERSON", "NORP", "FAC", "ORG", "GPE", "LOC", "PRODUCT", "EVENT", "WORK_OF_ART", "LAW", "LANGUAGE",
              "DATE", "TIME")


class FixedEntities:
    """A spaCy stand-in: for each text the entities given as (substring, label), nothing for other texts."""

    def __init__(self, entities: dict[str, list[tuple[str, str]]] | None = None):
        self.entities = entities or {}

    def pipe(self, texts, **kwargs):
        for text in texts:
            ents = []
            for substring, label in self.entities.get(text, []):
                start = text.index(substring)
                ents.append(SimpleNamespace(start_char=start, end_char=start + len(substring), label_=label))
            yield SimpleNamespace(ents=ents)


def recognizer(entities: dict[str, list[tuple[str, str]]] | None = None, types=BLOG_TYPES) -> TermRecognizer:
    r = TermRecognizer(entity_types=types)
    r._nlp_obj = FixedEntities(entities)
    return r


def found(text: str, entities: list[tuple[str, str]] | None = None, types=BLOG_TYPES) -> list[tuple[str, str]]:
    terms = recognizer({text: entities or []}, types).recognize(text)
    return [(t.text, t.label) for t in terms]


# ------------------------------------------------------------------------------------------ the spans

@pytest.mark.parametrize(("text", "span", "label"), [
    ("lol she was from rgs! so", "rgs", "ORG"),
    ("I secured one with Enterprise; the car rental corporation was nice", "Enterprise", "ORG"),
    ("we had rehearsal at Strummers tonight", "Strummers", "ORG"),
    ("we are going to Penn next year", "Penn", "ORG"),
    ("then eating at Long John Silver's. I was", "Long John Silver", "ORG"),
    ("she works for Acadamy now", "Acadamy", "ORG"),
    ("the designer stores at klcc. it was", "klcc", "ORG"),
    ("I can sleep in then, too! Go Bills!! :-)", "Bills", "ORG"),
    ("urlLink Link - The Coffeeresearch.org Web site is", "Coffeeresearch.org", "ORG"),
    ("my blog moved to millerzblog.blogspot.com, see", "millerzblog.blogspot.com", "ORG"),
    ("(PICTURES) brought to you by urlLink Quizilla", "Quizilla", "ORG"),
    ("add me, my aim is madnessmia21", "madnessmia21", "PERSON"),
    ("madnessmia21: hey whats up", "madnessmia21", "PERSON"),
    ("my sn is bluedragon so im me", "bluedragon", "PERSON"),
    ("Screen Name:HaveMonsterFun Meaning: a saying", "HaveMonsterFun", "PERSON"),
    ("follow @kittycat for more", "kittycat", "PERSON"),
    ("write to ccohen at gmail dot com today", "ccohen", "PERSON"),
    ("the FAC btw 5th Ave and Broadway", "5th Ave", "FAC"),
    ("walked down 42nd St. to the park", "42nd St.", "FAC"),
    ("our place on Ave B is tiny", "Ave B", "FAC"),
    ("Karin Highway County Jail 6 Loony-Bin Lane 18", "Loony-Bin Lane", "FAC"),
    ("today is the 70th anniversary of the abolition of prohibition. So", "the 70th anniversary of the abolition "
                                                                            "of prohibition", "DATE"),
    ("I remember the day Reagan died, we were", "the day Reagan died", "DATE"),
    ("it was the night Kurt Cobain died and", "the night Kurt Cobain died", "DATE"),
    ("we watched the night of the Oscars together", "the night of the Oscars", "DATE"),
])
def test_left_spans_are_recognized(text, span, label):
    assert (span, label) in found(text)


def test_the_anniversary_replaces_spacys_ordinal_and_date_inside_it():
    text = "today is the 70th anniversary of the abolition of prohibition."
    got = found(text, [("today", "DATE"), ("the 70th anniversary", "DATE")])
    assert got == [("today", "DATE"), ("the 70th anniversary of the abolition of prohibition", "DATE")]
    # spaCy's ORDINAL alone (a type the blog configuration leaves readable) no longer keeps the date readable
    assert ("the 70th anniversary of the abolition of prohibition", "DATE") in found(text, [("70th", "ORDINAL")])


def test_a_numbered_street_wins_over_spacys_ordinal_but_not_over_a_longer_wanted_span():
    text = "the FAC btw 5th Ave and Broadway"
    assert ("5th Ave", "FAC") in found(text, [("5th", "ORDINAL"), ("Broadway", "PERSON")])
    # a wanted entity reaching outside the street keeps its span (it is recoded whole)
    assert found(text, [("5th Ave and Broadway", "FAC")]) == [("5th Ave and Broadway", "FAC")]


def test_a_handle_spacy_calls_cardinal_is_a_person():
    text = "add me, my aim is madnessmia21"
    assert found(text, [("madnessmia21", "CARDINAL")]) == [("madnessmia21", "PERSON")]


def test_mail_local_part_without_mail_type_and_whole_address_with_it():
    text = "email me at madnessmia21@hotmail.com please"
    assert found(text) == [("madnessmia21", "PERSON")]
    assert found(text, types=(*BLOG_TYPES, "MAIL")) == [("madnessmia21@hotmail.com", "MAIL")]


def test_chat_log_speakers_pasted_as_one_run():
    text = ("until... just now: me: hey sam, did you ever get 1 me: i have an idea, we write it up sam: no, i never "
            "got it. sam: what's up? me: look here sam: definitely")
    terms = recognizer({text: []}).recognize(text)
    turns = [i for i in range(len(text)) if text.startswith("sam: ", i)]
    assert len(turns) == 3 and all(any(t.start == i and t.text == "sam" for t in terms) for i in turns)
    assert not any(t.text == "me" for t in terms)


def test_spacy_and_the_name_lists_keep_their_types():
    assert found("I met Sarah at Starbucks", [("Sarah", "PERSON")]) == [("Sarah", "PERSON"), ("Starbucks", "ORG")]
    assert ("Boston", "GPE") in found("she came from Boston yesterday")
    assert found("we went to Starbucks", [("Starbucks", "PERSON")]) == [("Starbucks", "PERSON")]


# ------------------------------------------------------------------------------------------ what stays

@pytest.mark.parametrize("text", [
    "I came home from home, stayed at work, at school, with love, from my mom, at 5, joined the army",
    "she was at Church then at Mass with God and Him",
    "I was at sch then at mrt from tmr on, ppl say",
    "living with HIV and dying from AIDS",
    "we played from sky to sky at gym",
    "Dinner at Home With Friends",
    "a trip down Memory Lane on Easy Street",
    "my aim is to win and my aim is good",
    "the aim: to win",
    "Blink182 and Doom2 and Windows98 and sum1 and some1 and Test1 and CSC108 and euro2004 and jalan2 and MPx200",
    "I'm @home now, @ work later",
    "write to info@example.com or webmaster at yahoo dot com",
    "Note: this is it. Mood: happy. Music: loud",
    "the day my dog died was the day Mom died",
    "our anniversary of dating",
    "Go Away! Go Team!",
    "open index.html in Node.js, e.g. this, or see www.example.com and example.com/page",
    "working with Seniors and Presidents",
    "the Support Group met at Community College",
])
def test_ordinary_phrases_stay(text):
    assert found(text) == []


def test_dates_after_a_cue_stay_dates():
    assert found("from Monday to Friday we met at Christmas") == [("Monday", "DATE"), ("Friday", "DATE"),
                                                                  ("Christmas", "DATE")]


def test_a_name_run_stops_before_a_new_sentence_and_at_markup():
    assert ("Six Apart", "ORG") in found("Barak at Six Apart This goes to show")
    assert ("Disney", "ORG") in found("when I worked for Disney.&nbsp; Good memories")
    assert found("with Him.&nbsp; When you") == []


def test_looked_at_someone_is_a_person():
    assert found("A last long look at Connelly and he shrugs") == [("Connelly", "PERSON")]


# ------------------------------------------------------------------------------------------ the pieces

def test_handles_shapes():
    from anonymizer.recognize.handles import handle_spans

    def handles(text: str) -> list[str]:
        return sorted({text[s:e] for s, e, _ in handle_spans(text)})

    assert handles("Jumper991 and Dreamer_80 and creaturething1 and MysteriousBob87") == [
        "Dreamer_80", "Jumper991", "MysteriousBob87", "creaturething1"]
    assert handles("this.button1_Click(); x = a1b2; path/user12/x; #tag12; AMSD1980; Shrek2") == []
    assert handles("jdoe (at) example.com and jane.doe[at]uni.edu") == ["jane.doe", "jdoe"]
    assert handles("see Ultr@VNC and everyday--grrrr@myself, we chatted at msn and") == []


def test_roles_in_a_transcript_are_no_speakers():
    from anonymizer.recognize.handles import handle_spans

    text = ("FEMALE INTERVIEWER: So, General? GENERAL REINWALD: We teach. FEMALE INTERVIEWER: Shooting! "
            "GENERAL REINWALD: Yes.")
    assert sorted({text[s:e] for s, e, _ in handle_spans(text)}) == ["REINWALD"]


def test_speaker_labels_that_are_words_places_or_titles_stay():
    from anonymizer.recognize.cues import cue_spans
    from anonymizer.recognize.handles import handle_spans

    for text in ("Bethesda, MD: I read it. Silver Spring, MD: me too. Washington, DC: and I",
                 "Ingredients: salt. Factoids: none. Ingredients: sugar. Factoids: some."):
        assert handle_spans(text) == []
    assert cue_spans("a big stapler from Mrs Tang and a farm with Uncle Henry") == []


def test_speakers_need_a_second_speaker():
    from anonymizer.recognize.handles import handle_spans

    monologue = "Reibstein: hi. Reibstein: ok. Reibstein: bye."
    assert handle_spans(monologue) == []
    dialogue = "Reibstein: hi.\nAnna: hello.\nReibstein: bye."
    assert [dialogue[s:e] for s, e, _ in handle_spans(dialogue)] == ["Reibstein", "Reibstein"]


def test_streets_and_saints():
    from anonymizer.recognize.cues import grid_spans, street_spans

    text = "11 West 56th Street, between Fifth Avenue and Ave. C, near Main Street and St. Louis Cathedral"
    assert [text[s:e] for s, e, _ in grid_spans(text)] == ["West 56th Street", "Fifth Avenue", "Ave. C"]
    assert [text[s:e] for s, e, _ in street_spans(text)] == ["Fifth Avenue", "Main Street"]
    assert street_spans("I prayed to Mary St. Jude") == [] and street_spans("a Test Drive") == []


def test_override_keeps_spans_sorted_and_disjoint():
    from anonymizer.recognize.recognizer import _override

    ner = [(0, 5, "DATE"), (10, 14, "ORDINAL"), (20, 30, "PERSON")]
    strong = [(8, 18, "DATE"), (22, 26, "PERSON")]
    assert _override(ner, strong, frozenset({"DATE", "PERSON"})) == [(0, 5, "DATE"), (8, 18, "DATE"),
                                                                     (20, 30, "PERSON")]


def test_the_lexicons_version_is_in_the_fingerprint():
    from anonymizer.recognize import lexicons

    assert lexicons.LEXICONS_VERSION != "1"       # results of the recognizer without these rules are not reused
    assert TermRecognizer().fingerprint != TermRecognizer(lexicons=False).fingerprint
