"""Time removal over a file of posts (no Django here): the rewrite of a CSV's rows that the web's remove-time job
and the ``kakurega remove-time`` command both run, and the report they write.

Every post of the text columns loses its time expressions first; then, with a location model, the model deletes
the fewest morphemes that make it location-ambiguous (the neutral phrases the time removal inserted are kept). The
output has the input's header and rows in their order; only the text columns' cells change, and an empty cell or
an unchanged post stays byte for byte as it was. A file with posts that are not English is refused whole: the
rewrite goes on only to name their rows (``not_english_message``)."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

from anonymizer.tabular.rewrite import Part, Rewrite, batches, column_indices, gather
from anonymizer.temporal.removal import TimeRemovalOptions, describe_time_removal, not_english_rows

if TYPE_CHECKING:
    from anonymizer.temporal.anonymize import TemporalAnonymizer

BATCH_ROWS = 256  # rows read, anonymized (one nlp.pipe call per text column) and written at a time
SAMPLE_SIZE = 10  # changed posts kept for the owner's review (the web job's page)


class LocationModelLike(Protocol):
    """What time removal uses of a location model (anonymizer.location.model.LocationModel; the temporal core
    does not import another capability's core, so it names the methods it calls)."""

    threshold: Any  # .value: the top-cell probability at or above which a post is location-inferable

    def deidentify(self, text: str, *, keep_spans: Sequence[tuple[int, int]] = (),
                   extra_scorers: Sequence[Any] = ()) -> Any: ...

    def tokenize(self, text: str) -> list: ...

    def cell_probabilities(self, docs: Sequence[Sequence[str]]) -> Any: ...


@dataclass(frozen=True)
class LocationStep:
    """The location de-identification after the time removal: the model, the human-inferability scorer trained
    beside it if any (as on the inspect page), and how the report names the model (``id``, ``name``, ``version``
    on the web; a name or a folder from a terminal)."""

    model: LocationModelLike
    extra: tuple = ()
    identity: Mapping[str, Any] = field(default_factory=dict)

    @property
    def threshold(self) -> float:
        return self.model.threshold.value

    def report(self) -> dict:
        return {**self.identity, "threshold": self.threshold, "human_model": bool(self.extra)}


@dataclass
class ColumnCounts:
    """What happened in one text column."""

    name: str
    posts: int = 0  # non-empty cells
    empty: int = 0
    changed: int = 0  # cells written differently
    time_removed: int = 0  # phrases cut ("at 9AM" is one)
    time_generalized: int = 0  # expressions replaced by a neutral phrase
    posts_time_changed: int = 0
    # With a location model:
    location_inferable_before: int = 0  # the post as written: top-cell probability >= the model's threshold
    location_inferable_after: int = 0  # the post written out
    morphemes_deleted: int = 0
    posts_location_changed: int = 0


def _anonymize_cells(cells: list[str], anonymizer: TemporalAnonymizer, location: LocationStep | None,
                     counts: ColumnCounts) -> list[str]:
    """The cells of one column of a batch, anonymized; an empty (or blank) cell and an unchanged post stay as
    they were, byte for byte."""
    out = list(cells)
    positions = [i for i, cell in enumerate(cells) if cell.strip()]
    counts.empty += len(cells) - len(positions)
    counts.posts += len(positions)
    results = anonymizer.transform([cells[i] for i in positions])
    for i, result in zip(positions, results, strict=True):
        after = result.text if result.changed else cells[i]
        if result.changed:
            described = describe_time_removal(result)
            counts.time_removed += len(described["removed"])
            counts.time_generalized += len(described["generalized"])
            counts.posts_time_changed += 1
        if location is not None:
            model = location.model
            post = model.deidentify(result.text, keep_spans=result.inserted_spans, extra_scorers=list(location.extra))
            before = post.probabilities_before
            if result.changed:  # "before" is the post as written, not the one without its time expressions
                before = model.cell_probabilities([[t.norm for t in model.tokenize(cells[i])]])[0]
            counts.location_inferable_before += bool(before.max() >= location.threshold)
            counts.location_inferable_after += bool(post.probabilities_after.max() >= location.threshold)
            if post.decision.deleted:
                counts.morphemes_deleted += len(post.decision.deleted)
                counts.posts_location_changed += 1
                after = post.text_after
        if after != cells[i]:
            out[i] = after
            counts.changed += 1
    return out


@dataclass(frozen=True)
class TimeRemoval:
    """A remove-time run's work: the options (built once, at the edge), the text columns in the order asked (each
    once) and the location step (its model loaded once per process)."""

    options: TimeRemovalOptions
    columns: tuple[str, ...]
    location: LocationStep | None = None

    def rewrite(self, anonymizer: TemporalAnonymizer, file_name: str) -> Rewrite:
        """The rewrite of a file's rows (``anonymizer.tabular.rewrite``) by ``anonymizer`` (the options' one, kept
        per process): every text cell anonymized, one ``nlp.pipe`` call per column of a batch; counts, a sample of
        changed posts and the rows that are not English as its state (rows from 0 within the records it is given).
        MissingColumn names ``file_name``."""
        location, names = self.location, list(self.columns)

        def rewrite(header: Sequence[str], records: Iterable[list[str]], writer,
                    progress: Callable[[int], None]) -> dict:
            indices = column_indices(header, names, file_name)
            counts = [ColumnCounts(name) for name in names]
            sample: list[dict] = []
            refused: list[tuple[int, str, str]] = []  # (row, column, why) of the posts that are not English
            done = 0
            for batch in batches(records, BATCH_ROWS):
                first, done = done, done + len(batch)
                refused.extend(not_english_rows(batch, indices, names, first))
                if refused:
                    continue  # the run will fail: only look for the other rows to name
                anonymized = [_anonymize_cells([row[column] for row in batch], anonymizer, location, column_counts)
                              for column, column_counts in zip(indices, counts, strict=True)]
                for offset, row in enumerate(batch):  # row by row, so the sample is the same whatever the parts
                    for column, name, cells in zip(indices, names, anonymized, strict=True):
                        if cells[offset] != row[column]:
                            if len(sample) < SAMPLE_SIZE:
                                sample.append({"row": first + offset, "column": name, "before": row[column],
                                               "after": cells[offset]})
                            row[column] = cells[offset]
                writer.writerows(batch)
                progress(done)
            return {"counts": [asdict(c) for c in counts], "sample": sample, "refused": refused}

        return rewrite

    def options_report(self) -> dict:
        """The options as the report states them."""
        options = self.options
        report = {"time_mode": options.time_mode, "keep_time": list(options.keep_time),
                  # Stored as what was kept: a result from before the option (none of it) then reads right.
                  "keep_how_long": not options.remove_how_long,
                  "time_patterns": options.time_patterns, "location_model": None}
        if options.time_patterns:
            report["time_patterns_top"] = options.time_patterns_top
        if self.location is not None:
            report["location_model"] = self.location.report()
        return report


@dataclass(frozen=True)
class Outcome:
    """A run's parts gathered: the report (counts only, no post text, so it can be shared), the sample of changed
    posts (rows numbered in the file) and the rows refused as not English ((row, column, why))."""

    report: dict
    sample: list[dict]
    refused: list[tuple[int, str, str]]


def outcome(removal: TimeRemoval, file_name: str, parts: Sequence[Part], seconds: float) -> Outcome:
    """The report of a run over ``file_name`` by ``parts`` (in file order) that took ``seconds``."""
    counts, sample, refused = gather(parts)
    names = list(removal.columns)
    report = {"input": file_name, "rows": sum(part.rows for part in parts), "text_columns": names,
              "columns": counts or [asdict(ColumnCounts(name)) for name in names],
              "options": removal.options_report(),
              "seconds": round(seconds, 3), "parts": len(parts) if len(parts) > 1 else 0}
    return Outcome(report, sample[:SAMPLE_SIZE], refused)
