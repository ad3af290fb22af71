"""The configuration's structure is typed (anonymizer.kanon.config.structure): every section and field of
rx-anon's format and of ours has a declared shape, checked before any value is used, and a value of the wrong
shape is one error naming its path, what was expected and what was found, with no follow-up noise."""

from __future__ import annotations

import json
import time

import pytest
import yaml

from anonymizer.kanon.config import ConfigError, KanonConfig, load_config
from anonymizer.kanon.config.structure import OURS, RX_ANON, structure_errors
from tests.helpers import replaced_at

COLUMNS = ("id", "gender", "age", "topic", "sign", "date", "text")


def rx() -> dict:
    """A valid rx-anon configuration using every section and field."""
    return {
        "parameters": {"k": 2, "strategy": "mondrian", "relational_weight": 0.5},
        "nlp": {"model": "en_core_web_sm", "cache": "data/cached_docs/blogs"},
        "attributes": {
            "id": {"anonymization_type": "direct_identifier"},
            "gender": {"type": "nominal", "anonymization_type": "quasi_identifier", "bias": 0.2,
                       "entities": ["NORP"]},
            "age": {"type": "numerical", "anonymization_type": "quasi_identifier",
                    "hierarchy": {"name": "1-100", "children": [{"name": "1-50"}, {"name": "51-100"}]}},
            "topic": {"type": "ordinal", "anonymization_type": "quasi_identifier", "order": ["a", "b"]},
            "date": {"type": "date", "anonymization_type": "quasi_identifier", "format": "%d,%B,%Y"},
            "text": {"type": "text", "anonymization_type": "text"},
        },
        "entities": {"native": ["PERSON", "GPE"], "custom": {"JOB": "engineer|scientist", "SID": ["[a-z]{2}\\d+"]}},
    }


def ours() -> dict:
    """A valid configuration in our schema using every section and field."""
    return {
        "version": 1, "k": 2, "strategy": "mondrian", "relational_weight": 0.5, "seed": 0,
        "nlp_model": "en_core_web_sm", "entity_types": ["PERSON"], "warnings": [],
        "l_diversity": None,
        "custom_entities": [{"label": "SID", "patterns": ["[a-z]{2}\\d+"], "terms": ["biology"]}],
        "attributes": [
            {"name": "id", "role": "direct_identifier", "type": "nominal"},
            {"name": "gender", "role": "quasi_identifier", "type": "nominal", "bias": 0.1, "entities": ["NORP"]},
            {"name": "age", "role": "quasi_identifier", "type": "numerical", "hierarchy": {"name": "0-100"}},
            {"name": "topic", "role": "quasi_identifier", "type": "ordinal", "order": ["a", "b"]},
            {"name": "sign", "role": "sensitive", "type": "nominal"},
            {"name": "date", "role": "quasi_identifier", "type": "date", "date_format": "%d,%B,%Y"},
            {"name": "text", "role": "text", "type": "text"},
        ],
    }



def errors_of(text: str) -> list[ConfigError]:
    with pytest.raises(ConfigError) as caught:
        load_config(text, columns=COLUMNS)
    return caught.value.errors


def test_the_bases_are_valid():
    for document in (rx(), ours()):
        load_config(json.dumps(document), columns=COLUMNS)
        assert structure_errors(document, RX_ANON if "parameters" in document else OURS) == []
    KanonConfig.from_dict(ours())


def test_entities_native_with_a_mapping_names_the_item():
    """The finding: ``entities: {native: [{a: 1}]}``, a field error naming the list and the item."""
    (error,) = errors_of(yaml.safe_dump(replaced_at(rx(), ("entities", "native"), [{"a": 1}])))
    assert (error.field, error.message) == (
        "entities.native", "item 1, {'a': 1}, is a mapping; expected an entity type name (a string)")


# (path in rx(), a value of the wrong shape, the field named, what the message says)
RX_SHAPES = [
    ((), None, "config", "the file is empty"),
    (("parameters",), [2], "parameters", "expected a mapping of k, strategy and relational_weight, got a list"),
    (("parameters",), 5, "parameters", "got an integer"),
    (("parameters", "k"), [5], "parameters.k", "expected an integer >= 2, got a list"),
    (("parameters", "k"), None, "parameters.k", "expected an integer >= 2, got null"),
    (("parameters", "k"), {"a": 1}, "parameters.k", "got a mapping"),
    (("parameters", "k"), "5", "parameters.k", "'5' is not an integer"),
    (("parameters", "strategy"), {"a": {"b": 1}}, "parameters.strategy",
     "expected a strategy, mondrian or gdf, got a mapping"),
    (("parameters", "strategy"), 7, "parameters.strategy", "7 is not a string"),
    (("parameters", "relational_weight"), [0.5], "parameters.relational_weight", "got a list"),
    (("parameters", "relational_weight"), "half", "parameters.relational_weight", "'half' is not a number"),
    (("nlp",), "en_core_web_sm", "nlp", "expected a mapping of model and cache, got a string"),
    (("nlp", "model"), ["en_core_web_sm"], "nlp.model", "expected the name of a spaCy model (a string), got a list"),
    (("nlp", "cache"), {"a": 1}, "nlp.cache", "expected a directory (a string) or a boolean, got a mapping"),
    (("nlp", "cache"), 3, "nlp.cache", "3 is not a string or a boolean"),
    (("attributes",), ["id", "text"], "attributes", "expected a mapping of column names to their settings, got a list"),
    (("attributes", "gender"), ["quasi_identifier"], "attributes.gender", "got a list"),
    (("attributes", "gender"), 3, "attributes.gender", "got an integer"),
    (("attributes", "gender", "anonymization_type"), {"a": 1}, "attributes.gender.anonymization_type",
     "expected a role (a string such as quasi_identifier), got a mapping"),
    (("attributes", "gender", "anonymization_type"), True, "attributes.gender.anonymization_type",
     "True is not a string (YAML reads yes/no"),
    (("attributes", "gender", "type"), ["nominal"], "attributes.gender.type",
     "expected a type (a string such as nominal), got a list"),
    (("attributes", "gender", "bias"), {"a": 1}, "attributes.gender.bias",
     "expected a number between 0 and 1, got a mapping"),
    (("attributes", "gender", "entities"), {"PERSON": 1}, "attributes.gender.entities",
     "expected a list of entity type names, got a mapping"),
    (("attributes", "gender", "entities"), [["PERSON"]], "attributes.gender.entities",
     "item 1, ['PERSON'], is a list; expected an entity type name (a string)"),
    (("attributes", "date", "format"), ["%Y"], "attributes.date.format", "got a list"),
    (("attributes", "topic", "order"), {"a": 1}, "attributes.topic.order", "expected a list of the column's values"),
    (("attributes", "topic", "order"), ["a", {"b": 1}], "attributes.topic.order", "item 2, {'b': 1}, is a mapping"),
    (("attributes", "topic", "order"), ["a", True], "attributes.topic.order", "item 2, True, is a boolean"),
    (("attributes", "age", "hierarchy"), ["1-100"], "attributes.age.hierarchy", "the root node: expected a node"),
    (("attributes", "age", "hierarchy", "name"), 100, "attributes.age.hierarchy",
     "the root node: its name 100 is an integer"),
    (("attributes", "age", "hierarchy", "children"), {"name": "1-50"}, "attributes.age.hierarchy",
     "children of '1-100': expected a list of nodes, got a mapping"),
    (("attributes", "age", "hierarchy", "children", 1), [1], "attributes.age.hierarchy",
     "child 2 of '1-100': expected a node"),
    (("attributes", "age", "hierarchy", "children", 0, "name"), None, "attributes.age.hierarchy",
     "child 1 of '1-100': its name None is null"),
    (("entities",), ["PERSON"], "entities", "expected a mapping of native and custom, got a list"),
    (("entities", "native"), 5, "entities.native", "expected a list of entity type names, got an integer"),
    (("entities", "native"), "PERSON", "entities.native", "got a string"),
    (("entities", "native", 1), None, "entities.native", "item 2, None, is null"),
    (("entities", "native", 0), {"a": {"b": {}}}, "entities.native", "item 1, {'a': {'b': {}}}, is a mapping"),
    (("entities", "custom"), ["a"], "entities.custom",
     "expected a mapping of labels to regular expressions, got a list"),
    (("entities", "custom", "JOB"), {"a": 1}, "entities.custom.JOB",
     "expected a regular expression (a string) or a list of regular expressions, got a mapping"),
    (("entities", "custom", "SID"), [["a"]], "entities.custom.SID", "item 1, ['a'], is a list"),
    (("entities", "custom", "JOB"), 5, "entities.custom.JOB", "5 is not a string"),
]


@pytest.mark.parametrize(("path", "value", "field", "words"), RX_SHAPES,
                         ids=[f"{'.'.join(map(str, p)) or 'document'}={v!r}" for p, v, _, _ in RX_SHAPES])
def test_a_wrong_shape_in_an_rx_anon_file_is_one_error_naming_its_path(path, value, field, words):
    document = replaced_at(rx(), path, value)
    for text in (yaml.safe_dump(document), json.dumps(document)):
        errors = errors_of(text)
        assert [(error.field, words in error.message) for error in errors] == [(field, True)], errors


# (path in ours(), a value of the wrong shape, the field named, what the message says)
OUR_SHAPES = [
    (("version",), [1], "version", "expected the schema version, 1, got a list"),
    (("k",), [2], "k", "expected an integer >= 2, got a list"),
    (("k",), "2", "k", "'2' is not an integer"),
    (("seed",), None, "seed", "got null"),
    (("strategy",), {"a": 1}, "strategy", "got a mapping"),
    (("nlp_model",), 7, "nlp_model", "7 is not a string"),
    (("entity_types",), [{"a": 1}], "entity_types", "item 1, {'a': 1}, is a mapping"),
    (("warnings",), [1], "warnings", "item 1, 1, is an integer; expected a message (a string)"),
    (("l_diversity",), "sign", "l_diversity", "expected {column: <sensitive column>, l: <integer >= 2>} or null"),
    (("l_diversity",), {"column": "sign", "l": "lots"}, "l_diversity.l", "'lots' is not an integer"),
    (("l_diversity",), {"column": ["sign"], "l": 2}, "l_diversity.column", "got a list"),
    (("l_diversity",), ["sign", [2]], "l_diversity.l", "got a list"),
    (("custom_entities",), {"SID": "x"}, "custom_entities", "expected a list of custom entities, got a mapping"),
    (("custom_entities", 0), "SID", "custom_entities.0",
     "expected a mapping with label, patterns and terms, got a string"),
    (("custom_entities", 0, "label"), 5, "custom_entities.0", "its label 5 is an integer"),
    (("custom_entities", 0, "patterns"), "x", "custom_entities.SID.patterns", "expected a list of regular expressions"),
    (("custom_entities", 0, "terms"), [["x"]], "custom_entities.SID.terms", "item 1, ['x'], is a list"),
    (("attributes",), "all", "attributes", "expected a list of attributes, got a string"),
    (("attributes", 1), 5, "attributes.1", "expected a mapping with a column name, role and type, got an integer"),
    (("attributes", 1, "name"), ["gender"], "attributes.1", "a name ['gender'], which is a list"),
    (("attributes", 1, "role"), {"a": 1}, "attributes.gender.role", "got a mapping"),
    (("attributes", 1, "type"), 3, "attributes.gender.type", "3 is not a string"),
    (("attributes", 1, "bias"), [0.1], "attributes.gender.bias", "got a list"),
    (("attributes", 1, "entities"), "NORP", "attributes.gender.entities", "expected a list of entity type names"),
    (("attributes", 2, "hierarchy"), ["0-100"], "attributes.age.hierarchy", "the root node: expected a node"),
    (("attributes", 3, "order"), [None], "attributes.topic.order", "item 1, None, is null"),
    (("attributes", 5, "date_format"), {"a": 1}, "attributes.date.date_format", "got a mapping"),
]


@pytest.mark.parametrize(("path", "value", "field", "words"), OUR_SHAPES,
                         ids=[f"{'.'.join(map(str, p))}={v!r}" for p, v, _, _ in OUR_SHAPES])
def test_a_wrong_shape_in_our_schema_is_one_error_naming_its_path(path, value, field, words):
    document = replaced_at(ours(), path, value)
    for text in (yaml.safe_dump(document), json.dumps(document)):
        errors = errors_of(text)
        assert [(error.field, words in error.message) for error in errors] == [(field, True)], errors
    with pytest.raises(ConfigError) as caught:  # the API's JSON configuration is checked the same way
        KanonConfig.from_dict(document)
    assert any(error.field == field and words in error.message for error in caught.value.errors)


@pytest.mark.parametrize(("path", "value"), [
    (("attributes", "id"), ["direct_identifier"]),
    (("attributes", "id"), 7),
    (("attributes", "id", "anonymization_type"), ["direct_identifier"]),
    (("attributes", "id", "anonymization_type"), {"a": 1}),
])
def test_a_wrong_shape_of_the_identifiers_settings_says_nothing_about_the_other_columns(path, value):
    """With the identifier's role unknown, "no direct identifier" would be noise."""
    errors = errors_of(yaml.safe_dump(replaced_at(rx(), path, value)))
    assert [error.field for error in errors] == [".".join(path)], errors


def test_wrong_shapes_everywhere_are_all_reported_each_once():
    document = rx()
    document["parameters"]["k"] = [2]
    document["nlp"]["cache"] = {"a": 1}
    document["attributes"]["gender"]["type"] = ["nominal"]
    document["entities"]["native"] = ["PERSON", {"a": 1}]
    document["attributes"]["age"]["bias"] = 7  # and one value of the right shape that validation refuses
    fields = [error.field for error in errors_of(yaml.safe_dump(document))]
    assert sorted(fields) == sorted(["parameters.k", "nlp.cache", "attributes.gender.type", "entities.native",
                                     "attributes.age.bias"])


def test_a_hierarchy_that_aliases_make_endless_is_checked_in_bounded_time():
    text = ("attributes:\n  id: {anonymization_type: direct_identifier}\n"
            "  age: {type: numerical, anonymization_type: quasi_identifier,\n"
            "        hierarchy: &a {name: 1-100, children: [*a, *a, {name: [1]}]}}\n")
    started = time.perf_counter()
    errors = errors_of(text)
    assert time.perf_counter() - started < 2
    assert {error.field for error in errors} == {"attributes.age.hierarchy"}
    assert len(errors) == len({error.message for error in errors}) <= 5  # each problem once


def test_a_document_wrong_everywhere_reports_a_bounded_number_of_problems():
    text = "attributes:\n" + "".join(f"  c{i}: [x]\n" for i in range(2000))
    errors = errors_of(text)
    assert len(errors) == 51 and errors[-1].field == "config" and "more problems not shown" in errors[-1].message
