"""CODE: identifying numbers (application, case, registration, account numbers, long ids) are recognized in
every configuration, whatever spaCy calls them; years, prices, dates, scores and phone numbers stay what they
were (issue 44: TAB's 32 direct application numbers stayed readable under the blog configuration)."""

from __future__ import annotations

import pytest

from anonymizer.recognize import ALWAYS_TYPES, RULE_TYPES, TermRecognizer
from anonymizer.recognize.codes import code_spans

#: rx-anon's blog configuration: no CARDINAL, no CODE.
BLOG_TYPES = ("PERSON", "NORP", "FAC", "ORG", "GPE", "LOC", "PRODUCT", "EVENT", "WORK_OF_ART", "LAW", "LANGUAGE",
              "DATE", "TIME", "PERCENT", "MONEY", "MAIL", "URL", "PHONE", "POSTCODE")


def codes(text: str) -> list[str]:
    return sorted({text[start:end] for start, end in code_spans(text)}, key=text.find)


@pytest.mark.parametrize(("text", "expected"), [
    ("The case originated in an application (no. 36110/97) against Turkey", ["36110/97"]),
    ("application no. 12345/03 was lodged", ["12345/03"]),
    ("in two applications (nos. 1/02 and 3/04) against Poland", ["1/02", "3/04"]),
    ("applications nos. 26480/95, 28291/95 and 29280/95 were joined", ["26480/95", "28291/95", "29280/95"]),
    ("the plots nos. 260, 268, 45, 119/5, 121/2/3 and 425. The applicant", ["260", "268", "45", "119/5",
                                                                            "121/2/3", "425"]),
    ("under registration no. D-4840. On this", ["D-4840"]),
    ("the prosecution (case no. 1996/302). On 13 June", ["1996/302"]),
    ("a complaint registered under no. 1057.", ["1057"]),
    ("his passport X1234567 expired", ["X1234567"]),
    ("my account number 12345678 at the bank", ["12345678"]),
    ("quote ref: 88-123 when paying", ["88-123"]),
    ("licence no. AB-99-1234 issued in 2001", ["AB-99-1234"]),
    ("ID: AB123456", ["AB123456"]),
    ("Member ID: 4455, since 2001", ["4455"]),
    ("order #12345 shipped", ["12345"]),
    ("file 2003/4471 was closed", ["2003/4471"]),
    ("it was lodged as 36110/97 in Strasbourg", ["36110/97"]),          # the application shape, no cue
    ("his student number is 20481234.", ["20481234"]),
    ("serial 98765432 on the back", ["98765432"]),
])
def test_identifying_numbers_are_codes(text, expected):
    assert codes(text) == expected


@pytest.mark.parametrize("text", [
    "In 2004 we moved; the 1990s, 2003 2004 2005.",              # years
    "It cost $1000000, or 250000 euros, or £12.99.",              # prices
    "A round 1000000 people came.",                               # an amount
    "On 12/05/2004 and 05/14/2004 and 2004/05/14, 12/05 and 05/2004.",     # dates
    "The score was 3/4, then 24/7, 50/50, 9/11, 120/80.",         # scores, fractions, a blood pressure
    "Call 555-123-4567 or +49 30 1234567 or 030 1234567.",        # phone numbers (PHONE's)
    "Protocol No. 1, Article 6 § 1, Law no. 2559, Series A no. 268-A.",    # instruments, not persons
    "the no. 1 song, number 10 in the charts, #1 fan, my no. 12",  # ranks
    "version 1.2.3, pi is 3.14159265, 1,234,567 views",           # versions, decimals, groupings
    "born on 20040512 at dawn",                                   # a date written compactly
    "case 500 people would come",                                 # a naming noun without a code
    "id 5000 times rather stay home",                             # chat "I'd", not an id
    "in fiscal 2003/04 and 2003/2004, in 1979/80",                # spans of years
    "a 303/808/909 and color: #666666",                           # drum machines, a colour
])
def test_other_numbers_are_not_codes(text):
    assert codes(text) == []


def test_code_is_a_rule_type_recognized_always():
    assert "CODE" in RULE_TYPES and ALWAYS_TYPES == ("CODE",)


@pytest.fixture(scope="module")
def blog_recognizer() -> TermRecognizer:
    return TermRecognizer(entity_types=BLOG_TYPES)


def test_blog_configuration_masks_application_numbers(blog_recognizer):
    text = ("The case originated in an application (no. 36110/97) against the Republic of Turkey lodged with "
            "the Court under Article 34 of the Convention by a Turkish national on 4 May 1997.")
    terms = blog_recognizer.recognize(text)
    assert [(t.text, t.label) for t in terms if t.label == "CODE"] == [("36110/97", "CODE")]


@pytest.mark.parametrize("types", [["PERSON"], ["MAIL", "URL", "PHONE", "POSTCODE"], []])
def test_codes_are_recognized_in_every_configuration(types):
    text = "application no. 12345/03, call 030 1234567, since 2004 for $1000000"
    terms = TermRecognizer(entity_types=types).recognize(text)
    assert [(t.text, t.label) for t in terms if t.label == "CODE"] == [("12345/03", "CODE")]
    assert not any(t.label == "CODE" and t.text in ("030 1234567", "1234567", "2004", "1000000") for t in terms)


def test_phone_keeps_its_number():
    text = "my phone number is 555-123-4567 and yours 030 1234567"
    labels = {t.text: t.label for t in TermRecognizer(entity_types=["PHONE"]).recognize(text)}
    assert labels == {"555-123-4567": "PHONE", "030 1234567": "PHONE"}


def test_code_changes_the_fingerprint():
    from anonymizer.recognize import rules

    assert rules.RULES_VERSION not in ("1", "2")
    assert any(rule.label == "CODE" for rule in rules.RULES)
