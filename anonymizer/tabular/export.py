"""CSV files the app writes for users to download, safe to open in a spreadsheet (no Django here).

A spreadsheet runs a cell that starts with ``=``, ``+``, ``-`` or ``@`` as a formula (``=HYPERLINK(...)``,
``@SUM(A1)``, DDE payloads), and a leading tab or carriage return can hide such a start; Japanese-locale
spreadsheets also take the full-width ``＝ ＋ － ＠``. As OWASP recommends ("CSV Injection"), such a cell is
written with a single quote in front, which the spreadsheet shows as text. A plain number (``-5``, ``+3.2``,
``-1e-3``) is data, not a formula, and is written unchanged, so negative values stay usable.

Every CSV export goes through ``writer`` / ``DictWriter`` here (header included); ``neutralize=False`` (the
``CSV_NEUTRALIZE_FORMULAS`` setting, passed in by the web layer) writes every cell as it is.
"""

from __future__ import annotations

import csv
import re
from collections.abc import Iterable, Mapping
from typing import Any

FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r", "\uff1d", "\uff0b", "\uff0d", "\uff20")  # ＝ ＋ － ＠ full-width
# ASCII only ([0-9], not \d, which takes other scripts' digits); no nested repetition, so linear on any input.
PLAIN_NUMBER = re.compile(r"[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")


def is_formula(text: str) -> bool:
    """Whether a spreadsheet could run ``text`` as a formula: it starts with one of FORMULA_STARTS and is not a
    plain number."""
    return text.startswith(FORMULA_STARTS) and PLAIN_NUMBER.fullmatch(text) is None


def neutralize_cell(value: Any) -> Any:
    """``value`` with a single quote in front when it is a string a spreadsheet would run as a formula;
    anything else (numbers, None, ordinary text) unchanged."""
    if isinstance(value, str) and is_formula(value):
        return "'" + value
    return value


def neutralize_row(row: Iterable[Any]) -> list[Any]:
    return [neutralize_cell(value) for value in row]


class FormulaSafeWriter:
    """A csv writer whose ``writerow`` / ``writerows`` neutralize every cell (see ``neutralize_cell``)."""

    def __init__(self, inner, *, neutralize: bool = True) -> None:
        self._inner = inner
        self.neutralize = neutralize

    @property
    def dialect(self):
        return self._inner.dialect

    def writerow(self, row: Iterable[Any]):
        return self._inner.writerow(neutralize_row(row) if self.neutralize else row)

    def writerows(self, rows: Iterable[Iterable[Any]]) -> None:
        if not self.neutralize:
            self._inner.writerows(rows)
            return
        self._inner.writerows(neutralize_row(row) for row in rows)


def writer(fileobj, *, neutralize: bool = True, **fmtparams) -> FormulaSafeWriter:
    """``csv.writer(fileobj, **fmtparams)`` writing every cell through ``neutralize_cell``."""
    return FormulaSafeWriter(csv.writer(fileobj, **fmtparams), neutralize=neutralize)


class DictWriter(csv.DictWriter):
    """``csv.DictWriter`` writing every value, and the header, through ``neutralize_cell``. The keys stay as
    they are (they name the fields)."""

    def __init__(self, fileobj, fieldnames, *args, neutralize: bool = True, **kwargs) -> None:
        super().__init__(fileobj, fieldnames, *args, **kwargs)
        self.neutralize = neutralize

    def _safe(self, rowdict: Mapping[str, Any]) -> Mapping[str, Any]:
        return {key: neutralize_cell(value) for key, value in rowdict.items()} if self.neutralize else rowdict

    def writeheader(self):
        return super().writerow(self._safe(dict(zip(self.fieldnames, self.fieldnames, strict=True))))

    def writerow(self, rowdict: Mapping[str, Any]):
        return super().writerow(self._safe(rowdict))

    def writerows(self, rowdicts: Iterable[Mapping[str, Any]]) -> None:
        for rowdict in rowdicts:
            self.writerow(rowdict)
