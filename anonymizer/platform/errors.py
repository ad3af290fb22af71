"""Errors written for the user, and the one way a page reports field errors."""

from __future__ import annotations

import re
from collections.abc import Callable

from rest_framework import serializers

# How a message names the field it is about: "relational_weight: 7 is not a number between 0 and 1".
_NAMED_FIELD = re.compile(r"^([A-Za-z_][^:\n]*?): ")


class UserFacingError(Exception):
    """An error whose message is written for the user (bad input, impossible request)."""


def field_errors(exc: serializers.ValidationError,
                 rename: Callable[[str], str] | None = None) -> dict[str, list[str]]:
    """The messages of a ValidationError by field, for a page to show next to its inputs.

    A nested field's errors are flattened into its top-level field; a list child's errors, which DRF keys by
    position, name the value (1-based). ``rename`` gives a field's name as the page shows it (``λ`` for
    ``relational_weight``): it renames the keys and a field named at the start of a message."""
    rename = rename or (lambda name: name)
    detail = exc.detail if isinstance(exc.detail, dict) else {"non_field_errors": exc.detail}

    def in_user_words(message: str) -> str:
        named = _NAMED_FIELD.match(message)
        return rename(named.group(1)) + message[named.end(1):] if named else message

    def flatten(value) -> list[str]:
        if isinstance(value, dict):
            return [f"value {int(key) + 1}: {message}" if str(key).isdigit() else message
                    for key, child in value.items() for message in flatten(child)]
        if isinstance(value, list):
            return [message for child in value for message in flatten(child)]
        return [in_user_words(str(value))]

    return {rename(str(name)): flatten(value) for name, value in detail.items()}
