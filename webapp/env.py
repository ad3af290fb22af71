"""Typed reads of environment variables that fail at start-up with a message naming the variable.

Settings come only from the environment (twelve-factor); a typo such as DEBUG=ture must stop the
process with a clear error instead of silently falling back to a default.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import TypeVar

from django.core.exceptions import ImproperlyConfigured

T = TypeVar("T")

_TRUE = {"1", "true", "yes", "on"}
_FALSE = {"0", "false", "no", "off"}


def _read(name: str, default: T, parse: Callable[[str], T], expected: str) -> T:
    raw = os.environ.get(name)
    if raw is None or raw.strip() == "":
        return default
    try:
        return parse(raw.strip())
    except ValueError as exc:
        raise ImproperlyConfigured(f"Environment variable {name}={raw!r} is invalid: expected {expected}.") from exc


def env_str(name: str, default: str) -> str:
    return _read(name, default, str, "a string")


def env_bool(name: str, default: bool) -> bool:
    def parse(value: str) -> bool:
        lowered = value.lower()
        if lowered in _TRUE:
            return True
        if lowered in _FALSE:
            return False
        raise ValueError(value)

    return _read(name, default, parse, "one of " + ", ".join(sorted(_TRUE | _FALSE)))


def env_int(name: str, default: int, *, minimum: int = 0) -> int:
    def parse(value: str) -> int:
        number = int(value)
        if number < minimum:
            raise ValueError(value)
        return number

    return _read(name, default, parse, f"a whole number >= {minimum}")


def env_float(name: str, default: float, *, minimum: float = 0.0) -> float:
    def parse(value: str) -> float:
        number = float(value)
        if not number >= minimum:  # also rejects NaN
            raise ValueError(value)
        return number

    return _read(name, default, parse, f"a number >= {minimum}")


def env_list(name: str, default: list[str]) -> list[str]:
    return _read(name, default, lambda v: [item.strip() for item in v.split(",") if item.strip()],
                 "a comma-separated list")
