"""anonymizer.kanon.config: our schema and rx-anon's YAML files, validation, prefill from a profile."""

from __future__ import annotations

import copy
import dataclasses
import json
import pickle
import re
from collections.abc import Callable

import pytest
import yaml

from anonymizer.kanon.config import (
    BUILTIN_TYPES,
    DEFAULT_MODEL,
    ONTONOTES_TYPES,
    RULE_TYPES,
    AttributeConfig,
    ConfigError,
    CustomEntity,
    HierarchyNode,
    KanonConfig,
    config_from_profile,
    load_config,
    validate,
)
from anonymizer.tabular import profile_csv
from tests.helpers import kanon_file, shared_data

BLOG = ("id", "gender", "age", "topic", "sign", "date", "text")
RICH = (*BLOG, "education", "diagnosis")
BLOG_NATIVE = set(BUILTIN_TYPES) - {"QUANTITY", "ORDINAL", "CARDINAL", "CODE"}  # the rx-anon blog files' 19


def rx_file(name: str) -> str:
    return kanon_file(f"rx-anon/{name}").read_text(encoding="utf-8")


def uncomment_hierarchy(text: str) -> str:
    """blog_authorship_corpus.yaml with its commented-out age hierarchy switched on."""
    return re.sub(r"(?m)^    # ?", "    ", text)


def ours() -> dict:
    """A valid configuration in our schema for the blog header."""
    return {
        "k": 3,
        "attributes": [
            {"name": "id", "role": "direct_identifier", "type": "nominal"},
            {"name": "gender", "role": "quasi_identifier", "type": "nominal"},
            {"name": "age", "role": "quasi_identifier", "type": "numerical"},
            {"name": "topic", "role": "quasi_identifier", "type": "nominal"},
            {"name": "sign", "role": "quasi_identifier", "type": "nominal"},
            {"name": "date", "role": "quasi_identifier", "type": "date", "date_format": "%d,%B,%Y"},
            {"name": "text", "role": "text", "type": "text"},
        ],
    }


def rx() -> dict:
    """A valid configuration in rx-anon's format for the blog header."""
    return {
        "parameters": {"k": 2, "strategy": "mondrian", "relational_weight": 0.5},
        "attributes": {
            "id": {"anonymization_type": "direct_identifier"},
            "gender": {"type": "nominal", "anonymization_type": "quasi_identifier"},
            "age": {"type": "numerical", "anonymization_type": "quasi_identifier"},
            "date": {"type": "date", "anonymization_type": "quasi_identifier", "format": "%d,%B,%Y"},
            "text": {"type": "text", "anonymization_type": "text"},
        },
        "entities": {"native": ["PERSON", "GPE"], "custom": {"JOB": "engineer|scientist"}},
    }


def attr(data: dict, name: str) -> dict:
    return next(item for item in data["attributes"] if item["name"] == name)


def load(data: dict, columns=BLOG) -> KanonConfig:
    return load_config(json.dumps(data), columns=columns)


def errors_of(action: Callable[[], object]) -> dict[str, str]:
    with pytest.raises(ConfigError) as caught:
        action()
    return {error.field: error.message for error in caught.value.errors}


def rich() -> KanonConfig:
    """A configuration using every feature, for round trips."""
    hierarchy = HierarchyNode(0, 99, (HierarchyNode(0, 49, (HierarchyNode(0, 19), HierarchyNode(20, 49))),
                                       HierarchyNode(50, 99)))
    return KanonConfig(
        attributes=(
            AttributeConfig("id", "direct_identifier", "nominal"),
            AttributeConfig("gender", "quasi_identifier", "nominal", bias=0.25, entities=("PERSON",)),
            AttributeConfig("age", "quasi_identifier", "numerical", hierarchy=hierarchy, entities=("DATE",)),
            AttributeConfig("topic", "quasi_identifier", "nominal", entities=("TOPIC",)),
            AttributeConfig("sign", "insensitive", "nominal"),
            AttributeConfig("date", "quasi_identifier", "date", bias=1.0, date_format="%Y-%m-%d"),
            AttributeConfig("text", "text", "text"),
            AttributeConfig("education", "quasi_identifier", "ordinal", order=("school", "bachelor", "master")),
            AttributeConfig("diagnosis", "sensitive", "nominal"),
        ),
        k=4,
        strategy="gdf",
        relational_weight=0.3,
        entity_types=("PERSON", "GPE", "DATE", "MAIL"),
        custom_entities=(CustomEntity("TOPIC", patterns=(r"\bscience\b",), terms=("biology",)),
                         CustomEntity("STUDENT_ID", patterns=(r"[A-Z]{2}\d{6}",))),
        l_diversity=("diagnosis", 2),
        seed=7,
        warnings=("an earlier warning",),
    )


# ------------------------------------------------------------------------------------------ rx-anon's files


def test_blog_authorship_corpus_yaml():
    config = load_config(rx_file("blog_authorship_corpus.yaml"), columns=BLOG)
    assert (config.k, config.strategy, config.relational_weight) == (2, "gdf", 0.0)
    assert type(config.relational_weight) is float and type(config.attribute("gender").bias) is float  # YAML: 0
    assert config.nlp_model == DEFAULT_MODEL
    assert len(config.warnings) == 1 and "en_core_web_trf" in config.warnings[0]
    assert len(config.entity_types) == 19 and set(config.entity_types) == BLOG_NATIVE
    assert [entity.label for entity in config.custom_entities] == ["ORDER", "JOB", "SIGN", "TOPIC"]
    assert config.custom_entities[1] == CustomEntity("JOB", ("engineer|scientist|biologist",))
    assert config.custom_entities[3] == CustomEntity("TOPIC", ("science",))
    assert [a.name for a in config.attributes] == list(BLOG)
    assert config.direct_identifier == "id"
    age = config.attribute("age")
    assert (age.role, age.type, age.bias, age.entities, age.hierarchy) == (
        "quasi_identifier", "numerical", 0.0, ("DATE",), None)
    assert config.attribute("topic").entities == ("TOPIC",)
    assert config.attribute("sign").entities == ("SIGN",)
    date = config.attribute("date")
    assert (date.type, date.date_format, date.entities) == ("date", "%d,%B,%Y", ("DATE",))
    assert config.attribute("text") == AttributeConfig("text", "text", "text")
    assert [a.name for a in config.quasi_identifiers] == ["gender", "age", "topic", "sign", "date"]
    assert config.text_columns == ("text",)


@pytest.mark.parametrize("name, entity_types", [
    ("e_blog_authorship_corpus.yaml", BLOG_NATIVE),
    ("e_blog_authorship_corpus_gpe.yaml", {"GPE"}),
])
def test_e_blog_authorship_corpus_yaml(name, entity_types):
    config = load_config(rx_file(name), columns=BLOG)
    # No parameters section: rx-anon's defaults, not ours.
    assert (config.k, config.strategy, config.relational_weight) == (10, "mondrian", 0.5)
    assert set(config.entity_types) == entity_types and len(config.entity_types) == len(entity_types)
    assert config.custom_entities == ()
    assert config.nlp_model == DEFAULT_MODEL
    assert any("en_core_web_trf" in warning for warning in config.warnings)
    assert config.attribute("date").date_format == "%d,%B,%Y"
    assert all(a.entities == () and a.bias == 0.0 for a in config.attributes)
    assert [(a.role, a.type) for a in config.attributes] == [
        ("direct_identifier", "nominal"), *[("quasi_identifier", "nominal")] * 1, ("quasi_identifier", "numerical"),
        ("quasi_identifier", "nominal"), ("quasi_identifier", "nominal"), ("quasi_identifier", "date"),
        ("text", "text")]


def test_gpe_file_recognises_only_gpe():
    config = load_config(rx_file("e_blog_authorship_corpus_gpe.yaml"), columns=BLOG)
    assert config.entity_types == ("GPE",)


def test_rx_anon_hierarchy_example():
    text = uncomment_hierarchy(rx_file("blog_authorship_corpus.yaml"))
    written = yaml.safe_load(text)["attributes"]["age"]["hierarchy"]
    config = load_config(text, columns=BLOG)
    root = config.attribute("age").hierarchy
    assert root is not None and (root.low, root.high, root.name) == (1, 100, "1-100")
    assert [child.name for child in root.children] == ["1-20", "21-40", "41-60", "61-100"]
    assert root.to_dict() == written
    assert root.smallest_covering(22, 24).name == "21-25"
    assert root.smallest_covering(22, 33).name == "21-40"
    assert root.smallest_covering(31, 31).name == "31-35"
    assert root.smallest_covering(62, 99).name == "61-100"
    assert root.smallest_covering(5, 70).name == "1-100"
    assert root.smallest_covering(20, 20.5).name == "1-100"  # 20.5 is in neither 1-20 nor 21-40
    assert root.smallest_covering(0, 50) is root  # outside the hierarchy: the root, as rx-anon
    assert load_config(config.to_yaml(), columns=BLOG) == config


def test_hierarchy_in_our_schema_and_from_dict():
    data = ours()
    attr(data, "age")["hierarchy"] = {"name": "-10-10", "children": [{"name": "-10--1"}, {"name": " 0 - 10 "}]}
    root = load(data).attribute("age").hierarchy
    assert root == HierarchyNode(-10, 10, (HierarchyNode(-10, -1), HierarchyNode(0, 10)))
    assert HierarchyNode.from_dict(root.to_dict()) == root
    assert HierarchyNode(3, 4).to_dict() == {"name": "3-4"}
    assert [node.name for node in root.nodes()] == ["-10-10", "-10--1", "0-10"]
    with pytest.raises(ConfigError) as caught:
        HierarchyNode.from_dict({"name": "1-10", "children": [{"name": "ten"}]}, "attributes.age.hierarchy")
    assert caught.value.field == "attributes.age.hierarchy" and "'ten'" in caught.value.message


def test_rx_anon_names_match_case_insensitively_and_errors_use_the_written_names():
    data = rx()
    data["attributes"] = {key.upper() if key in ("id", "age") else key: value
                          for key, value in data["attributes"].items()}
    config = load(data)
    assert config.direct_identifier == "id"
    assert config.attribute("age").type == "numerical"
    data["attributes"]["AGE"]["anonymization_type"] = "quasi"
    assert errors_of(lambda: load(data)) == {
        "attributes.AGE.anonymization_type": "'quasi' is not a role; expected one of direct_identifier, "
                                             "quasi_identifier, sensitive, insensitive, text"}


def test_exact_name_wins_over_case_insensitive_match():
    data = ours()
    attr(data, "age")["name"] = "AGE"
    config = load(data, columns=(*BLOG, "AGE"))
    assert config.attribute("AGE").type == "numerical"
    assert config.attribute("age").role == "insensitive"


def test_absent_columns_are_insensitive_nominal():
    data = rx()  # no topic, no sign
    config = load(data)
    assert [a.name for a in config.attributes] == list(BLOG)  # CSV order, not the file's
    assert config.attribute("topic") == AttributeConfig("topic", "insensitive", "nominal")
    assert config.attribute("sign") == AttributeConfig("sign", "insensitive", "nominal")
    assert any("topic, sign" in warning for warning in config.warnings)


def test_rx_anon_defaults_and_text_inference():
    data = rx()
    data["attributes"]["text"] = {"anonymization_type": "text"}
    data["attributes"]["gender"] = None  # "gender:" with nothing under it
    del data["attributes"]["date"]["format"]
    data["attributes"]["age"]["format"] = "%Y"
    config = load(data)
    assert config.attribute("text").type == "text"
    assert config.attribute("gender") == AttributeConfig("gender", "insensitive", "nominal")
    assert config.attribute("date").date_format == "%d/%m/%Y"
    assert any(w.startswith("attributes.age.format:") for w in config.warnings)
    data["attributes"]["text"] = {"type": "text"}
    assert load(data).attribute("text").role == "text"


def test_rx_anon_entities():
    data = rx()
    del data["entities"]
    config = load(data)
    assert config.entity_types == BUILTIN_TYPES and config.custom_entities == ()
    assert any(w.startswith("entities.native:") for w in config.warnings)
    data["entities"] = {"native": [], "custom": {"JOB": "engineer"}}
    assert load(data).entity_types == ()
    data["entities"] = {"native": ["GPE", "GPE", "PERSON"]}
    assert load(data).entity_types == ("GPE", "PERSON")
    data["entities"] = {"native": []}
    assert errors_of(lambda: load(data)).keys() == {"entities.native"}


def test_unknown_keys_are_warnings():
    data = rx()
    data["parameters"]["suppression"] = 0.1
    data["attributes"]["age"]["recoding_strategy"] = "hierarchy"
    data["colour"] = "blue"
    warnings = load(data).warnings
    for key in ("parameters.suppression", "attributes.age.recoding_strategy", "colour"):
        assert f"{key}: unknown key, ignored" in warnings
    data = ours()
    data["colour"] = "blue"
    attr(data, "age")["unit"] = "years"
    warnings = load(data).warnings
    assert "colour: unknown key, ignored" in warnings and "attributes.age.unit: unknown key, ignored" in warnings


@pytest.mark.parametrize("model, warned", [
    (None, False), ("en_core_web_sm", False), (DEFAULT_MODEL, False), ("en_core_web_trf", True),
    ("de_core_news_lg", True)])
def test_nlp_model_is_always_the_installed_one(model, warned):
    data = rx()
    if model is not None:
        data["nlp"] = {"model": model, "cache": "somewhere"}
    config = load(data)
    assert config.nlp_model == DEFAULT_MODEL
    assert any(w.startswith("nlp.model:") for w in config.warnings) == warned
    data = ours()
    if model is not None:
        data["nlp_model"] = model
    config = load(data)
    assert config.nlp_model == DEFAULT_MODEL
    assert any(w.startswith("nlp_model:") for w in config.warnings) == warned


def test_another_installed_spacy_model_package_is_used(tmp_path, monkeypatch):
    package = tmp_path / "xx_kakurega_test_model"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "meta.json").write_text('{"name": "kakurega_test_model", "version": "0.0.1"}')
    monkeypatch.syspath_prepend(str(tmp_path))
    data = ours()
    data["nlp_model"] = "xx_kakurega_test_model"
    config = load(data)
    assert config.nlp_model == "xx_kakurega_test_model" and not config.warnings
    validate(config, BLOG)  # no error
    assert list(errors_of(lambda: validate(dataclasses.replace(config, nlp_model="json"), BLOG))) == ["nlp_model"]


# ------------------------------------------------------------------------------------------------ round trips


def test_to_dict_from_dict_round_trip():
    config = rich()
    data = config.to_dict()
    assert json.loads(json.dumps(data)) == data
    assert KanonConfig.from_dict(data) == config
    assert KanonConfig.from_dict(json.loads(json.dumps(data))) == config
    assert data["l_diversity"] == {"column": "diagnosis", "l": 2}
    assert attr(data, "age")["hierarchy"]["children"][0]["name"] == "0-49"
    assert errors_of(lambda: KanonConfig.from_dict(None)).keys() == {"config"}
    assert errors_of(lambda: KanonConfig.from_dict({"attributes": [{"name": "age", "hierarchy": {"name": "x"}}]})
                     ).keys() == {"attributes.age.hierarchy"}


def test_to_yaml_loads_back():
    config = rich()
    text = config.to_yaml()
    assert load_config(text, columns=RICH) == config
    assert load_config(json.dumps(config.to_dict()), columns=RICH) == config
    assert list(yaml.safe_load(text))[:5] == ["version", "k", "strategy", "relational_weight", "l_diversity"]
    assert text == rich().to_yaml()
    for path in ("blog_authorship_corpus.yaml", "e_blog_authorship_corpus.yaml"):
        loaded = load_config(rx_file(path), columns=BLOG)
        assert load_config(loaded.to_yaml(), columns=BLOG) == loaded
        assert KanonConfig.from_dict(loaded.to_dict()) == loaded


def test_json_and_bytes_input():
    text = json.dumps(ours(), indent="\t")  # tabs: valid JSON, invalid YAML
    assert load_config(text, columns=BLOG).k == 3
    assert load_config(("\ufeff" + json.dumps(ours())).encode(), columns=BLOG).k == 3


# --------------------------------------------------------------------------------------------------- refusals


def _set(path: str, value):
    """A change to ours(): "k" or "attributes.<name>.<key>"; a value of ... deletes the key."""
    def change(data: dict) -> None:
        parts = path.split(".")
        target = attr(data, parts[1]) if len(parts) > 1 else data
        key = parts[-1]
        if value is ...:
            target.pop(key, None)
        else:
            target[key] = value
    return change


def _custom(*entities: dict):
    def change(data: dict) -> None:
        data["custom_entities"] = list(entities)
    return change


def _sensitive_topic(data: dict) -> None:
    attr(data, "topic")["role"] = "sensitive"


def _all_insensitive(data: dict) -> None:
    for item in data["attributes"][1:]:
        item.update(role="insensitive", type="nominal", date_format=None)


def _l_diversity(column: str, l_value, *, topic_sensitive: bool = True):
    def change(data: dict) -> None:
        if topic_sensitive:
            _sensitive_topic(data)
        data["l_diversity"] = {"column": column, "l": l_value}
    return change


REFUSALS = [
    (_set("attributes.age.name", "agee"), "attributes.agee", "no such column; the columns are: id, gender, age"),
    (_set("attributes.gender.role", "direct_identifier"), "attributes", "2 direct identifiers (id, gender)"),
    (_set("attributes.id.role", "insensitive"), "attributes", "no direct identifier"),
    (_all_insensitive, "attributes", "nothing to anonymize"),
    (_set("k", 1), "k", "expected an integer >= 2"),
    (_set("k", "2"), "k", "not an integer"),
    (_set("k", 2.5), "k", "not an integer"),
    (_set("k", True), "k", "not an integer"),
    (_set("strategy", "datafly"), "strategy", "expected one of mondrian, gdf"),
    (_set("relational_weight", 1.5), "relational_weight", "between 0 and 1"),
    (_set("relational_weight", -0.1), "relational_weight", "between 0 and 1"),
    (_set("relational_weight", "half"), "relational_weight", "between 0 and 1"),
    (_set("seed", "x"), "seed", "not an integer"),
    (_set("attributes.gender.bias", 2), "attributes.gender.bias", "between 0 and 1"),
    (_set("attributes.gender.bias", "low"), "attributes.gender.bias", "between 0 and 1"),
    (_set("attributes.gender.role", "boss"), "attributes.gender.role", "expected one of direct_identifier"),
    (_set("attributes.gender.type", "binary"), "attributes.gender.type", "expected one of nominal, ordinal"),
    (_set("attributes.date.date_format", "%Q"), "attributes.date.date_format", "not a valid strptime format"),
    (_set("attributes.date.date_format", "%d/%m/%Y%"), "attributes.date.date_format", "not a valid strptime"),
    (_set("attributes.date.date_format", "%H:%M"), "attributes.date.date_format", "contains no date"),
    (_set("attributes.date.date_format", ""), "attributes.date.date_format", "needs a strptime format"),
    (_set("attributes.date.date_format", ...), "attributes.date.date_format", "needs a strptime format"),
    (_set("attributes.gender.date_format", "%Y"), "attributes.gender.date_format", "only for type date"),
    (_set("attributes.topic.type", "ordinal"), "attributes.topic.order", "needs its values in order"),
    (lambda d: attr(d, "topic").update(type="ordinal", order=["a", "b", "a"]), "attributes.topic.order",
     "more than once: a"),
    (_set("attributes.gender.order", ["f", "m"]), "attributes.gender.order", "only for type ordinal"),
    (_set("attributes.age.hierarchy", {"name": "a-b"}), "attributes.age.hierarchy", "not an integer range"),
    (_set("attributes.age.hierarchy", {"name": "1-10", "children": "x"}), "attributes.age.hierarchy",
     "expected a list"),
    (_set("attributes.age.hierarchy", {"name": "20-1"}), "attributes.age.hierarchy", "low is greater than high"),
    (_set("attributes.age.hierarchy", {"name": "1-10", "children": [{"name": "5-20"}]}),
     "attributes.age.hierarchy", "'5-20' is not inside its parent '1-10'"),
    (_set("attributes.age.hierarchy", {"name": "1-10", "children": [{"name": "1-5"}, {"name": "5-10"}]}),
     "attributes.age.hierarchy", "'1-5' and '5-10' overlap"),
    (_set("attributes.gender.hierarchy", {"name": "1-10"}), "attributes.gender.hierarchy",
     "only for type numerical"),
    (_set("attributes.age.entities", ["DATE", "AGE"]), "attributes.age.entities", "unknown entity types: AGE"),
    (_set("attributes.age.entities", "DATE"), "attributes.age.entities", "expected a list"),
    (_set("entity_types", ["PERSON", "FOO"]), "entity_types", "unknown entity types: FOO"),
    (_set("entity_types", ["PERSON", "PERSON"]), "entity_types", "more than once: PERSON"),
    (_set("entity_types", []), "entity_types", "nothing would be recognised"),
    (_custom({"label": "student", "terms": ["x"]}), "custom_entities.student", "upper-case identifier"),
    (_custom({"label": "DATE", "terms": ["x"]}), "custom_entities.DATE", "built-in entity type"),
    (_custom({"label": "SID", "terms": ["x"]}, {"label": "SID", "terms": ["y"]}), "custom_entities.SID",
     "defined more than once"),
    (_custom({"label": "SID", "patterns": ["([a-z"]}), "custom_entities.SID.patterns",
     "not a valid regular expression"),
    (_custom({"label": "SID", "patterns": ["[0-9]*"]}), "custom_entities.SID.patterns", "matches the empty string"),
    (_custom({"label": "SID", "terms": [" "]}), "custom_entities.SID.terms", "not a non-empty string"),
    (_custom({"label": "SID"}), "custom_entities.SID", "at least one pattern or term"),
    (_custom("SID"), "custom_entities.0", "expected a mapping"),
    (_l_diversity("nope", 2), "l_diversity.column", "'nope' is not a configured column"),
    (_l_diversity("gender", 2), "l_diversity.column", "has role quasi_identifier"),
    (_l_diversity("topic", 1), "l_diversity.l", "not an integer >= 2"),
    (_set("l_diversity", "topic"), "l_diversity", "expected {column"),
    (_set("attributes.text.type", "nominal"), "attributes.text.type", "role text must have type text"),
    (_set("attributes.text.role", "quasi_identifier"), "attributes.text.role", "type text must have role text"),
    (lambda d: d["attributes"].append({"name": "gender", "role": "insensitive"}), "attributes.gender",
     "configured more than once"),
    (lambda d: d["attributes"].append({"role": "insensitive"}), "attributes.7", "expected a mapping"),
    (_set("attributes", "all"), "attributes", "expected a list"),
    (_set("version", 2), "version", "unsupported version"),
]


@pytest.mark.parametrize("change, field, fragment", REFUSALS, ids=[f"{f}: {m}" for _, f, m in REFUSALS])
def test_refusals_name_the_field(change, field, fragment):
    data = ours()
    change(data)
    errors = errors_of(lambda: load(data))
    assert field in errors, errors
    assert fragment in errors[field]
    assert len(errors) == 1, errors  # no follow-up noise


RX_REFUSALS = [
    (lambda d: d["parameters"].update(k=1), "parameters.k", "expected an integer >= 2"),
    (lambda d: d["parameters"].update(strategy="datafly"), "parameters.strategy", "expected one of mondrian"),
    (lambda d: d["parameters"].update(relational_weight=2), "parameters.relational_weight", "between 0 and 1"),
    (lambda d: d["attributes"]["gender"].update(anonymization_type="qi"), "attributes.gender.anonymization_type",
     "not a role"),
    (lambda d: d["attributes"]["gender"].update(bias=-1), "attributes.gender.bias", "between 0 and 1"),
    (lambda d: d["attributes"]["date"].update(format="%Q"), "attributes.date.format", "not a valid strptime"),
    (lambda d: d["attributes"]["age"].update(hierarchy={"name": "1-100", "children": [{"name": "0-20"}]}),
     "attributes.age.hierarchy", "not inside its parent"),
    (lambda d: d["attributes"]["age"].update(hierarchy={"name": "x"}), "attributes.age.hierarchy",
     "not an integer range"),
    (lambda d: d["attributes"]["age"].update(entities=["SIGN"]), "attributes.age.entities", "unknown entity types"),
    (lambda d: d["attributes"].update(agee={"type": "numerical"}), "attributes.agee", "no such column"),
    (lambda d: d["attributes"]["text"].update(anonymization_type="quasi_identifier"),
     "attributes.text.anonymization_type", "type text must have role text"),
    (lambda d: d["attributes"]["gender"].update(anonymization_type="direct_identifier"), "attributes",
     "2 direct identifiers"),
    (lambda d: d["entities"].update(native=["PERSON", "ADDRESS"]), "entities.native", "unknown entity types"),
    (lambda d: d["entities"].update(native="PERSON"), "entities.native", "expected a list"),
    (lambda d: d["entities"]["custom"].update(job="x"), "entities.custom.job", "upper-case identifier"),
    (lambda d: d["entities"]["custom"].update(BAD="(unclosed"), "entities.custom.BAD",
     "not a valid regular expression"),
    (lambda d: d.update(parameters=[2]), "parameters", "expected a mapping"),
    (lambda d: d["attributes"].update({True: {"type": "nominal"}}), "attributes.True", "put the name in quotes"),
]


@pytest.mark.parametrize("change, field, fragment", RX_REFUSALS, ids=[f"{f}: {m}" for _, f, m in RX_REFUSALS])
def test_rx_anon_refusals_name_the_field_as_written(change, field, fragment):
    data = rx()
    change(data)
    errors = errors_of(lambda: load_config(yaml.safe_dump(data), columns=BLOG))
    assert field in errors, errors
    assert fragment in errors[field]
    assert len(errors) == 1, errors


@pytest.mark.parametrize("text, fragment", [
    ("", "empty"), ("- 1\n- 2\n", "expected a mapping"), ("attributes: [\n", "not valid YAML or JSON"),
    ("{\"k\": ", "not valid YAML or JSON")])
def test_unreadable_documents(text, fragment):
    errors = errors_of(lambda: load_config(text, columns=BLOG))
    assert list(errors) == ["config"] and fragment in errors["config"]


def test_several_errors_are_all_reported():
    data = ours()
    data.update(k=1, strategy="x", relational_weight=3)
    attr(data, "gender")["bias"] = 2
    attr(data, "age")["name"] = "agee"
    attr(data, "date")["date_format"] = "%Q"
    with pytest.raises(ConfigError) as caught:
        load(data)
    fields = [error.field for error in caught.value.errors]
    assert sorted(fields) == sorted(["k", "strategy", "relational_weight", "attributes.gender.bias",
                                     "attributes.agee", "attributes.date.date_format"])
    assert str(caught.value) == "; ".join(f"{error.field}: {error.message}" for error in caught.value.errors)
    assert "attributes.gender.bias: 2 is not a number between 0 and 1" in str(caught.value)
    assert caught.value.field == fields[0]
    data = rx()
    data["parameters"]["k"] = 0
    data["entities"]["native"] = ["NOPE"]
    data["attributes"]["date"]["format"] = ""
    fields = set(errors_of(lambda: load(data)))
    assert fields == {"parameters.k", "entities.native", "attributes.date.format"}


def test_validate_in_memory_config():
    config = load(ours())
    validate(config, BLOG)
    errors = errors_of(lambda: validate(dataclasses.replace(config, nlp_model="en_core_web_trf"), BLOG))
    assert list(errors) == ["nlp_model"]
    renamed = tuple(dataclasses.replace(a, name="Age") if a.name == "age" else a for a in config.attributes)
    errors = errors_of(lambda: validate(dataclasses.replace(config, attributes=renamed), BLOG))
    assert "did you mean 'age'" in errors["attributes.Age"]
    assert "columns not configured: age" in errors["attributes"]
    errors = errors_of(lambda: validate(config, (*BLOG, "extra")))
    assert errors == {"attributes": "columns not configured: extra; give each a role (insensitive keeps a column "
                                    "unchanged)"}


# ------------------------------------------------------------------------------------------------ ConfigError


def test_config_error():
    error = ConfigError("parameters.k", "must be >= 2")
    assert isinstance(error, ValueError)
    assert str(error) == "parameters.k: must be >= 2"
    assert error.errors == [error]
    assert ConfigError.many([error]) is error
    other = ConfigError("attributes.agee", "no such column")
    combined = ConfigError.many([error, ConfigError.many([other, ConfigError("k", "x")])])
    assert [e.field for e in combined.errors] == ["parameters.k", "attributes.agee", "k"]
    assert str(combined) == "parameters.k: must be >= 2; attributes.agee: no such column; k: x"
    copied = pickle.loads(pickle.dumps(combined))
    assert str(copied) == str(combined) and len(copied.errors) == 3
    assert str(pickle.loads(pickle.dumps(error))) == str(error)
    with pytest.raises(ValueError):
        ConfigError.many([])


# --------------------------------------------------------------------------------------------- conveniences


def test_conveniences():
    config = rich()
    assert config.attribute("age").type == "numerical"
    with pytest.raises(KeyError):
        config.attribute("AGE")
    assert config.direct_identifier == "id"
    assert [a.name for a in config.quasi_identifiers] == ["gender", "age", "topic", "date", "education"]
    assert config.text_columns == ("text",)
    assert config.sensitive_columns == ("diagnosis",)
    rerun = config.with_parameters(k=10, relational_weight=0.0)
    assert (rerun.k, rerun.strategy, rerun.relational_weight) == (10, "gdf", 0.0)
    assert dataclasses.replace(rerun, k=4, relational_weight=0.3) == config
    assert config.with_parameters() == config
    no_id = dataclasses.replace(config, attributes=config.attributes[1:])
    with pytest.raises(ConfigError, match="no direct identifier"):
        _ = no_id.direct_identifier
    validate(config, RICH)
    assert hash(config) == hash(rich())


def test_recognition_fingerprint():
    config = rich()
    fingerprint = config.recognition_fingerprint()
    assert re.fullmatch(r"[0-9a-f]{64}", fingerprint)
    same = [
        config.with_parameters(k=50, strategy="mondrian", relational_weight=1.0),
        dataclasses.replace(config, entity_types=tuple(reversed(config.entity_types))),
        dataclasses.replace(config, custom_entities=tuple(reversed(config.custom_entities))),
        dataclasses.replace(config, seed=1, l_diversity=None, warnings=()),
        dataclasses.replace(config, attributes=config.attributes[:-1]),
    ]
    for other in same:
        assert other.recognition_fingerprint() == fingerprint
    different = [
        dataclasses.replace(config, entity_types=("PERSON", "GPE", "DATE")),
        dataclasses.replace(config, custom_entities=config.custom_entities[:1]),
        dataclasses.replace(config, custom_entities=(CustomEntity("TOPIC", (r"\bscience\b",), ("biology", "x")),
                                                     config.custom_entities[1])),
        dataclasses.replace(config, custom_entities=(CustomEntity("SUBJECT", (r"\bscience\b",), ("biology",)),
                                                     config.custom_entities[1])),
        dataclasses.replace(config, nlp_model="en_core_web_md"),
    ]
    fingerprints = {other.recognition_fingerprint() for other in different}
    assert fingerprint not in fingerprints and len(fingerprints) == len(different)


# ---------------------------------------------------------------------------------------------------- prefill


def _column(index: int, name: str, kind: str, distinct: int, *, date_format: str | None = None,
            capped: bool = False) -> dict:
    return {"index": index, "name": name, "type": kind, "missing": 0, "distinct": distinct,
            "distinct_capped": capped, "min": None, "max": None, "mean_length": 5.0, "top_values": [],
            "date_format": date_format}


BLOG_PROFILE = {
    "rows": 1000, "size_bytes": 1_000_000, "delimiter": ",", "encoding": "utf-8", "nul_bytes": 0, "sample": [],
    "columns": [_column(0, "id", "integer", 831), _column(1, "gender", "string", 2),
                _column(2, "age", "integer", 26), _column(3, "topic", "string", 40), _column(4, "sign", "string", 12),
                _column(5, "date", "date", 342, date_format="%d,%B,%Y"), _column(6, "text", "text", 999)],
}
BLOG_PREFILL = (
    AttributeConfig("id", "direct_identifier", "nominal"),
    AttributeConfig("gender", "quasi_identifier", "nominal"),
    AttributeConfig("age", "quasi_identifier", "numerical"),
    AttributeConfig("topic", "quasi_identifier", "nominal"),
    AttributeConfig("sign", "quasi_identifier", "nominal"),
    AttributeConfig("date", "quasi_identifier", "date", date_format="%d,%B,%Y"),
    AttributeConfig("text", "text", "text"),
)


def test_config_from_profile_blog():
    config = config_from_profile(BLOG_PROFILE)
    assert config.attributes == BLOG_PREFILL
    assert config.warnings == ()
    assert (config.k, config.strategy, config.relational_weight, config.nlp_model) == (2, "mondrian", 0.5,
                                                                                        DEFAULT_MODEL)
    assert config.entity_types == ONTONOTES_TYPES + RULE_TYPES
    validate(config, BLOG)


def test_config_from_profile_of_the_real_blog_file():
    path = shared_data("kanon/blogs_1k.csv")
    with path.open("rb") as fileobj:
        profile = profile_csv(fileobj)
    config = config_from_profile(profile)
    assert config.attributes == BLOG_PREFILL
    validate(config, BLOG)


def test_config_from_profile_other_shapes():
    profile = {"rows": 1000, "columns": [
        _column(0, "post_id", "integer", 1000),  # one value per row: a row id, not a person
        _column(1, "authorName", "string", 300),
        _column(2, "userId", "string", 400),
        _column(3, "email", "string", 900),
        _column(4, "score", "float", 700),
        _column(5, "verified", "boolean", 2),
        _column(6, "created", "datetime", 1000, date_format="%Y-%m-%dT%H:%M:%S"),
        _column(7, "notes", "empty", 0),
        _column(8, "city", "string", 100_000, capped=True),
    ]}
    config = config_from_profile(profile)
    roles = {a.name: (a.role, a.type) for a in config.attributes}
    assert roles == {
        "post_id": ("quasi_identifier", "numerical"),
        "authorName": ("quasi_identifier", "nominal"),
        "userId": ("direct_identifier", "nominal"),  # *_id ranks before a person noun
        "email": ("insensitive", "nominal"),
        "score": ("quasi_identifier", "numerical"),
        "verified": ("quasi_identifier", "nominal"),
        "created": ("quasi_identifier", "date"),
        "notes": ("insensitive", "nominal"),
        "city": ("insensitive", "nominal"),
    }
    assert config.attribute("created").date_format == "%Y-%m-%dT%H:%M:%S"
    assert any("email, city" in warning for warning in config.warnings)
    validate(config, [column["name"] for column in profile["columns"]])


def test_config_from_profile_without_identifier_leaves_it_to_the_user():
    profile = copy.deepcopy(BLOG_PROFILE)
    profile["columns"][0]["name"] = "blog"
    config = config_from_profile(profile)
    assert config.attribute("blog").role == "quasi_identifier"
    assert any("person identifier" in warning for warning in config.warnings)
    errors = errors_of(lambda: validate(config, ("blog", *BLOG[1:])))
    assert "no direct identifier" in errors["attributes"]
