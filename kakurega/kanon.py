"""k-anonymity of a dataset with text (rx-anon) from Python: ``kanon_csv`` on a file, ``kanon_frame`` on a pandas
DataFrame. Both run what the web's k-anonymization job runs (``anonymizer.kanon.run``), so the released file is
byte for byte the job's for the same file, configuration and options; ``kakurega kanon`` is ``kanon_csv``.

Recognized terms are kept in an SQLite file in the user's cache folder (``kakurega.paths.cache_dir``), keyed as
the web's database keeps them (the text's sha256 and the recognizer's settings): a second run of a dataset, with
another k or λ, skips the NER. SQLite's transactions make two processes writing it at once safe."""

from __future__ import annotations

import contextlib
import json
import os
import re
import tempfile
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import yaml

from anonymizer.kanon.config import MAX_CONFIG_BYTES, ConfigError, KanonConfig, check_config_size, load_config
from anonymizer.kanon.partition import TooFewPersons
from anonymizer.kanon.run import (
    anonymize_file,
    as_queued,
    count_persons,
    header_of,
    report_bytes,
    too_few_persons_message,
    with_run_options,
)
from anonymizer.tabular import CsvFormatError
from kakurega.checks import KanonInputError, kanon_paths
from kakurega.config import ReleaseSettings
from kakurega.paths import cache_dir

if TYPE_CHECKING:
    import pandas

#: The web's job kind of a k-anonymization run (``anonymizer.kanon.web.selectors.KIND``; a test keeps them equal).
JOB_KIND = "kanon"

#: A configuration: a YAML or JSON file's path (ours or rx-anon's format), such a document as a mapping, or a
#: ``KanonConfig``.
ConfigSource = str | os.PathLike | Mapping | KanonConfig
#: ``progress(done, total, message)``.
Progress = Callable[[int, int, str], None]


@dataclass(frozen=True)
class KanonOptions:
    """A run's options besides its file and configuration. The run parameters (k to numbered_pseudonyms) are the
    configuration's unless given (``RunParameters`` has their meaning and the defaults of our format)."""

    k: int | None = None
    relational_weight: float | None = None  # λ
    strategy: str | None = None  # "mondrian" or "gdf"
    seed: int | None = None
    generalize_terms: bool | None = None
    recode_everywhere: bool | None = None
    numbered_pseudonyms: bool | None = None
    processes: int = 1  # spaCy's processes for the texts not in the term cache
    term_cache: bool = True  # keep and reuse recognized terms in the cache folder
    # Cells a spreadsheet would run as formulas written quoted; None: as the web app with the same environment
    # (CSV_NEUTRALIZE_FORMULAS, ``kakurega.config``).
    neutralize_formulas: bool | None = None

    def run_parameters(self) -> dict[str, Any]:
        """The run parameters given (None: the configuration's)."""
        names = ("k", "relational_weight", "strategy", "seed", "generalize_terms", "recode_everywhere",
                 "numbered_pseudonyms")
        return {name: getattr(self, name) for name in names}


def term_cache_path() -> Path:
    """The SQLite file of recognized terms (``anonymizer.recognize.TermCache``) in the user's cache folder."""
    return cache_dir() / "recognized-terms.sqlite"


def kanon_csv(path: str | os.PathLike, output: str | os.PathLike, *, config: ConfigSource, k: int | None = None,
              lambda_: float | None = None, strategy: str | None = None, seed: int | None = None,
              generalize_terms: bool | None = None, recode_everywhere: bool | None = None,
              numbered_pseudonyms: bool | None = None, report: str | os.PathLike | None = None,
              review: str | os.PathLike | None = None, processes: int = 1, term_cache: bool = True,
              neutralize_formulas: bool | None = None, progress: Progress | None = None) -> dict:
    """k-anonymize the CSV file ``path`` into ``output`` and return the report (also written as JSON to
    ``report`` when given; ``review``: the CSV of the released texts' words left for a reviewer). ``k``,
    ``lambda_`` (λ, the relational weight) and the other run parameters override the configuration's when
    given. Raises KanonInputError for a bad file, configuration or option; nothing is left at ``output`` then."""
    options = KanonOptions(k=k, relational_weight=lambda_, strategy=strategy, seed=seed,
                           generalize_terms=generalize_terms, recode_everywhere=recode_everywhere,
                           numbered_pseudonyms=numbered_pseudonyms, processes=processes, term_cache=term_cache,
                           neutralize_formulas=neutralize_formulas)
    return run_file(Path(path), Path(output), config, options, report=None if report is None else Path(report),
                    review=None if review is None else Path(review), progress=progress)


def kanon_frame(frame: pandas.DataFrame, *, config: ConfigSource, k: int | None = None,
                lambda_: float | None = None, **options: Any) -> tuple[pandas.DataFrame, dict]:
    """``kanon_csv`` on a DataFrame: the released frame (every value a string, the direct identifier's column
    left out, ``frame``'s index kept) and the report. The frame goes through a CSV file as pandas writes it
    (``to_csv``, no index); ``options`` are ``kanon_csv``'s."""
    import pandas

    with tempfile.TemporaryDirectory(prefix="kakurega-kanon-") as folder:
        source, output = Path(folder) / "frame.csv", Path(folder) / "released.csv"
        frame.to_csv(source, index=False)
        report = kanon_csv(source, output, config=config, k=k, lambda_=lambda_, **options)
        released = pandas.read_csv(output, dtype=str, keep_default_na=False, na_filter=False)
    released.index = frame.index
    report["input"] = "DataFrame"
    return released, report


def run_file(source: Path, output: Path, config: ConfigSource, options: KanonOptions, *, report: Path | None = None,
             review: Path | None = None, progress: Progress | None = None) -> dict:
    """The run of ``kanon_csv`` and ``kakurega kanon``: the configuration read against the file's header and
    checked, k against the file's persons, then the web job's run; the files written under temporary names and
    renamed once all are complete."""
    from anonymizer.recognize import TermCache

    kanon_paths(source, output)
    try:
        columns = header_of(source)
    except CsvFormatError as exc:
        raise KanonInputError(f"{source}: {exc}") from None
    run_config = configuration(config, columns, options)
    _check_persons(source, run_config)
    with contextlib.ExitStack() as stack:
        cache = stack.enter_context(TermCache(term_cache_path())) if options.term_cache else None
        written = stack.enter_context(_written_together(
            {"output": output, "review": review if run_config.text_columns else None, "report": report}))
        try:
            result = anonymize_file(source, run_config, written["output"], input_name=source.name, cache=cache,
                                    processes=options.processes, progress=progress,
                                    neutralize_formulas=_neutralize(options), review_output=written["review"])
        except CsvFormatError as exc:
            raise KanonInputError(f"{source}: {exc}") from None
        except TooFewPersons as exc:
            raise KanonInputError(f"{source}: {exc}") from None
        if report is not None:
            written["report"].write_bytes(report_bytes(result))
    return result


def _neutralize(options: KanonOptions) -> bool:
    if options.neutralize_formulas is not None:
        return options.neutralize_formulas
    try:
        return ReleaseSettings.from_environment().neutralize_formulas
    except ValueError as exc:  # the variable set to something that is no flag
        raise KanonInputError(str(exc)) from None


def configuration(config: ConfigSource, columns: list[str], options: KanonOptions) -> KanonConfig:
    """The configuration that runs: ``config`` read against the file's ``columns``, the options' run parameters
    put in, as a queued job reads it back. KanonInputError naming each bad key (and its line in a file)."""
    text, where = None, "configuration"
    try:
        if isinstance(config, KanonConfig):
            loaded = config
        elif isinstance(config, Mapping):
            loaded = load_config(json.dumps(config, ensure_ascii=False), columns=columns)
        else:
            where = os.fspath(config)
            text = _config_text(Path(where))
            loaded = load_config(text, columns=columns)
        return as_queued(with_run_options(loaded, **options.run_parameters()), columns)
    except ConfigError as exc:
        raise KanonInputError("\n".join(f"{where}{_line(text, error.field)}: {error.field}: {error.message}"
                                        for error in exc.errors)) from None


def _config_text(path: Path) -> str:
    try:
        check_config_size(path.stat().st_size, MAX_CONFIG_BYTES)  # refused before it is read, as the web does
        return path.read_bytes().decode("utf-8-sig", errors="replace")
    except FileNotFoundError:
        raise KanonInputError(f"{path}: no such configuration file") from None
    except IsADirectoryError:
        raise KanonInputError(f"{path}: a folder, not a configuration file") from None


_PART = re.compile(r"[^.\[\]]+|\[\d+\]")


def _line(text: str | None, field: str) -> str:
    """``, line N`` of the YAML key ``field`` names (``attributes.age.type``; an attribute of our format's list
    by its name), or of the nearest key above it that is there; empty when there is no file or no such key."""
    if text is None:
        return ""
    try:
        node = yaml.compose(text, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))
    except yaml.YAMLError:
        return ""  # the message says where the syntax is wrong
    line = None
    for part in _PART.findall(field):
        found = _child(node, part)
        if found is None:
            break
        line, node = found
    return "" if line is None else f", line {line + 1}"


def _child(node, part: str):
    """(line, node) of ``part`` inside a composed YAML node: a mapping's key, or a list's item by its index or
    by its ``name``."""
    if isinstance(node, yaml.MappingNode):
        for key, value in node.value:
            if isinstance(key, yaml.ScalarNode) and key.value == part:
                return key.start_mark.line, value
    if isinstance(node, yaml.SequenceNode):
        index = part.strip("[]")
        if index.isdigit() and part.startswith("[") and int(index) < len(node.value):
            item = node.value[int(index)]
            return item.start_mark.line, item
        for item in node.value:
            if isinstance(item, yaml.MappingNode) and any(
                    isinstance(k, yaml.ScalarNode) and k.value == "name" and isinstance(v, yaml.ScalarNode)
                    and v.value == part for k, v in item.value):
                return item.start_mark.line, item
    return None


def _check_persons(source: Path, config: KanonConfig) -> None:
    """k against the file's persons before any work, with the web's message (the file is read only until k
    distinct persons were seen)."""
    column = config.direct_identifier
    with source.open("rb") as handle:
        problem = too_few_persons_message(count_persons(handle, column, config.k), config.k, column)
    if problem:
        raise KanonInputError(f"{source}: {problem}")


@contextlib.contextmanager
def _written_together(targets: Mapping[str, Path | None]) -> Iterator[dict[str, Path | None]]:
    """Temporary paths next to each target; on success each is renamed to its target, on failure all are
    removed, so a failed run leaves no partial file."""
    temporary = {name: None if target is None else target.with_name(f".{target.name}.{os.getpid()}.partial")
                 for name, target in targets.items()}
    try:
        for path in temporary.values():
            if path is not None:
                path.parent.mkdir(parents=True, exist_ok=True)
        yield temporary
        for name, path in temporary.items():
            target = targets[name]
            if path is not None and target is not None:
                path.replace(target)
    finally:
        for path in temporary.values():
            if path is not None:
                path.unlink(missing_ok=True)
                path.with_name(path.name + ".partial").unlink(missing_ok=True)  # the pipeline's own temporary name


__all__ = ["JOB_KIND", "KanonInputError", "KanonOptions", "configuration", "kanon_csv", "kanon_frame", "run_file",
           "term_cache_path"]
