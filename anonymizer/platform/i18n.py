"""The interface's languages: the catalogs compiled from their sources, each user's remembered choice, and the
header's switch.

The catalogs' sources are ``locale/<lang>/LC_MESSAGES/{django,djangojs}.po`` (shipped like templates/). They are
compiled with Babel, pure Python, into ``VAR_DIR/locale`` (settings.LOCALE_PATHS): a laptop needs no GNU gettext,
an installed copy never writes into site-packages, and a catalog is compiled again only when its source changed.

Which language a request is answered in: a signed-in user's saved choice (UserSettings.language), else the
language cookie the switch sets, else the browser's Accept-Language (Django's LocaleMiddleware), else English.
Participants' pages ignore all three and use their campaign's language (crowd/web)."""

from __future__ import annotations

import os
import tempfile
from collections.abc import Callable
from pathlib import Path

from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po
from django.conf import settings
from django.http import HttpRequest, HttpResponse
from django.utils import translation
from django.utils.translation import gettext
from django.views.decorators.http import require_POST
from django.views.i18n import set_language

from anonymizer.models import UserSettings
from anonymizer.texts import TranslatableError

#: The catalogs' domains: templates' and Python's texts, and the scripts' (Django's JavaScript catalog).
DOMAINS = ("django", "djangojs")


def catalog_sources(source_root: Path) -> list[Path]:
    """Every ``.po`` file under ``source_root`` (``locale/``), in a stable order."""
    return sorted(source_root.glob("*/LC_MESSAGES/*.po"))


def compile_catalogs(source_root: Path, compiled_root: Path) -> list[Path]:
    """Compile each ``.po`` under ``source_root`` whose ``.mo`` under ``compiled_root`` is missing or older; return
    the ``.mo`` files written. Fuzzy entries are left out (they show in English until a translator confirms them).
    Each file is written beside its place and renamed, so a process starting meanwhile reads a whole catalog."""
    written = []
    for source in catalog_sources(source_root):
        target = compiled_root / source.relative_to(source_root).with_suffix(".mo")
        if target.exists() and target.stat().st_mtime_ns >= source.stat().st_mtime_ns:
            continue
        target.parent.mkdir(parents=True, exist_ok=True)
        with source.open("rb") as po:
            catalog = read_po(po, locale=source.parts[-3], domain=source.stem)
        handle, temporary = tempfile.mkstemp(dir=target.parent, suffix=".mo.tmp")
        try:
            with os.fdopen(handle, "wb") as mo:
                write_mo(mo, catalog, use_fuzzy=False)
            os.utime(temporary, ns=(source.stat().st_atime_ns, source.stat().st_mtime_ns))
            os.replace(temporary, target)
        except BaseException:
            Path(temporary).unlink(missing_ok=True)
            raise
        written.append(target)
    return written


def language_codes() -> list[str]:
    return [code for code, _ in settings.LANGUAGES]


class UserLanguageMiddleware:
    """After authentication: a signed-in user's saved language wins over the cookie and the browser's, so the choice
    follows them to another browser or device."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        user = getattr(request, "user", None)
        if user is not None and user.is_authenticated:
            saved = UserSettings.objects.filter(user=user).values_list("language", flat=True).first()
            if saved in language_codes():
                translation.activate(saved)
                request.LANGUAGE_CODE = saved
        return self.get_response(request)


@require_POST
def switch_language(request: HttpRequest) -> HttpResponse:
    """The header's switch: Django's set_language (the cookie, and back to the page), and for a signed-in user the
    choice saved with their account."""
    response = set_language(request)
    language = request.POST.get("language", "")
    if language in language_codes() and request.user.is_authenticated:
        UserSettings.objects.update_or_create(user=request.user, defaults={"language": language})
    return response


def user_message(error: BaseException) -> str:
    """An error's message in the active language: a core's TranslatableError through the catalog, any other
    error as its text."""
    if isinstance(error, TranslatableError):
        translate = getattr(error, "translate", None)
        if callable(translate):  # an error that words more than its message (a CSV error: where it is, too)
            return translate(gettext)
        translated = gettext(error.template)
        return translated % dict(error.params) if error.params else translated
    return str(error)


def language_of(user) -> str:
    """The language a user chose and saved, else English: what a worker writes a job's messages in."""
    saved = UserSettings.objects.filter(user=user).values_list("language", flat=True).first()
    return saved if saved in language_codes() else settings.LANGUAGE_CODE
