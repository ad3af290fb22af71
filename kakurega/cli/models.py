"""``kakurega train-location`` (a location model from a geotagged corpus, into a folder) and ``kakurega
evaluate-protection`` (the attacker evaluation of the de-identifier on a default model's corpus): the management
commands train_location_model and evaluate_location_protection without Django, through the same functions."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated, Literal

import typer

from kakurega.cli.common import EXIT_FAILED, QuietOption, fail, progress_bar
from kakurega.cli.options import DEFAULT_PLACES, DEFAULT_REPLACEMENT, PlacesOption, ReplacementOption

DEFAULT_NAMES = ("tokyo-ja", "us-midwest-en")  # kakurega.location_models.DEFAULT_SPECS, without importing it here


def _column(role: str, default: str | None, what: str) -> typer.models.OptionInfo:
    return typer.Option(f"--{role}-column", metavar="NAME", help=f"The column (or JSON key) holding {what}.",
                        show_default=True if default is not None else "none")


def train_location_command(
    corpus: Annotated[Path, typer.Argument(metavar="CORPUS", help="CSV or JSON Lines file (.gz accepted) with a "
                                           "text, a latitude and a longitude per post.", show_default=False)],
    name: Annotated[str, typer.Option("--name", help="The model's name (a slug), e.g. kyoto-ja.")],
    south: Annotated[float, typer.Option("--south", help="The grid's southern edge (degrees latitude).")],
    west: Annotated[float, typer.Option("--west", help="The grid's western edge (degrees longitude).")],
    north: Annotated[float, typer.Option("--north", help="The grid's northern edge (degrees latitude).")],
    east: Annotated[float, typer.Option("--east", help="The grid's eastern edge (degrees longitude).")],
    output: Annotated[Path, typer.Option("--output", "-o", metavar="DIR", help="The folder to save the model in "
                                         "(new or empty); use it with --model DIR.")],
    rows: Annotated[int, typer.Option("--rows", help="Grid rows, north to south.")] = 20,
    cols: Annotated[int, typer.Option("--cols", help="Grid columns, west to east.")] = 10,
    language: Annotated[Literal["auto", "ja", "en"], typer.Option(
        "--language", help="The posts' language (auto: the most common among the first 500).")] = "auto",
    text_column: Annotated[str, _column("text", "text", "the post's text")] = "text",
    lat_column: Annotated[str, _column("lat", "lat", "the latitude")] = "lat",
    lon_column: Annotated[str, _column("lon", "lon", "the longitude")] = "lon",
    id_column: Annotated[str | None, _column("id", None, "the post's id")] = None,
    user_column: Annotated[str | None, _column("user", None, "the author (held-out posts by other users)")] = None,
    time_column: Annotated[str | None, _column("time", None, "the time of posting")] = None,
    where: Annotated[list[str] | None, typer.Option(
        "--where", metavar="COLUMN=V1,V2", help="Keep only rows whose column holds one of the values (repeat for "
                                               "several columns).", show_default="all rows")] = None,
    C: Annotated[float, typer.Option("--C", help="Inverse L2 regularisation strength of the classifier.")] = 1.0,
    min_df: Annotated[int, typer.Option("--min-df", help="Drop features seen in fewer posts than this.")] = 2,
    quiet: QuietOption = False,
) -> None:
    """Train a location model from a geotagged corpus on a grid you choose (60% to train, 40% held out to
    evaluate), as `manage.py train_location_model` does, and save it in a folder."""
    if not corpus.is_file():  # before the training's modules load (seconds)
        fail(f"{corpus}: no such file; expected a CSV or JSON Lines corpus")
    from anonymizer.location.corpus import ColumnMap
    from anonymizer.location.training import parse_where
    from anonymizer.platform.grid import Grid
    from kakurega.location_models import train_location_model

    try:
        Grid(south, west, north, east, rows=rows, cols=cols)
        clauses = parse_where(where or ())
    except ValueError as exc:  # checked before a long read of the corpus
        fail(str(exc) if str(exc).startswith("--where") else f"--south/--west/--north/--east/--rows/--cols: {exc}")
    columns = ColumnMap(text=text_column, lat=lat_column, lon=lon_column, id=id_column, user=user_column,
                        time=time_column)
    try:
        with progress_bar(f"training {name}", quiet=quiet) as progress:
            model = train_location_model(corpus, name=name, bbox=(south, west, north, east), rows=rows, cols=cols,
                                         language=language, columns=columns, where=clauses, C=C, min_df=min_df,
                                         output=output, progress=progress)
    except FileExistsError as exc:
        fail(str(exc))
    except OSError as exc:
        fail(f"{output}: the model could not be saved ({exc.strerror or exc})", EXIT_FAILED)
    except ValueError as exc:  # CsvFormatError (row and column), posts that cannot train a model
        fail(f"{corpus}: {exc}")
    _summary(model, output)


def _summary(model, output: Path) -> None:
    """What the management command prints: the corpus report, the model, its held-out scores and threshold."""
    metadata = model.metadata
    typer.echo(metadata["corpus_report"]["summary"])
    typer.echo(f"Model {model.name} ({model.language}): {metadata['classes']} cells, "
               f"{metadata['vocabulary_size']:,} features, trained on {metadata['train_posts']:,} posts; saved in "
               f"{output} (--model {output}).")
    scores = metadata.get("scores")
    if scores:
        typer.echo(f"Held-out ({scores['posts']:,} posts): accuracy {scores['accuracy']:.3f}, top-5 "
                   f"{scores['top5_accuracy']:.3f}, majority baseline {scores['majority_baseline']:.3f} "
                   f"(lift {scores['lift']:.2f}x), median error {scores['median_error_km']:.1f} km.")
    typer.echo(f"Threshold {model.threshold.value:.3f} ({model.threshold.kind}): {model.threshold.explanation}")


def evaluate_protection_command(
    model: Annotated[Literal[DEFAULT_NAMES], typer.Option(
        "--model", help="The default model whose corpus is split into defender, attacker and test posts.")]
    = "tokyo-ja",
    max_posts: Annotated[int, typer.Option("--max-posts", min=1, help="Test posts to de-identify and attack.")]
    = 1000,
    seed: Annotated[int, typer.Option("--seed", min=0, help="Seed of the split and the test sample.")] = 0,
    examples: Annotated[int, typer.Option("--examples", min=0, help="Examples of each kind to show.")] = 20,
    replacement: ReplacementOption = DEFAULT_REPLACEMENT,
    places: PlacesOption = DEFAULT_PLACES,
    as_json: Annotated[bool, typer.Option("--json", help="Print the whole result as JSON.", show_default="off")]
    = False,
    quiet: QuietOption = False,
) -> None:
    """Does de-identification protect? Train a defender and independent attackers on disjoint posts of a default
    model's corpus and compare the attackers on the original and the de-identified test posts (as
    `manage.py evaluate_location_protection` does)."""
    from kakurega.location_models import evaluate_protection, protection_table

    try:
        with progress_bar("evaluating protection", quiet=quiet) as progress:
            result = evaluate_protection(model, max_posts=max_posts, seed=seed, examples=examples,
                                         replacement=replacement, places=places, progress=progress)
    except FileNotFoundError as exc:
        fail(f"{exc.filename}: the corpus of {model} is missing", EXIT_FAILED)
    except ValueError as exc:
        fail(str(exc))
    typer.echo(json.dumps(result, indent=1, ensure_ascii=False) if as_json else protection_table(result))


def register(app: typer.Typer) -> None:
    """Add ``kakurega train-location`` and ``kakurega evaluate-protection`` to ``app``."""
    app.command("train-location")(train_location_command)
    app.command("evaluate-protection")(evaluate_protection_command)
