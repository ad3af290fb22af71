"""Texts a pure core writes for a user, kept translatable without importing Django.

A core marks a message with ``gettext_noop`` (the name Django's ``makemessages`` extracts) and raises a
``TranslatableError`` with its placeholders' values; the web shell shows it in the page's language with
``anonymizer.platform.i18n.user_message``, and ``str(error)`` stays the English text the command line and logs
print::

    raise CsvFormatError(gettext_noop("row %(row)d: expected %(expected)d fields"), row=7, expected=3)
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
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


# --- texts a core writes while a page or API request is answered ----------------------------------------------
# A core's sentences (the location verdict: "Before: the classifier …") are written where the numbers are known,
# deep inside a computation. They call these two, which Django's makemessages extracts like its own: outside
# Django (the command line, the Python API) they return the English; in the web app (anonymizer/apps.py installs
# Django's) they return the active language's translation, so a request in Japanese gets Japanese sentences.
def _english(message: str) -> str:
    return message


def _english_plural(singular: str, plural: str, n: int) -> str:
    return singular if n == 1 else plural


def _unknown_language() -> str | None:
    return None


_translate: Callable[[str], str] = _english
_translate_plural: Callable[[str, str, int], str] = _english_plural
_language: Callable[[], str | None] = _unknown_language


def use_translations(translate: Callable[[str], str], translate_plural: Callable[[str, str, int], str],
                     language: Callable[[], str | None] = _unknown_language) -> None:
    """Install the functions ``gettext``, ``ngettext`` and ``active_language`` below ask (Django's, in the web
    app)."""
    global _translate, _translate_plural, _language
    _translate, _translate_plural, _language = translate, translate_plural, language


def active_language() -> str | None:
    """The active language's code without its region ("ja", "en"), or None outside the web app (the command line
    and the Python API show names as their data has them): e.g. which of a place's names a map shows."""
    language = _language()
    return language.split("-")[0].lower() if language else None


def gettext(message: str) -> str:
    """``message`` in the active language (English outside the web app)."""
    return _translate(message)


def ngettext(singular: str, plural: str, n: int) -> str:
    """The form of a text for ``n`` in the active language (English outside the web app)."""
    return _translate_plural(singular, plural, n)
