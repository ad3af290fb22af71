"""Identifying numbers leave the released texts under rx-anon's blog configuration, which lists neither CARDINAL
nor CODE (issue 44: TAB's application numbers "no. 36110/97" stayed readable)."""

from __future__ import annotations

import csv

from anonymizer.kanon.config import load_config
from anonymizer.kanon.pipeline import anonymize_csv
from anonymizer.recognize import TermRecognizer

HEADER = ["id", "gender", "age", "topic", "sign", "date", "text"]
BLOG_CONFIG = """
parameters: {k: 2, strategy: mondrian, relational_weight: 0.5}
attributes:
  id: {anonymization_type: direct_identifier}
  gender: {type: nominal, anonymization_type: quasi_identifier}
  age: {type: numerical, anonymization_type: quasi_identifier}
  text: {type: text, anonymization_type: text}
entities:
  native: [PERSON, NORP, FAC, ORG, GPE, LOC, PRODUCT, EVENT, WORK_OF_ART, LAW, LANGUAGE, DATE, TIME, PERCENT,
           MONEY, MAIL, URL, PHONE, POSTCODE]
"""
ROWS = [
    ("1", "male", "25", "Student", "Aries", "01,May,2004", "My application no. 36110/97 was finally registered."),
    ("2", "female", "27", "Student", "Aries", "02,May,2004", "They gave me case number 2004/1187 and a smile."),
    ("3", "male", "26", "Student", "Leo", "03,May,2004", "In 2004 I paid $1000000 for a 3/4 share, call 030 1234567."),
    ("4", "female", "28", "Student", "Leo", "04,May,2004", "My passport X1234567 expired on 12/05/2004."),
]


def test_codes_are_recoded_although_the_configuration_leaves_them_out(tmp_path):
    source, output = tmp_path / "in.csv", tmp_path / "out.csv"
    with source.open("w", encoding="utf-8", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(HEADER)
        writer.writerows(ROWS)
    config = load_config(BLOG_CONFIG, columns=HEADER)
    assert "CODE" not in config.entity_types
    anonymize_csv(source, config, output, recognize=TermRecognizer(entity_types=config.entity_types).recognize_many)
    with output.open(encoding="utf-8", newline="") as handle:
        released = " ".join(row["text"] for row in csv.DictReader(handle))
    for code in ("36110/97", "2004/1187", "X1234567"):
        assert code not in released, released
    assert "CODE" in released
    assert "3/4" in released        # a share stays; the rest is the configuration's business
