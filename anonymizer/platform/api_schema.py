"""The OpenAPI schema states every range the API enforces: drf-spectacular's AutoSchema, plus the bounds it
leaves out (strict bounds of the models' GreaterThan/LessThan validators, a nested list's length) and the 400 a
paginated list answers to a page that is not a number."""

from __future__ import annotations

from drf_spectacular import openapi
from rest_framework import serializers

from anonymizer.models.validators import GreaterThanValidator, LessThanValidator
from anonymizer.platform.api_input import StrictPageNumberPagination

_BAD_PAGE = {"description": "The page parameter is not a whole number from 1 (detail: the field and why)"}


class AutoSchema(openapi.AutoSchema):
    def _get_response_bodies(self, direction="response") -> dict:
        responses = super()._get_response_bodies(direction)
        if (self.method == "GET" and "400" not in responses and self._is_list_view()
                and isinstance(self._get_paginator(), StrictPageNumberPagination)):
            responses["400"] = _BAD_PAGE
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
        # A nested serializer with many=True: drf-spectacular leaves its length out.
        if isinstance(field, serializers.ListSerializer) and isinstance(schema, dict) and schema.get("type") == "array":
            if field.max_length is not None:
                schema["maxItems"] = field.max_length
            if field.min_length is not None:
                schema["minItems"] = field.min_length
            elif not field.allow_empty:
                schema["minItems"] = 1
        return schema
