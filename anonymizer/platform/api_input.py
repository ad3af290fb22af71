"""What the REST API accepts, the same for every endpoint: JSON of a bounded depth, page numbers that are
numbers, ids that are strings, and limits that the check and the OpenAPI schema read from one place.

A body is parsed by BoundedJSONParser only (REST_FRAMEWORK's DEFAULT_PARSER_CLASSES): a list field never gets a
form's lone string, and a body nested deeper than MAX_JSON_DEPTH is a 400, not a RecursionError (a 500)."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from django.core.exceptions import ValidationError as DjangoValidationError
from django.core.validators import MaxLengthValidator, MaxValueValidator
from django.http import QueryDict
from django.utils.translation import gettext
from rest_framework import serializers
from rest_framework.exceptions import ParseError, ValidationError
from rest_framework.pagination import PageNumberPagination
from rest_framework.parsers import JSONParser

# No request of the API needs more (a campaign's posts are 3 deep, a job's configuration a few more); the
# standard library's decoder recurses once per level and gives up near Python's recursion limit (~1,000).
MAX_JSON_DEPTH = 32


class JsonTooDeep(ValueError):
    """A JSON document nested deeper than MAX_JSON_DEPTH levels."""

    def __init__(self) -> None:
        super().__init__(gettext("The JSON body is nested deeper than %(depth)s levels.") % {"depth": MAX_JSON_DEPTH})


def _deeper_than(value: Any, limit: int) -> bool:
    """Whether ``value`` (parsed JSON) nests lists and objects more than ``limit`` levels deep; iterative, so a
    deep value cannot exhaust the stack here either."""
    stack = [(value, 1)] if isinstance(value, dict | list) else []
    while stack:
        node, depth = stack.pop()
        if depth > limit:
            return True
        for child in node.values() if isinstance(node, dict) else node:
            if isinstance(child, dict | list):
                stack.append((child, depth + 1))
    return False


def check_json_depth(value: Any) -> Any:
    """``value`` itself; raises JsonTooDeep past MAX_JSON_DEPTH."""
    if _deeper_than(value, MAX_JSON_DEPTH):
        raise JsonTooDeep
    return value


def loads_bounded(text: str | bytes) -> Any:
    """json.loads for a request body: malformed JSON raises ValueError, and so does JSON nested deeper than
    MAX_JSON_DEPTH (JsonTooDeep), however deep (the decoder's own RecursionError included)."""
    try:
        value = json.loads(text)
    except RecursionError:
        raise JsonTooDeep from None
    return check_json_depth(value)


class BoundedJSONParser(JSONParser):
    """DRF's JSON parser (strict: no NaN or Infinity) with the depth limit: too deep is a 400 naming it."""

    def parse(self, stream, media_type=None, parser_context=None) -> Any:
        try:
            value = super().parse(stream, media_type, parser_context)
        except RecursionError:
            raise ParseError(str(JsonTooDeep())) from None
        try:
            return check_json_depth(value)
        except JsonTooDeep as exc:
            raise ParseError(str(exc)) from None


class StrictPageNumberPagination(PageNumberPagination):
    """Page numbers as the schema states them: ``?page=`` a whole number from 1 (absent: page 1). Anything
    else is a 400 naming the parameter, rather than page 1 for an empty value; a page past the last is a 404."""

    last_page_strings = ()

    def get_page_number(self, request, paginator) -> int | str:
        raw = request.query_params.get(self.page_query_param)
        if raw is None:
            return 1
        if not (raw.isascii() and raw.isdigit()) or int(raw[:19]) < 1:
            raise ValidationError({self.page_query_param: [
                gettext("Expected a whole number from 1 (the page of the list); got %(value)s.") % {
                    "value": repr(raw[:40])}]})
        return raw  # the paginator answers 404 past the last page, however large the number

    def get_schema_operation_parameters(self, view) -> list[dict]:
        parameters = super().get_schema_operation_parameters(view)
        for parameter in parameters:
            if parameter["name"] == self.page_query_param:
                parameter["schema"] = {**parameter["schema"], "minimum": 1}
        return parameters


class StrictUUIDField(serializers.UUIDField):
    """A UUID given as a string. DRF's UUIDField also takes an integer, and JSON's ``false`` is one: it would
    become the nil UUID 00000000-…, an id that names nothing rather than a refused value."""

    def to_internal_value(self, data):
        if not isinstance(data, str):
            self.fail("invalid", value=data)
        return super().to_internal_value(data)


class CharactersAtMost(MaxLengthValidator):
    """At most ``limit()`` characters, the limit read at each check (a setting), so the OpenAPI schema's
    maxLength (drf-spectacular reads the validator) and the check say the same number."""

    def __init__(self, limit: Callable[[], int], what: str = "The text") -> None:
        super().__init__(limit)
        self.what = what

    def __call__(self, value: str) -> None:
        limit = self.limit_value()
        if len(value) > limit:
            raise DjangoValidationError(f"{self.what} is {len(value):,} characters long; the limit is {limit:,}.",
                                        code="max_length")


class ItemsAtMost(MaxLengthValidator):
    """A list of at most ``limit()`` items (a setting), stated in the schema as maxItems."""

    def __init__(self, limit: Callable[[], int], what: str) -> None:
        super().__init__(limit)
        self.what = what

    def __call__(self, value: list) -> None:
        limit = self.limit_value()
        if len(value) > limit:
            raise DjangoValidationError(f"{len(value):,} {self.what} in one request; the limit is {limit:,}.",
                                        code="max_length")


class AtMost(MaxValueValidator):
    """A number of at most ``limit()`` (a setting), stated in the schema as maximum."""

    def __init__(self, limit: Callable[[], int | float], name: str) -> None:
        super().__init__(limit)
        self.name = name

    def __call__(self, value: int | float) -> None:
        limit = self.limit_value()
        if value > limit:
            raise DjangoValidationError(f"{self.name} is at most {limit:g}.", code="max_value")


# -- a JSON body's values of the types their fields declare ------------------------------------------------------
_JSON_TYPES = {bool: "true or false", int: "a whole number", float: "a number", str: "a string", list: "a list",
               dict: "an object", type(None): "null"}


def _json_kind(value: Any) -> str:
    return next((name for kind, name in _JSON_TYPES.items() if type(value) is kind), "a value")


def _expect(value: Any, kinds: tuple[type, ...], wanted: str) -> list[str] | None:
    # bool is an int to Python, never to JSON: true is not 1.
    ok = isinstance(value, kinds) and not (isinstance(value, bool) and bool not in kinds)
    return None if ok else [f"Expected {wanted}; got {_json_kind(value)}."]


def _type_errors(field: serializers.Field, value: Any) -> Any:
    """What of ``value`` is not of the JSON type ``field`` declares (the OpenAPI schema's type for it): None, the
    messages, or for a list or object the messages by position or name, as DRF reports errors."""
    if value is None or field.read_only or isinstance(field, serializers.JSONField):
        return None  # null is the field's to allow or refuse; JSON fields take any value
    if isinstance(field, serializers.ListSerializer | serializers.ListField | serializers.MultipleChoiceField):
        if not isinstance(value, list):
            return _expect(value, (list,), "a list")
        child = field.child if not isinstance(field, serializers.MultipleChoiceField) else serializers.ChoiceField(
            choices=field.choices)
        errors = {str(i): error for i, item in enumerate(value) if (error := _type_errors(child, item))}
        return errors or None
    if isinstance(field, serializers.Serializer | serializers.DictField):
        if not isinstance(value, dict):
            return _expect(value, (dict,), "an object")
        if isinstance(field, serializers.DictField):
            errors = {key: error for key, item in value.items() if (error := _type_errors(field.child, item))}
        else:
            errors = {name: error for name, child in field.fields.items()
                      if name in value and (error := _type_errors(child, value[name]))}
        return errors or None
    if isinstance(field, serializers.BooleanField):
        return _expect(value, (bool,), "true or false")
    if isinstance(field, serializers.IntegerField):
        return _expect(value, (int,), "a whole number")
    if isinstance(field, serializers.FloatField):
        return _expect(value, (int, float), "a number")
    if isinstance(field, serializers.ChoiceField):
        kinds = {type(choice) for choice in field.choices}
        if kinds == {str}:
            return _expect(value, (str,), "a string")
        if kinds <= {int}:
            return _expect(value, (int,), "a whole number")
        return None
    if isinstance(field, serializers.CharField | serializers.UUIDField | serializers.DateField
                  | serializers.DateTimeField | serializers.TimeField | serializers.DurationField):
        return _expect(value, (str,), "a string")
    return None


def refuse_wrong_json_types(serializer: serializers.Serializer, data: Any = serializers.empty) -> None:
    """Raises ValidationError by field where a JSON body (``serializer.initial_data``) holds a value of another
    JSON type than its field declares: DRF would make 5 the text "5", "yes" true and false the nil UUID, and
    accept what the OpenAPI schema refuses. A form's values (a QueryDict, all strings) are left to the fields."""
    data = serializer.initial_data if data is serializers.empty else data
    if not isinstance(data, dict) or isinstance(data, QueryDict):
        return
    errors = _type_errors(serializer, data)
    if errors:
        raise ValidationError(errors)
