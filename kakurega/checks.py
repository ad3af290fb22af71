"""What a command checks before the work's heavy modules are imported: a file's header against the columns asked
for. It imports only the CSV reader (``anonymizer.tabular``), so a command with a typo in ``--column`` or an
unreadable file is refused in a fraction of a second, before pandas, scikit-learn or a language model load
(``kakurega.deidentify`` imports them). The messages are the ones the full check gives."""

from __future__ import annotations

from pathlib import Path

from anonymizer.tabular import chosen_columns
from anonymizer.tabular.reader import CsvFormatError, CsvSource


class DeidentifyError(ValueError):
    """Input the release cannot take: the message names the file, the row and the column, and what was expected."""


def posts_header(path: Path, names: list[str]) -> list[str]:
    """The header of the posts file ``path``; DeidentifyError naming the file and what was expected when it cannot
    be read, is not an acceptable CSV file, or lacks one of the text columns ``names``."""
    try:
        with path.open("rb") as handle:
            header = CsvSource(handle).header
    except CsvFormatError as exc:
        raise DeidentifyError(located(path, exc)) from exc
    except OSError as exc:
        raise DeidentifyError(f"{path}: {exc.strerror or exc}; expected a readable CSV file") from exc
    _, missing = chosen_columns(names, header, path.name)
    if missing:
        raise DeidentifyError(missing[0])
    return header


def located(path: Path, exc: CsvFormatError) -> str:
    """A CSV format error's message with the file's name and, when known, its row and column."""
    return f"{path.name}: {exc.location}: {exc.message}" if exc.location else f"{path.name}: {exc.message}"


class KanonInputError(ValueError):
    """Bad input, said as the web says it: the file and its row and column, or the configuration's key and line,
    and what was expected."""


def kanon_paths(source: Path, output: Path) -> None:
    """KanonInputError unless ``source`` is a file and ``output`` another one."""
    if not source.is_file():
        raise KanonInputError(f"{source}: no such file")
    if output.resolve() == source.resolve():
        raise KanonInputError(f"{output}: the output would overwrite the input; give another file name")
