"""What the Japanese catalogs must hold, found the way Django's ``makemessages`` finds it, and the texts left outside
them in templates and scripts. Used by tests/platform/test_i18n.py; run as a script while translating:

    .venv/bin/python -m tests.i18n_catalog missing          # entries to add (po form, msgstr empty), per domain
    .venv/bin/python -m tests.i18n_catalog outside [PATH…]  # texts of templates/scripts not marked for translation

``missing`` runs ``makemessages`` (GNU gettext's xgettext, a developer's tool; the app itself compiles its catalogs
with Babel) on a copy of the sources, merged with the committed catalog: an entry comes back untranslated when its
text is new, fuzzy when its text changed, obsolete when nothing uses it any more."""

from __future__ import annotations

import html.parser
import io
import os
import re
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

from babel.messages.catalog import Catalog
from babel.messages.pofile import read_po, write_po

ROOT = Path(__file__).resolve().parent.parent
LOCALE = ROOT / "locale"
LANGUAGE = "ja"
#: The scripts whose texts the interface shows (static/vendor/ is others' code, translated by its own means).
SCRIPT_DIR = ROOT / "static" / "js"
TEMPLATE_DIR = ROOT / "templates"

#: Words that stay as they are in a Japanese page: names, acronyms and symbols of the field and the product.
KEPT_WORDS = frozenset("""
    Kakurega API CSV JSON YAML URL URLs ID IDs UTF k λ ε LDP GDF NER Mondrian rx anon rx-anon Redis Celery PostgreSQL
    SQLite Leaflet OpenStreetMap GeoNames spaCy UniDic MeCab fugashi OK HTML PDF PNG SVG Swagger ReDoc GitHub Python
    English TAB Blog NCP SynTime Twitter X km m s ms px Wilson CI AUC F1 OR Tab Esc Enter Shift Ctrl Krippendorff
    Foursquare Duchi UTC Content-Type Content-Disposition Retry-After Polygon MultiPolygon Feature FeatureCollection
""".split())
#: Names of formats and standards written as they are in Japanese texts too.
KEPT_PHRASES = ("JSON Lines",)
# A quotation is data, not the interface's prose: an English example phrase (“for 2 hours”), a keyword a file or
# a configuration must spell so (「ordinal」).
_QUOTED = re.compile(r"“[^”]*”|「[^」]*」")
# A word: ASCII letters (an apostrophe or hyphen inside), not touching other ASCII letters or digits; Japanese
# around it is no boundary problem ("アカウントsatoを" holds the word "sato").
_WORD = re.compile(r"(?<![A-Za-z0-9_])(?:[A-Za-z][A-Za-z'’-]*[A-Za-z]|[A-Za-z])(?![A-Za-z0-9_])")
# Identifiers and codes are not English to translate: a file name (posts.profile.json), a snake_case or dotted name,
# a token with digits (jp311-122, a8, a job's uuid), an all-capitals code or acronym (PERSON, WORK_OF_ART, KB, UTC).
# A token is taken whole (a uuid's letters-only part is no word of its own).
_TOKEN = re.compile(r"(?<![A-Za-z0-9_])[A-Za-z0-9_]+(?:[-._:][A-Za-z0-9_]+)*")


def _is_identifier(token: str) -> bool:
    return any(c.isdigit() or c in "_.:" for c in token) or (len(token) > 1 and token.isupper())


def english_words(text: str) -> list[str]:
    """The English words of ``text`` that a Japanese page should not show: identifiers and codes, KEPT_WORDS,
    KEPT_PHRASES and one-letter symbols aside."""
    for phrase in KEPT_PHRASES:
        text = text.replace(phrase, " ")
    text = _QUOTED.sub(" ", text)
    text = _TOKEN.sub(lambda match: " " if _is_identifier(match.group()) else match.group(), text)
    return [word for word in _WORD.findall(text) if len(word) > 1 and word not in KEPT_WORDS]


# --- the catalog as makemessages finds it ---------------------------------------------------------------------


@dataclass(frozen=True)
class CatalogState:
    domain: str
    untranslated: list[str]
    fuzzy: list[str]
    obsolete: list[str]
    merged: Catalog

    @property
    def complete(self) -> bool:
        return not (self.untranslated or self.fuzzy or self.obsolete)


def _copy_sources(into: Path) -> None:
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc", "migrations")
    for name in ("anonymizer", "webapp", "templates"):
        shutil.copytree(ROOT / name, into / name, ignore=ignore)
    shutil.copytree(SCRIPT_DIR, into / "static" / "js")
    shutil.copytree(LOCALE, into / "locale")


def catalog_states() -> list[CatalogState]:
    """Each domain's committed catalog merged with what the sources mark today (makemessages on a copy)."""
    if shutil.which("xgettext") is None:
        raise FileNotFoundError("xgettext (GNU gettext, Debian package 'gettext') is needed to extract the texts")
    with tempfile.TemporaryDirectory() as folder:
        copy = Path(folder)
        _copy_sources(copy)
        script = ("import django, sys; django.setup(); from django.conf import settings; "
                  "settings.LOCALE_PATHS = [sys.argv[1]]; from django.core.management import call_command; "
                  "[call_command('makemessages', locale=['ja'], domain=d, no_location=True, verbosity=0, "
                  "ignore_patterns=['locale/*']) for d in ('django', 'djangojs')]")
        env = {**os.environ, "DJANGO_SETTINGS_MODULE": "webapp.settings", "PYTHONPATH": str(ROOT)}
        subprocess.run([sys.executable, "-c", script, str(copy / "locale")], cwd=copy, env=env, check=True,
                       capture_output=True, timeout=300)
        states = []
        for domain in ("django", "djangojs"):
            with (copy / "locale" / LANGUAGE / "LC_MESSAGES" / f"{domain}.po").open("rb") as po:
                merged = read_po(po, locale=LANGUAGE)
            with (copy / "locale" / LANGUAGE / "LC_MESSAGES" / f"{domain}.po").open("rb") as po:
                obsolete = [str(key) for key in read_po(po, locale=LANGUAGE).obsolete]
            entries = [message for message in merged if message.id]
            states.append(CatalogState(
                domain=domain,
                untranslated=[_msgid(m) for m in entries if not _translated(m) and not m.fuzzy],
                fuzzy=[_msgid(m) for m in entries if m.fuzzy],
                obsolete=obsolete,
                merged=merged,
            ))
        return states


def _msgid(message) -> str:
    text = message.id[0] if isinstance(message.id, tuple) else message.id
    return f"{message.context}|{text}" if message.context else text


def _translated(message) -> bool:
    strings = message.string if isinstance(message.string, tuple) else (message.string,)
    return all(strings) and bool(strings)


def missing_entries(state: CatalogState) -> str:
    """The entries to add to ``state.domain``'s catalog, in po form with empty translations."""
    wanted = set(state.untranslated) | set(state.fuzzy)
    catalog = Catalog(locale=LANGUAGE, domain=state.domain)
    for message in state.merged:
        if message.id and _msgid(message) in wanted:
            catalog.add(message.id, string=("", ) if isinstance(message.id, tuple) else "",
                        context=message.context)
    buffer = io.BytesIO()
    write_po(buffer, catalog, omit_header=True, no_location=True, width=120)
    return buffer.getvalue().decode()


# --- texts outside the catalog ---------------------------------------------------------------------------------

_TEMPLATE_DROPS = [
    re.compile(r"{%\s*comment\s*%}.*?{%\s*endcomment\s*%}", re.S),
    re.compile(r"{#.*?#}", re.S),
    re.compile(r"{%\s*blocktrans(?:late)?\b.*?{%\s*endblocktrans(?:late)?\s*%}", re.S),
    re.compile(r"<script\b.*?</script>", re.S | re.I),
    re.compile(r"<style\b.*?</style>", re.S | re.I),
    re.compile(r"{%.*?%}|{{.*?}}", re.S),
]
#: Attributes a reader sees or hears (a screen reader reads aria-label and alt).
_SHOWN_ATTRIBUTES = {"title", "placeholder", "aria-label", "alt", "aria-description", "data-confirm", "label"}


class _ShownText(html.parser.HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.texts: list[tuple[int, str]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        values = dict(attrs)
        for name, value in attrs:
            shown = name in _SHOWN_ATTRIBUTES or (
                name == "value" and tag == "input" and values.get("type") in {"submit", "button", "reset"})
            if shown and value:
                self.texts.append((self.getpos()[0], value))

    def handle_data(self, data: str) -> None:
        if data.strip():
            self.texts.append((self.getpos()[0], data.strip()))


def template_texts_outside(path: Path) -> list[str]:
    """The texts a template shows that are not inside {% translate %} / {% blocktranslate %}: "line: text"."""
    source = path.read_text(encoding="utf-8")
    for pattern in _TEMPLATE_DROPS:
        # Keep the line count, so a finding names its line.
        source = pattern.sub(lambda match: "\x00" + "\n" * match.group(0).count("\n"), source)
    parser = _ShownText()
    parser.feed(source)
    return [f"{line}: {text.replace(chr(0), '…')}" for line, text in parser.texts
            if english_words(text.replace("\x00", " "))]


_JS_MARKED = re.compile(r"(?:gettext|ngettext|pgettext|npgettext|gettext_noop)\(\s*$")
#: The plural form: ngettext("singular", "plural", n)'s second literal.
_JS_PLURAL = re.compile(r"n(?:p)?gettext\(\s*(?:\"(?:[^\"\\]|\\.)*\"|'(?:[^'\\]|\\.)*')\s*,\s*$")
# What reads as prose: two words with a space, or one capitalized word ("Cancel").
_PROSE = re.compile(r"[A-Za-z]{2,}[ ,.;:!?'’]+[A-Za-z]{2,}|^[A-Z][a-z]{2,}\b")
_NOT_PROSE = re.compile(r"^\s*[.#\[:]|^[\w-]+(\s+[\w-]+)*\s*[,>+~]|^[a-z][\w-]*(\s[a-z][\w-]*)*$")
_REGEX_BEFORE = set("(,=:[!&|?{};+-*%<>~^") | {""}


def _js_strings(source: str):
    """(offset, body) of each string literal of a script, comments and regular-expression literals skipped."""
    i, n = 0, len(source)
    last = ""  # the last code character that is not blank: tells a regular expression from a division
    while i < n:
        char = source[i]
        if source.startswith("//", i):
            i = source.find("\n", i)
            i = n if i == -1 else i
        elif source.startswith("/*", i):
            i = source.find("*/", i + 2)
            i = n if i == -1 else i + 2
        elif char == "/" and last in _REGEX_BEFORE:
            i += 1
            in_class = False
            while i < n and (source[i] != "/" or in_class) and source[i] != "\n":
                if source[i] == "\\":
                    i += 1
                elif source[i] == "[":
                    in_class = True
                elif source[i] == "]":
                    in_class = False
                i += 1
            i += 1
            last = "/"
        elif char in "'\"`":
            start = i
            i += 1
            while i < n and source[i] != char:
                i += 2 if source[i] == "\\" else 1
            yield start, source[start + 1:i]
            i += 1
            last = char
        else:
            if not char.isspace():
                last = char if not (char.isalnum() or char in "_$)]") else "a"
            i += 1


def script_texts_outside(path: Path) -> list[str]:
    """The string literals of a script that read as prose and are not inside gettext()/ngettext(): "line: text".
    A line ending with the comment ``// not shown`` is skipped (an identifier that reads like prose)."""
    source = path.read_text(encoding="utf-8")
    found = []
    for offset, body in _js_strings(source):
        line_end = source.find("\n", offset)
        line = source[source.rfind("\n", 0, offset) + 1:line_end if line_end != -1 else None]
        if (line.rstrip().endswith("// not shown") or _JS_MARKED.search(source[max(0, offset - 40):offset])
                or _JS_PLURAL.search(source[max(0, offset - 400):offset])):
            continue
        text = re.sub(r"<[^>]*>|\$\{[^}]*\}", " ", body)
        if _PROSE.search(text) and not _NOT_PROSE.search(text) and english_words(text):
            found.append(f"{source.count(chr(10), 0, offset) + 1}: {body[:80]}")
    return found


def templates() -> list[Path]:
    return sorted(TEMPLATE_DIR.rglob("*.html"))


def scripts() -> list[Path]:
    return sorted(SCRIPT_DIR.glob("*.js"))


def _main(argv: list[str]) -> int:
    if argv[:1] == ["missing"]:
        for state in catalog_states():
            print(f"# ==== {state.domain}: {len(state.untranslated)} untranslated, {len(state.fuzzy)} fuzzy, "
                  f"obsolete: {state.obsolete}")
            print(missing_entries(state))
        return 0
    if argv[:1] == ["outside"]:
        paths = [Path(p).resolve() for p in argv[1:]] or templates() + scripts()
        for path in paths:
            texts = script_texts_outside(path) if path.suffix == ".js" else template_texts_outside(path)
            for text in texts:
                print(f"{path.relative_to(ROOT)}:{text}")
        return 0
    print(__doc__)
    return 2


if __name__ == "__main__":
    raise SystemExit(_main(sys.argv[1:]))
