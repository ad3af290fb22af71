"""Person names in informal English posts (issue 44, item 2): honorifics in any case, lower-case names in person
context, possessives, parentheses, multi-token East Asian names, first names that are words, aliases; and the
ordinary words that must stay. The lexicons alone (``lex``) and the recognizer with a blind or a scripted spaCy."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from anonymizer.recognize import TermRecognizer
from anonymizer.recognize.lexicons import LEXICON_TYPES, Lexicons
from anonymizer.recognize.people import EXTENDS, REPLACES, prefer_people


@pytest.fixture(scope="module")
def lexicons() -> Lexicons:
    return Lexicons(LEXICON_TYPES)


def people(lexicons: Lexicons, text: str) -> list[str]:
    return [text[s:e] for s, e, label in lexicons.spans(text) if label == "PERSON"]


class ScriptedSpacy:
    """A spaCy stand-in that returns the given (text, label) entities of each text."""

    def __init__(self, ents: dict[str, list[tuple[str, str]]]):
        self.ents = ents

    def pipe(self, texts, **kwargs):
        for text in texts:
            found = []
            for words, label in self.ents.get(text, []):
                start = text.index(words)
                found.append(SimpleNamespace(start_char=start, end_char=start + len(words), label_=label))
            yield SimpleNamespace(ents=found)


def recognized(text: str, spacy_ents: list[tuple[str, str]] = ()) -> list[tuple[str, str]]:
    r = TermRecognizer()
    r._nlp_obj = ScriptedSpacy({text: list(spacy_ents)})
    return [(t.text, t.label) for t in r.recognize(text)]


# ------------------------------------------------------------------------------------------ the issue's examples

@pytest.mark.parametrize(("text", "names"), [
    ("i think mr wong resembles clay aiken a lot", ["wong", "clay aiken"]),
    ("ms ng came in today and miss ng came yesterday", ["ng", "ng"]),
    ("Mr hang came and spoke to us today, he is a gd principal", ["hang"]),
    ("you should read amelia's blog", ["amelia"]),
    ("go read her (amelia) blog now", ["amelia"]),
    ("we went to a place like lin yi qin said", ["lin yi qin"]),
    ("im still on erics computer so no pics", ["erics"]),
    ("we went shopping and then to maya's for dinner", ["maya"]),
    ("I tried to convince Cat and Kurt to come along", ["Cat", "Kurt"]),
    ("Pogo says hi to everyone. Bye for now. - Pogo", ["Pogo", "Pogo"]),
])
def test_the_issues_missed_names_are_found(lexicons, text, names):
    assert people(lexicons, text) == names


@pytest.mark.parametrize(("text", "name"), [
    ("MR WONG is late", "WONG"), ("Mr. wong is late", "wong"), ("mrs. tan said no", "tan"),
    ("Dr lee is nice", "lee"), ("ask mdm tan", "tan"), ("MDM TAN is here", "TAN"), ("madam chua came", "chua"),
    ("auntie mary cooked", "mary"), ("uncle bob is here", "bob"), ("Miss Ng teaches", "Ng"),
    ("GENERAL REINWALD: We will teach", "REINWALD"),
])
def test_honorifics_in_any_case_with_or_without_a_dot(lexicons, text, name):
    assert people(lexicons, text) == [name]


@pytest.mark.parametrize(("text", "name"), [
    ("i was talking with eli yesterday", "eli"), ("n i hate kristy. she is mean", "kristy"),
    ("i've convinced leigh, but", "leigh"), ("maybe lara's not dumb", "lara"),
    ("me: hi\nsam: no, i never got it", "sam"), ("sam: definitely", "sam"), ("hey bill, whats up", "bill"),
    ("told jack about it", "jack"), ("leigh and i went", "leigh"), ("then eli said no", "eli"),
])
def test_lower_case_first_names_in_person_context(lexicons, text, name):
    assert people(lexicons, text) == [name]


@pytest.mark.parametrize(("text", "names"), [
    ("we met Lim Wei Kit there", ["Lim Wei Kit"]),
    ("with lim wei kit and tan ah kow", ["lim wei kit"]),      # "ah" is an English word: no syllable of a name
])
def test_east_asian_names(lexicons, text, names):
    assert people(lexicons, text) == names


def test_aliases_sign_offs_and_attributions(lexicons):
    assert people(lexicons, "for now, your one, your only, sporko.") == ["sporko"]
    assert people(lexicons, 'when you don\'t get play from them." -evasivecolin This is new') == ["evasivecolin"]
    assert people(lexicons, "I went home and Zorblat says hi") == ["Zorblat"]
    assert people(lexicons, "besides the items mir mentioned, i get my protein") == ["mir"]
    for text in ("I wud say no", "She coyly asked if", "What ppl say and what ppl do", "they havent asked",
                 "a rockbar called Moser", "i muz say i had fun"):
        assert people(lexicons, text) == [], text


def test_capitalised_word_first_names_in_person_context(lexicons):
    assert people(lexicons, "I went out with Faith and I had fun") == ["Faith"]
    assert people(lexicons, "I went out with faith and hope") == []
    assert people(lexicons, "then Kyle, Matt and Goat grabbed me") == ["Kyle", "Matt", "Goat"]
    assert people(lexicons, "yesterday Plez and I were eating sushi") == ["Plez"]
    assert people(lexicons, "and then Cat said no") == ["Cat"]
    for text in ("the mountains in Tahoe and I shall", "unless the woman is French. And I don't",
                 "the Inn is Awesome, and I love it", "An article in Nature says so", "the Police said"):
        assert people(lexicons, text) == [], text


# ------------------------------------------------------------------------------------------ ordinary words stay

@pytest.mark.parametrize("text", [
    "I will go there tomorrow", "it may be fun", "Ill be there.", "Heh heh heh", "Today was creepy.",
    "I wanted to scream or sob.", "the Rainy weather got me", "I miss you so much", "i miss home",
    "pay the bill and go", "a rose in the garden", "mark my words", "will you come?", "may i go?",
    "with amber light", "be frank with me", "go to dallas tomorrow", "we learnt kung fu today",
    "the feng shui of it", "(Dr. meaning Darth)", "before general doom befalls you", "I miss urlLink our plan",
    "hell yeh im cool", "i dun noe wat to write", "lol. haha. hehe, lol", "Hmmmm... Ughhhh", "yeah ok, gnite.",
    "I love Gwen and I\x92ve never told her", "out of WalMart and Sarah says", "our Constitution and Bill of Rights",
    "I tried to act all -abashed-, but", "Mom says hi", "Everyone said so", "the Will and the estate",
    "it was a big hang over", "she was ill and tired", "the day may come",
])
def test_ordinary_words_stay(lexicons, text):
    found = people(lexicons, text)
    assert found in ([], ["Gwen"], ["Sarah"]), found


# ------------------------------------------------------------------------------------------ merging with spaCy

def test_strong_names_replace_the_spacy_span_they_extend_or_split():
    assert recognized("like lin yi qin said", [("lin", "PERSON")]) == [("lin yi qin", "PERSON")]
    assert recognized("I tried to convince Cat and Kurt to come", [("Cat and Kurt", "ORG")]) == [
        ("Cat", "PERSON"), ("Kurt", "PERSON")]
    assert recognized("ask mdm tan about it", [("mdm tan", "ORG")]) == [("tan", "PERSON")]
    assert recognized("talking with eli and kristy was there", [("kristy", "ORG")]) == [
        ("eli", "PERSON"), ("kristy", "PERSON")]


def test_spacy_spans_that_say_more_stay():
    text = "the Bill and Melinda Gates Foundation gave"
    assert recognized(text, [("Bill and Melinda Gates Foundation", "ORG")]) == [
        ("Bill and Melinda Gates Foundation", "ORG")]
    assert recognized("I read Kate's blog", [("Kate", "PERSON")]) == [("Kate", "PERSON")]


def test_prefer_people_unit():
    text = "like lin yi qin and Cat and Kurt"
    ner = [(5, 8, "PERSON"), (20, 32, "ORG")]
    strong = [(5, 15, "PERSON", REPLACES), (20, 23, "PERSON", REPLACES), (28, 32, "PERSON", REPLACES)]
    assert prefer_people(ner, strong, text) == [span[:3] for span in strong]
    assert prefer_people(ner, [], text) == ner
    assert prefer_people(ner, strong[:1], text) == [(5, 15, "PERSON"), (20, 32, "ORG")]
    # a full name only extends a spaCy PERSON span, it never relabels another type
    assert prefer_people(ner, [(5, 15, "PERSON", EXTENDS)], text) == [(5, 15, "PERSON"), (20, 32, "ORG")]
    assert prefer_people(ner, [(20, 32, "PERSON", EXTENDS)], text) == ner


def test_a_full_name_completes_the_first_name_spacy_tagged():
    text = "that douche bag Lyle Lovett.&nbsp; Now"
    assert recognized(text, [("Lyle", "PERSON")]) == [("Lyle Lovett", "PERSON")]
    assert recognized("I drive a John Deere now", [("John Deere", "ORG")]) == [("John Deere", "ORG")]


_ISSUE_SENTENCES = [
    ("i think mr wong resembles clay aiken a lot", ["wong", "clay aiken"]),
    ("ms ng came in today and miss ng came yesterday", ["ng", "ng"]),
    ("Mr hang came and spoke to us today, he is a gd principal", ["hang"]),
    ("you should read amelia's blog, it is funny", ["amelia"]),
    ("go read Kate's (amelia) blog now", ["Kate", "amelia"]),
    ("we went to a place like lin yi qin said", ["lin yi qin"]),
    ("im still on erics computer so no pics", ["erics"]),
    ("we went shopping and then to maya's for dinner", ["maya"]),
    ("I tried to convince Cat and Kurt to come along", ["Cat", "Kurt"]),
    ("Pogo says hi to everyone. Bye for now. - Pogo", ["Pogo", "Pogo"]),
]


def test_real_spacy_and_lexicons_on_the_issues_sentences():
    """The full recognizer (real spaCy, the blog configuration's types) masks each name whole, as PERSON."""
    blog_types = ("PERSON", "NORP", "FAC", "ORG", "GPE", "LOC", "PRODUCT", "EVENT", "WORK_OF_ART", "LAW",
                  "LANGUAGE", "DATE", "TIME", "PERCENT", "MONEY")
    r = TermRecognizer(entity_types=blog_types)
    for (text, names), terms in zip(_ISSUE_SENTENCES, r.recognize_many(t for t, _ in _ISSUE_SENTENCES), strict=True):
        assert [t.text for t in terms if t.label == "PERSON"] == names, (text, terms)
    ordinary = "I will go there, it may be fun. Ill be there. Heh heh heh. Today was creepy, I wanted to sob."
    assert [t.text for t in r.recognize(ordinary) if t.label == "PERSON"] == []


def test_a_possessive_first_name_takes_no_surname(lexicons):
    assert "Amy's Song" not in people(lexicons, "Dare you to Move, Amy's Song is next")
    assert "Joe's Jeans" not in people(lexicons, "James Perse, Joe's Jeans, Ella Moss")
    assert "Clinton Street" not in people(lexicons, "then Clinton Street Bakery got me out of bed")
    assert people(lexicons, "I met Kate Moss today") == ["Kate Moss"]


@pytest.mark.parametrize("text", ["you just read it, sucka.", "u wanted yur own page soo hear it is"])
def test_slang_is_no_name(lexicons, text):
    assert people(lexicons, text) == []


# ------------------------------------------------------------------------------------------ second round (2026-12-05)
# Kinds of name a reader found left in released posts of the spent samples (seeds 20261205, 20261206); the new
# held-out sample (20261208) was not looked at while these were written.

@pytest.mark.parametrize(("text", "names"), [
    ("This Whole Post Goes Out To Matt Dustin Zack Lynn And Everyone", ["Matt Dustin Zack Lynn"]),
    ("urlLink Check out Joey's Pictures", ["Joey"]),
    ("Jims parents are off to Rome tomorrow", ["Jims"]),
    ("these can be found on the blog of the funky Mr T (see link at side)", ["T"]),
    ("well ima go watch the movie wit amanda again", ["amanda"]),
    ("signing off: princess sara...", ["sara"]),
    ("welcome, sister eva! you are our latest member", ["eva"]),
    ("a shout out to grimes (Jake), for showing me", ["grimes", "Jake"]),
    ("I'd like to thank eek (Erik) for being there", ["eek", "Erik"]),
])
def test_names_in_lists_possessives_nicknames_and_kin_context(lexicons, text, names):
    assert people(lexicons, text) == names


@pytest.mark.parametrize("text", [
    "Grace and Holly Springs are towns",      # a common-word name does not start a run
    "my sister (Jane) came over",             # the kin word before "(Name)" is no nickname
    "the band (Muse) played",
    "Mr. T. Smith came",                      # an initial going on with a surname is not "Mr T"
    "I miss my bros and sis so much",
])
def test_second_round_ordinary_words_stay(lexicons, text):
    found = people(lexicons, text)
    assert "sister" not in found and "band" not in found and "Holly" not in found
    assert "T" not in found and "sis" not in found and "bros" not in found


def test_lower_case_towns_after_to_in_from(lexicons):
    text = "I had lunch, went to flashback, ran out to elyria, went to work"
    places = [(text[s:e], label) for s, e, label in lexicons.spans(text) if label in ("GPE", "LOC")]
    assert places == [("elyria", "GPE")]
    for ordinary in ("we went to reading club", "i went to bath time", "i moved to amanda"):
        assert not [s for s in lexicons.spans(ordinary) if s[2] in ("GPE", "LOC")], ordinary


def test_a_friend_named_by_an_initial(lexicons):
    assert people(lexicons, "a pressie to my much hated ex-best friend T. I did not") == ["T"]
    assert people(lexicons, "my bf J and I went out") == ["J"]
    assert people(lexicons, "I got an A on the test, my friend A said") == []


def test_a_shop_named_by_a_rare_surname_after_at(lexicons):
    text = "we got snacks at kroger and went home"
    assert [(text[s:e], label) for s, e, label in lexicons.spans(text)] == [("kroger", "ORG")]
    assert not [s for s in lexicons.spans("we live at kroger street now") if s[2] == "ORG"]
