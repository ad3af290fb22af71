"""Checking and profiling uploaded CSV files, streaming (no Django here).

check_csv decides whether an upload is acceptable; profile_csv describes each column of an accepted file.
"""

from .csvcheck import CsvShape, check_csv, chosen_columns
from .profile import profile_csv
from .reader import CsvFormatError

__all__ = ["CsvFormatError", "CsvShape", "check_csv", "chosen_columns", "profile_csv"]
