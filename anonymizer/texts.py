"""Texts a pure core writes for a user, kept translatable without importing Django.

A core marks a message with ``gettext_noop`` (the name Django's ``makemessages`` extracts) and raises a
``TranslatableError`` with its placeholders' values; the web shell shows it in the page's language with
``anonymizer.platform.i18n.user_message``, and ``str(error)`` stays the English text the command line and logs
print::

    raise CsvFormatError(gettext_noop("row %(row)d: expected %(expected)d fields"), row=7, expected=3)
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any


def gettext_noop(message: str) -> str:
    """Marks ``message`` for the catalog; returns it unchanged (translated later, where the language is known)."""
    return message


class TranslatableError(ValueError):
    """An error whose message is a catalog text (``template``, %-style named placeholders) and its values."""

    def __init__(self, template: str, /, **params: Any) -> None:
        self.template = template
        self.params: Mapping[str, Any] = params
        super().__init__(template % params if params else template)
