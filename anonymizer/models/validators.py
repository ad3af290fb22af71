"""Validators the tables declare on their fields, so that every form and serializer built from a field, and every
page reading a row, agree on its range: Django has inclusive bounds only (MinValueValidator, MaxValueValidator),
these are the exclusive ones."""

from __future__ import annotations

from django.core.validators import BaseValidator
from django.utils.deconstruct import deconstructible


@deconstructible
class GreaterThanValidator(BaseValidator):
    """The value must be strictly greater than ``limit_value``."""

    message = "Ensure this value is greater than %(limit_value)s."
    code = "min_value"

    def compare(self, a, b) -> bool:
        return a <= b


@deconstructible
class LessThanValidator(BaseValidator):
    """The value must be strictly less than ``limit_value``."""

    message = "Ensure this value is less than %(limit_value)s."
    code = "max_value"

    def compare(self, a, b) -> bool:
        return a >= b
