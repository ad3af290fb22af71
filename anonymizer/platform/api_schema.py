"""The OpenAPI schema states every range the API enforces: drf-spectacular's AutoSchema, plus the bounds it
leaves out (strict bounds of the models' GreaterThan/LessThan validators, a nested list's length, a text that
must hold more than spaces), the 400 a paginated list answers to a page that is not a number, and the 413 of a
body too large."""

from __future__ import annotations

from django.core.validators import ProhibitNullCharactersValidator
from drf_spectacular import openapi
from rest_framework import serializers

from anonymizer.models.validators import GreaterThanValidator, LessThanValidator
from anonymizer.platform.api_input import StrictPageNumberPagination


def _text_pattern(field: serializers.CharField) -> str | None:
    """What DRF refuses in a text besides its length: a NUL character anywhere, and, where it must not be blank,
    spaces alone (it trims them first)."""
    no_nul = any(isinstance(validator, ProhibitNullCharactersValidator) for validator in field.validators)
    must_show = field.trim_whitespace and not field.allow_blank
    if no_nul and must_show:
        return r"^[^\x00]*[^\x00\s][^\x00]*$"
    if must_show:
        return r"\S"
    return r"^[^\x00]*$" if no_nul else None


_TOO_LARGE = {"description": "The body is larger than DATA_UPLOAD_MAX_MEMORY_SIZE (detail: its size and the "
                              "limit); files go to the uploads endpoint"}
_BAD_PAGE = {"description": "The page parameter is not a whole number from 1 (detail: the field and why)"}


class AutoSchema(openapi.AutoSchema):
    def _get_response_bodies(self, direction="response") -> dict:
        responses = super()._get_response_bodies(direction)
        if (self.method == "GET" and "400" not in responses and self._is_list_view()
                and isinstance(self._get_paginator(), StrictPageNumberPagination)):
            responses["400"] = _BAD_PAGE
        if self.method in ("POST", "PUT", "PATCH") and self.get_request_serializer() is not None:
            responses.setdefault("413", _TOO_LARGE)  # anonymizer.platform.api_errors, before any view
        return responses

    def _insert_field_validators(self, field, schema: dict) -> None:
        super()._insert_field_validators(field, schema)
        if schema.get("type") not in ("integer", "number"):
            return
        # OpenAPI 3.0: a strict bound is the bound with exclusiveMinimum / exclusiveMaximum true.
        for validator in field.validators:
            if isinstance(validator, GreaterThanValidator):
                limit = validator.limit_value
                if schema.get("minimum") is None or limit >= schema["minimum"]:
                    schema["minimum"], schema["exclusiveMinimum"] = limit, True
            elif isinstance(validator, LessThanValidator):
                limit = validator.limit_value
                if schema.get("maximum") is None or limit <= schema["maximum"]:
                    schema["maximum"], schema["exclusiveMaximum"] = limit, True

    def _map_serializer_field(self, field, direction, bypass_extensions=False):
        schema = super()._map_serializer_field(field, direction, bypass_extensions)
        if (direction == "request" and isinstance(field, serializers.CharField) and isinstance(schema, dict)
                and schema.get("type") == "string" and not {"pattern", "format", "enum"} & set(schema)):
            pattern = _text_pattern(field)
            if pattern:
                schema["pattern"] = pattern
        # A nested serializer with many=True: drf-spectacular leaves its length out.
        if isinstance(field, serializers.ListSerializer) and isinstance(schema, dict) and schema.get("type") == "array":
            if field.max_length is not None:
                schema["maxItems"] = field.max_length
            if field.min_length is not None:
                schema["minItems"] = field.min_length
            elif not field.allow_empty:
                schema["minItems"] = 1
        return schema
