"""String-level recoding and term generalization (issue 16): a name tagged once is recoded everywhere, a class
releases the least common ancestor of its terms, and the released file is k-anonymous in its texts too."""

from __future__ import annotations

import csv
import re
from pathlib import Path

import numpy as np
import pytest

from anonymizer.kanon.config import load_config
from anonymizer.kanon.hierarchies import TermHierarchies
from anonymizer.kanon.occurrences import OccurrenceSpreader
from anonymizer.kanon.pipeline import anonymize_csv
from anonymizer.kanon.recode import recode_classes
from anonymizer.kanon.table import read_table
from anonymizer.kanon.view import build_view
from anonymizer.recognize import Term
from tests.helpers import kanon_file, shared_data

CONFIG = """
parameters: {k: 2, strategy: mondrian, relational_weight: 0.5}
attributes:
  id: {anonymization_type: direct_identifier}
  age: {type: numerical, anonymization_type: quasi_identifier}
  text: {type: text, anonymization_type: text}
entities:
  native: [PERSON, GPE, DATE, TIME, MONEY]
"""


def terms_of(text: str, tagged: dict[str, str]) -> list[Term]:
    """A recognizer that tags only the FIRST occurrence of each given string, as NER that misses the rest."""
    out = []
    for string, label in tagged.items():
        found = re.search(rf"(?<!\w){re.escape(string)}(?!\w)", text)
        if found:
            out.append(Term(found.start(), found.end(), label, string))
    return sorted(out, key=lambda t: t.start)


class FirstOccurrenceRecognizer:
    def __init__(self, tagged_by_text: dict[str, dict[str, str]]) -> None:
        self.tagged_by_text = tagged_by_text

    def recognize_many(self, texts):
        for text in texts:
            yield terms_of(text, self.tagged_by_text.get(text, {}))


def write_csv(path: Path, rows: list[tuple]) -> Path:
    with path.open("w", encoding="utf-8", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(["id", "age", "text"])
        writer.writerows(rows)
    return path


def read_texts(path: Path) -> list[str]:
    with path.open(encoding="utf-8", newline="") as handle:
        return [row["text"] for row in csv.DictReader(handle)]


# ------------------------------------------------------------------------------------ string-level recoding

def test_a_name_tagged_once_is_recoded_in_every_text(tmp_path):
    # Two classes by age: {a, c} and {b, d}; neither shares "Kurt" nor "Will", so both must go wherever they stand.
    rows = [("a", 30, "Kurt came by. Lucas loves Kurt, and Kurt knows it."),
            ("a", 30, "Later Kurt left for Omaha."),
            ("b", 60, "I met Kurt at the station."),
            ("b", 60, "Nothing happened."),
            ("c", 31, "I will, said Will. Will you come?"),
            ("d", 61, "We will see.")]
    source = write_csv(tmp_path / "posts.csv", rows)
    tagged = {rows[0][2]: {"Kurt": "PERSON"}, rows[4][2]: {"Will": "PERSON"}}
    recognize = FirstOccurrenceRecognizer(tagged).recognize_many
    config = load_config(CONFIG, columns=["id", "age", "text"])

    report = anonymize_csv(source, config, tmp_path / "everywhere.csv", recognize=recognize)
    texts = read_texts(tmp_path / "everywhere.csv")
    assert not any("Kurt" in text for text in texts)  # in a's three places, a's other post and b's post
    assert texts[0] == "PERSON came by. Lucas loves PERSON, and PERSON knows it."
    assert texts[2] == "I met PERSON at the station."
    # "Will" was recognized as a name inside a sentence: that spelling is recoded there, the verb stays, and a
    # sentence-initial "Will" (a question) is left alone.
    assert texts[4] == "I will, said PERSON. Will you come?"
    assert texts[5] == "We will see."
    assert report["spread_terms"]["PERSON"] == 4 and report["recognized_names_left"] == 0

    person_only = config.with_parameters(recode_everywhere=False)
    report = anonymize_csv(source, person_only, tmp_path / "person.csv", recognize=recognize)
    texts = read_texts(tmp_path / "person.csv")
    assert "Kurt" not in texts[0] + texts[1] and texts[2] == "I met Kurt at the station."
    assert report["recognized_names_left"] == 1  # the check on the written file sees b's Kurt


def test_string_level_recoding_is_kept_for_the_other_runs_of_a_dataset(tmp_path):
    from anonymizer.recognize import TermCache

    rows = [("a", 30, "Kurt came by. Lucas loves Kurt."), ("b", 60, "I met Kurt at the station."),
            ("c", 31, "Nothing happened."), ("d", 61, "We will see.")]
    source = write_csv(tmp_path / "posts.csv", rows)
    recognize = FirstOccurrenceRecognizer({rows[0][2]: {"Kurt": "PERSON"}}).recognize_many
    config = load_config(CONFIG, columns=["id", "age", "text"])
    with TermCache(tmp_path / "cache.sqlite") as cache:
        first = anonymize_csv(source, config, tmp_path / "first.csv", recognize=recognize, cache=cache)
        again = anonymize_csv(source, config.with_parameters(k=4), tmp_path / "again.csv", recognize=recognize,
                              cache=cache)
        assert not first["spread_cached"] and again["spread_cached"]
        assert again["spread_terms"] == first["spread_terms"] == {"PERSON": 2}
        assert read_texts(tmp_path / "again.csv")[:2] == ["PERSON came by. Lucas loves PERSON.",
                                                          "I met PERSON at the station."]
        # Another text, or the other scope, is another dataset.
        person_only = anonymize_csv(source, config.with_parameters(recode_everywhere=False), tmp_path / "p.csv",
                                    recognize=recognize, cache=cache)
        assert not person_only["spread_cached"] and person_only["spread_terms"] == {"PERSON": 1}
        changed = write_csv(tmp_path / "changed.csv", [*rows[:3], ("d", 61, "We will see Kurt.")])
        report = anonymize_csv(changed, config, tmp_path / "c.csv", recognize=recognize, cache=cache)
        assert not report["spread_cached"] and report["spread_terms"] == {"PERSON": 3}
        # A damaged entry (a removed term that is not there) is not trusted: the recoding is done again.
        cache._db.execute("""UPDATE spread_v2 SET terms = '{"0": [[99], []]}'""")
        report = anonymize_csv(source, config, tmp_path / "damaged.csv", recognize=recognize, cache=cache)
        assert not report["spread_cached"] and report["spread_terms"] == {"PERSON": 2}
    assert (tmp_path / "damaged.csv").read_bytes() == (tmp_path / "first.csv").read_bytes()


def test_spreading_takes_whole_words_of_the_most_frequent_type_only():
    texts = ["Omaha is big.", "omaha again", "In Omaha now.", "Omahaville and Omaha-style", "it's Omaha's"]
    recognized = [[Term(0, 5, "GPE", "Omaha")], [Term(0, 5, "ORG", "omaha")], [Term(3, 8, "GPE", "Omaha")], [], []]
    spreader = OccurrenceSpreader("dataset", is_common_word=lambda word: False).fit(texts, recognized)
    out = spreader.transform(texts, recognized)
    assert out[:3] == recognized[:3]  # nothing new where every occurrence was tagged
    assert out[3] == []  # inside a longer word or glued by a hyphen: not the name standing alone
    assert [(t.text, t.label) for t in out[4]] == [("Omaha", "GPE")]  # the possessive is the name


def test_overlapping_strings_are_recoded_together():
    # "Hard Rock" and "Rock Cafe" overlap at "Rock": recoding only the leftmost would release "Cafe", so the two
    # become one term, of the leftmost one's type.
    texts = ["Hard Rock rules.", "Rock Cafe opens.", "a Hard Rock Cafe pin"]
    recognized = [[Term(0, 9, "GPE", "Hard Rock")], [Term(0, 9, "ORG", "Rock Cafe")], []]
    spreader = OccurrenceSpreader("dataset", is_common_word=lambda word: False).fit(texts, recognized)
    assert [(t.text, t.label) for t in spreader.transform_one(texts[2], [])] == [("Hard Rock Cafe", "GPE")]


def test_a_string_recognized_whole_takes_in_the_shorter_term_tagged_inside_it():
    # NER tagged "august 4th" once and only "august" the second time: "4th" must not be released beside it.
    text = "on august 4th. Yes august 4th so"
    recognized = [Term(3, 13, "DATE", "august 4th"), Term(19, 25, "DATE", "august")]
    spreader = OccurrenceSpreader("dataset", is_common_word=lambda word: False).fit([text], [recognized])
    out = spreader.transform_one(text, recognized)
    assert [(t.text, t.label) for t in out] == [("august 4th", "DATE"), ("august 4th", "DATE")]
    # A span NER tagged exactly keeps the type NER gave it there.
    assert spreader.transform_one("august 4th", [Term(0, 10, "TIME", "august 4th")])[0].label == "TIME"


@pytest.mark.parametrize(("text", "expected"), [
    ("38%pf of parents", "38%"),  # the string ends in punctuation: the letters after it are another word
    ("people with Ph.D.s here", "Ph.D."),
    ("&lt;sarcasm&gt; indeed", "sarcasm&"),
])
def test_a_string_ending_in_punctuation_is_matched_before_a_letter(text, expected):
    string = expected
    spreader = OccurrenceSpreader("dataset", is_common_word=lambda word: False).fit(
        [f"x {string} y"], [[Term(2, 2 + len(string), "ORG", string)]])
    assert [t.text for t in spreader.transform_one(text, [])] == [expected]


def test_the_re_read_reads_words_as_written_and_values_as_shown(tmp_path):
    from anonymizer.kanon.verify import surviving_strings

    texts = ["ï¿½All right, enough.",  # NFKC would turn "½All" into "1⁄2all" and show a "2all" that is not there
             "A Nobel Prize-winning economist.",  # the class shows "Nobel Prize": "Nobel" stands only inside it
             "the “a city in the United Statesâ€\x9d in June",  # mojibake after a shown value
             "a Nebraskan in a city in Nebraska"]  # "Nebraskan" is not the shown "Nebraska"
    output = tmp_path / "out.csv"
    with output.open("w", encoding="utf-8", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(["text"])
        writer.writerows([t] for t in texts)
    recognized = {"2all": "PERSON", "nobel": "WORK_OF_ART", "nobel prize": "WORK_OF_ART",
                  "statesâ\x80\x9d": "PERSON", "nebraskan": "NORP", "nebraska": "GPE"}
    allowed = [[], ["nobel prize"], ["a city in the United States"], ["a city in Nebraska"]]
    found = surviving_strings(output, ["text"], recognized, lambda row: allowed[row],
                              lambda word: word in {"a", "all", "right", "the", "city", "in", "states"})
    assert found["examples"] == [(3, "NORP", "nebraskan")] and found["rows_with_names"] == 1


def test_html_entities_are_markup_not_names():
    from anonymizer.kanon.occurrences import is_common_word

    assert is_common_word("nbsp") and is_common_word("quot") and not is_common_word("nebraska")


# ------------------------------------------------------------------------------------ hierarchies

@pytest.fixture(scope="module")
def hierarchies() -> TermHierarchies:
    return TermHierarchies()


@pytest.mark.parametrize(("label", "terms", "expected"), [
    ("GPE", ["Omaha", "Lincoln"], "a city in Nebraska"),
    ("GPE", ["Omaha", "Chicago"], "a city in the United States"),
    ("GPE", ["Omaha", "Paris"], "GPE"),
    ("DATE", ["June 5, 2004", "June 20, 2004"], "June 2004"),
    ("DATE", ["June 5, 2004", "the 14th of March 2004"], "2004"),
    ("DATE", ["5/6/2004", "1998"], "DATE"),
    ("TIME", ["8:30 pm", "7pm"], "an evening time"),
    ("MONEY", ["$37", "$31.50"], "$30-39"),
    ("NORP", ["German", "French"], "European"),
    ("PERSON", ["Kurt", "Lucas"], "PERSON"),
])
def test_a_class_releases_the_least_common_ancestor_of_its_terms(hierarchies, label, terms, expected):
    _, view = _two_person_view(label, terms, hierarchies)
    recodings, _ = recode_classes(view, [np.array([0, 1])], _config(label), hierarchies)
    shown = {recodings[0].released(label, hierarchies.path(label, t.casefold(), t)).text for t in terms}
    assert shown == {expected}


def test_a_term_every_person_has_stays_as_written(hierarchies):
    _, view = _two_person_view("GPE", ["Omaha", "Omaha"], hierarchies)
    recodings, _ = recode_classes(view, [np.array([0, 1])], _config("GPE"), hierarchies)
    path = hierarchies.path("GPE", "omaha", "Omaha")
    assert recodings[0].released("GPE", path) is path[0]


def _config(label: str):
    return load_config(CONFIG.replace("[PERSON, GPE, DATE, TIME, MONEY]", f"[{label}]"), columns=["id", "age", "text"])


def _two_person_view(label, terms, hierarchies):
    import io

    lines = "id,age,text\n" + "".join(f"p{i},30,x\n" for i in range(len(terms)))
    config = _config(label)
    table = read_table(io.BytesIO(lines.encode()), config)
    row_terms = [[Term(0, len(t), label, t)] for t in terms]
    return table, build_view(table, config, row_terms, hierarchies)


# ------------------------------------------------------------------------------------ the released blog file

def test_released_blog_texts_share_every_term_they_show(tmp_path, recognizer):
    """k-anonymity re-checked on what is released (the written file): no recognized name stands where its class
    does not share it, and every generalized value written in a person's text ("a city in Nebraska", "an
    evening time") is held — on the path of one of their terms — by every person of the class."""
    from anonymizer.kanon.partition import partition
    from anonymizer.kanon.pipeline import recognize_rows, spread_terms

    source = shared_data("kanon/blogs_1k.csv")
    config = load_config(kanon_file("rx-anon/e_blog_authorship_corpus.yaml").read_text(),
                         columns=["id", "gender", "age", "topic", "sign", "date", "text"]).with_parameters(k=2)
    report = anonymize_csv(source, config, tmp_path / "out.csv", recognize=recognizer.recognize_many)
    with source.open("rb") as handle:
        table = read_table(handle, config)
    row_terms, _ = spread_terms(source, table, config, recognize_rows(
        source, table, config, recognizer.recognize_many, lambda *args: None))
    assert report["k_reached"] and report["generalize_terms"]
    assert report["released_terms"]["generalized"] > 50 and report["released_terms"]["kept"] > 100
    assert report["recognized_names_left"] == 0, report["recognized_names_left_by_type"]

    # The classes and what each person holds, rebuilt here from the partition and the hierarchies.
    hierarchies = TermHierarchies()
    view = build_view(table, config, [[t for column in terms for t in column] for terms in row_terms], hierarchies)
    classes = partition(view, config).classes
    holds = []
    for person in range(view.size):
        texts = set()
        for label, per_person in view.terms.items():
            for key in per_person[person]:
                for node in hierarchies.path(label, key, view.spellings[label][key])[1:-1]:
                    texts |= hierarchies.texts_of(label, node.key)
        holds.append(texts)
    generic = sorted({text for person in holds for text in person if re.match(r"an? .{6,}", text)}, key=len,
                     reverse=True)
    with source.open(encoding="utf-8", newline="") as handle:
        row_person = [view.persons.index(row["id"]) for row in csv.DictReader(handle)]
    class_of = {p: c for c, members in enumerate(classes) for p in members.tolist()}
    seen = 0
    for row, text in enumerate(read_texts(tmp_path / "out.csv")):
        mates = classes[class_of[row_person[row]]].tolist()
        for phrase in generic:
            if phrase in text:
                seen += 1
                text = text.replace(phrase, "")  # "a city in Nebraska" holds "a place in ..." no more
                assert all(phrase in holds[m] for m in mates), (row, phrase)
    assert seen > 10


def test_recognition_progress_counts_characters(tmp_path):
    """One long cell among short ones: progress is counted in characters (and texts), not rows."""
    rows = [("a", 30, "short"), ("b", 31, "x " * 50_000), ("c", 32, "short too")]
    source = write_csv(tmp_path / "posts.csv", rows)
    seen = []

    def progress(done, total, message):
        seen.append((done, total, message))

    def slow_recognizer(texts):
        for _ in texts:
            yield []

    from anonymizer.kanon.pipeline import recognize_rows

    config = load_config(CONFIG, columns=["id", "age", "text"])
    with source.open("rb") as handle:
        table = read_table(handle, config)
    recognize_rows(source, table, config, slow_recognizer, progress)
    total = 5 + 100_000 + 9
    assert seen[-1][:2] == (total, total)
    assert seen[-1][2] == "recognizing sensitive terms: 3 of 3 texts, 100,014 of 100,014 characters"


def test_progress_moves_inside_one_huge_cell(tmp_path, monkeypatch):
    """A recognizer that reports characters as it goes through a long text: the bar moves before it is done."""
    import anonymizer.kanon.pipeline as pipeline

    source = write_csv(tmp_path / "posts.csv", [("a", 30, "x " * 100_000)])
    seen = []
    clock = iter(range(0, 10_000, 5))  # every reading of the clock is 5 s later
    monkeypatch.setattr(pipeline.time, "monotonic", lambda: next(clock))

    def recognizer(texts, on_characters=None):
        for text in texts:
            for done in range(50_000, len(text) + 1, 50_000):
                on_characters(done)
            yield []

    config = load_config(CONFIG, columns=["id", "age", "text"])
    with source.open("rb") as handle:
        table = read_table(handle, config)
    pipeline.recognize_rows(source, table, config, recognizer, lambda *report: seen.append(report))
    assert [done for done, _, _ in seen] == [50_000, 100_000, 150_000, 200_000, 200_000]
    assert seen[0][2] == "recognizing sensitive terms: 0 of 1 texts, 50,000 of 200,000 characters"
