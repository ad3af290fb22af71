"""``kakurega kanon``: k-anonymize a CSV file with text (rx-anon) as the web's k-anonymization job does, here or
with ``--server`` as a job on a Kakurega server (``kakurega.kanon``)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from kakurega.checks import KanonInputError, kanon_paths
from kakurega.cli import common
from kakurega.cli.common import QuietOption, ServerOption, TokenOption, fail, progress_bar

_CONFIGS = "the configuration's"
FileArgument = Annotated[Path, typer.Argument(metavar="FILE.csv", help="The dataset: a CSV file with a header row.",
                                              show_default=False)]
ConfigOption = Annotated[Path, typer.Option(
    "--config", "-c", metavar="CFG.yaml", show_default=False,
    help="The configuration (YAML or JSON): Kakurega's format or rx-anon's, as the web's configure page takes it.")]
OutputOption = Annotated[Path, typer.Option("--output", "-o", metavar="OUT.csv", show_default=False,
                                            help="Where the anonymized CSV is written.")]
ReportOption = Annotated[Path | None, typer.Option(
    "--report", metavar="REPORT.json", show_default="not written",
    help="Where the run's report is written as JSON (the web job's report.json).")]
ReviewOption = Annotated[Path | None, typer.Option(
    "--review", metavar="REVIEW.csv", show_default="not written",
    help="Where the released texts' words left for a reviewer are written (the job's left_for_review.csv).")]
KOption = Annotated[int | None, typer.Option(
    "-k", min=2, show_default=f"{_CONFIGS}, else 2",
    help="Every released person shares the relational values and text terms with at least k-1 others.")]
LambdaOption = Annotated[float | None, typer.Option(
    "--lambda", min=0.0, max=1.0, show_default=f"{_CONFIGS}, else 0.5",
    help="λ, the weight of the relational columns against the texts when Mondrian splits (0: texts only, "
         "1: relational only).")]
StrategyOption = Annotated[str | None, typer.Option(
    "--strategy", metavar="mondrian|gdf", show_default=f"{_CONFIGS}, else mondrian",
    help="Mondrian partitioning, or GDF (the baseline without λ).")]
SeedOption = Annotated[int | None, typer.Option("--seed", show_default=f"{_CONFIGS}, else 0",
                                                help="The seed of the partitioning's random choices.")]
GeneralizeOption = Annotated[bool | None, typer.Option(
    "--generalize-terms/--no-generalize-terms", show_default=f"{_CONFIGS}, else on",
    help="A term in a text climbs its hierarchy to what its class shares, rather than becoming its type.")]
EverywhereOption = Annotated[bool | None, typer.Option(
    "--recode-everywhere/--recode-per-person", show_default=f"{_CONFIGS}, else everywhere",
    help="A recognized string is recoded in every text, or only in its own person's texts.")]
PseudonymsOption = Annotated[bool | None, typer.Option(
    "--numbered-pseudonyms/--no-numbered-pseudonyms", show_default=f"{_CONFIGS}, else on (off for rx-anon's)",
    help="A person, organisation or place its class does not share is written PERSON_1, ORG_2, ... (the same "
         "string, the same pseudonym in the whole file) rather than its bare type.")]
FormulasOption = Annotated[bool | None, typer.Option(
    "--neutralize-formulas/--keep-formulas", show_default="CSV_NEUTRALIZE_FORMULAS, else on",
    help="Cells a spreadsheet would run as formulas are written quoted, as the web app does with the same "
         "setting.")]
ProcessesOption = Annotated[int, typer.Option(
    "--processes", "-p", min=1, help="spaCy processes for the texts not in the term cache (a run here, not on a "
                                     "server).")]
CacheOption = Annotated[bool, typer.Option(
    "--term-cache/--no-term-cache",
    help="Keep recognized terms in the cache folder (KAKUREGA_CACHE_DIR, else XDG's) and reuse them: a second "
         "run of the same texts, with another k or λ, skips the NER.")]


def register(app: typer.Typer) -> None:
    """Add ``kakurega kanon`` to ``app``."""
    app.command("kanon", no_args_is_help=True)(kanon)


def kanon(file: FileArgument, config: ConfigOption, output: OutputOption, report: ReportOption = None,
          review: ReviewOption = None, k: KOption = None, lambda_: LambdaOption = None,
          strategy: StrategyOption = None, seed: SeedOption = None, generalize_terms: GeneralizeOption = None,
          recode_everywhere: EverywhereOption = None, numbered_pseudonyms: PseudonymsOption = None,
          neutralize_formulas: FormulasOption = None, processes: ProcessesOption = 1, term_cache: CacheOption = True,
          quiet: QuietOption = False, server: ServerOption = None, token: TokenOption = None) -> None:
    """k-anonymize a dataset with text (rx-anon): relational columns and free text together, as the web's
    k-anonymization job does, byte for byte. The run parameters given as options (k, λ and the others) override
    the configuration's."""
    if strategy is not None and strategy not in ("mondrian", "gdf"):
        fail(f"--strategy: {strategy!r} is not a strategy; expected mondrian or gdf")
    if not server:  # a missing file is refused before the run's modules load (numpy, scipy, the recognizer)
        try:
            kanon_paths(file, output)
        except KanonInputError as exc:
            fail(str(exc))
    from kakurega.kanon import KanonOptions, run_file

    options = KanonOptions(k=k, relational_weight=lambda_, strategy=strategy, seed=seed,
                           generalize_terms=generalize_terms, recode_everywhere=recode_everywhere,
                           numbered_pseudonyms=numbered_pseudonyms, processes=processes, term_cache=term_cache,
                           neutralize_formulas=neutralize_formulas)
    try:
        if server:
            _on_server(server, token, file, config, output, report, review, options, quiet)
            return
        with progress_bar(f"k-anonymizing {file.name}", quiet=quiet) as progress:
            result = run_file(file, output, config, options, report=report, review=review, progress=progress)
    except KanonInputError as exc:
        fail(str(exc))
    except OSError as exc:  # a file that could not be written
        fail(f"{exc.filename or output}: {exc.strerror or exc}", common.EXIT_FAILED)
    typer.echo(f"{output}: {result['rows']:,} rows of {result['persons']:,} persons in {result['classes']:,} "
               f"classes, the smallest of {result['smallest_class']:,} (k = {result['k']})", err=True)


def _on_server(server: str, token: str | None, file: Path, config: Path, output: Path, report: Path | None,
               review: Path | None, options, quiet: bool) -> None:
    """The run as a job on a Kakurega server: the configuration read here against the file's header with the
    options put in, and sent in our format (as the configure page starts a run)."""
    from anonymizer.kanon.run import header_of
    from anonymizer.tabular import CsvFormatError
    from kakurega.kanon import JOB_KIND, configuration

    try:
        run_config = configuration(config, header_of(file), options)
    except CsvFormatError as exc:
        raise KanonInputError(f"{file}: {exc}") from None
    outputs = {"anonymized.csv": output, "report.json": report, "left_for_review.csv": review}
    common.run_on_server(server, token, kind=JOB_KIND, file=file, params={"config": run_config.to_dict()},
                         outputs={what: path for what, path in outputs.items() if path is not None}, quiet=quiet)
