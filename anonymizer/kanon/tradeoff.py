"""What the runs of one dataset trade: relational information loss (NCP_A) against textual (NCP_X), run by run,
and whether λ behaved as it is meant to on this data.

In rx-anon's Mondrian λ only chooses which attribute each cut is made on: the priority of a relational column
is (span + 2 bias + λ) / 2, that of a text's entity type (span + 1 − λ) / 2 (``partition``), so λ = 0 cuts on
the texts' terms and λ = 1 on the relational columns. It never weighs the loss itself. On large data that
choice shows as a trade-off, which is what the configure form promises: a larger λ keeps more of the columns
(NCP_A falls) and loses more of the texts (NCP_X rises); rx-anon measured it on thousands of persons (the Blog
Authorship Corpus, k = 2 … 50). On a small dataset a run makes a handful of cuts, few persons share a term
whatever the cuts, and which classes of k end up together moves the loss more than λ's preference does, so a
smaller λ can lose more text than a larger one. ``lambda_inversions`` finds such pairs among the runs of one k
and ``inversion_note`` says what they mean."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

# A difference smaller than this is not an inversion: the pages show NCP with three decimals.
TOLERANCE = 0.0005
MAX_LISTED = 4  # inversions named in the note; the others are counted


@dataclass(frozen=True)
class RunLoss:
    """One finished run: its parameters and what it lost (NCP in [0, 1], 0 = nothing lost)."""

    k: int
    strategy: str  # "mondrian" or "gdf"
    relational_weight: float | None  # λ; None for GDF
    ncp_relational: float  # NCP_A
    ncp_textual: float  # NCP_X
    persons: int = 0
    classes: int = 0
    cuts: int = 0  # splits made

    @property
    def label(self) -> str:
        return f"k={self.k}, GDF" if self.strategy == "gdf" else f"k={self.k}, λ={self.relational_weight:g}"


@dataclass(frozen=True)
class Inversion:
    """Two Mondrian runs of one k where the smaller λ did not lose more of the columns and less of the texts:
    ``measure`` is "NCP_X" (the smaller λ lost more text) or "NCP_A" (it kept more of the columns)."""

    k: int
    measure: str
    smaller: RunLoss
    larger: RunLoss

    def describe(self) -> str:
        low, high = self.smaller, self.larger
        if self.measure == "NCP_X":
            return (f"k = {self.k}: λ = {low.relational_weight:g} lost more text (NCP_X {low.ncp_textual:.3f}) than "
                    f"λ = {high.relational_weight:g} ({high.ncp_textual:.3f})")
        return (f"k = {self.k}: λ = {low.relational_weight:g} lost less of the columns (NCP_A "
                f"{low.ncp_relational:.3f}) than λ = {high.relational_weight:g} ({high.ncp_relational:.3f})")


def latest_per_setting(runs: Sequence[RunLoss]) -> list[RunLoss]:
    """One run per (k, strategy, λ): the last given (runs come oldest first), in the order of first appearance."""
    chosen: dict[tuple, RunLoss] = {}
    for run in runs:
        chosen[(run.k, run.strategy, run.relational_weight)] = run
    return list(chosen.values())


def lambda_inversions(runs: Sequence[RunLoss], tolerance: float = TOLERANCE) -> list[Inversion]:
    """Every pair of Mondrian runs with one k and λ < λ' where the smaller λ lost more text (NCP_X) or less of
    the relational columns (NCP_A) than the larger, by more than ``tolerance``; by k, then λ."""
    by_k: dict[int, list[RunLoss]] = {}
    for run in latest_per_setting(runs):
        if run.strategy != "gdf" and run.relational_weight is not None:
            by_k.setdefault(run.k, []).append(run)
    found: list[Inversion] = []
    for k in sorted(by_k):
        ordered = sorted(by_k[k], key=lambda run: run.relational_weight)
        for i, low in enumerate(ordered):
            for high in ordered[i + 1:]:
                if high.relational_weight == low.relational_weight:
                    continue
                if low.ncp_textual > high.ncp_textual + tolerance:
                    found.append(Inversion(k, "NCP_X", low, high))
                if low.ncp_relational < high.ncp_relational - tolerance:
                    found.append(Inversion(k, "NCP_A", low, high))
    return found


def inversion_note(runs: Sequence[RunLoss], tolerance: float = TOLERANCE) -> str | None:
    """A paragraph for the runs' page when λ did not trade as the form says on this data; None when it did (or
    when no k has two λ runs)."""
    inversions = lambda_inversions(runs, tolerance)
    if not inversions:
        return None
    listed = "; ".join(inversion.describe() for inversion in inversions[:MAX_LISTED])
    more = len(inversions) - MAX_LISTED
    if more > 0:
        listed += f"; and {more} more pair{'s' if more != 1 else ''}"
    involved = {id(run): run for inversion in inversions for run in (inversion.smaller, inversion.larger)}.values()
    persons = max((run.persons for run in involved), default=0)
    cuts = sorted({run.cuts for run in involved})
    classes = sorted({run.classes for run in involved})
    size = (f"With {persons} person{'s' if persons != 1 else ''}, these runs made "
            f"{_span(cuts)} cut{'s' if cuts[-1] != 1 else ''} into {_span(classes)} classes; " if persons else
            "On this data, ")
    return (f"λ did not trade as expected here — {listed}. λ only chooses which attribute each cut is made on "
            "(0: the texts' terms, 1: the relational columns); it does not weigh the loss. "
            f"{size}when few persons share a term, most terms are lost whatever the cuts, and which persons end up "
            "together moves the loss more than λ's preference does. The trade-off the form describes (a larger λ "
            "keeps more of the columns and loses more of the texts) is what rx-anon measured on thousands of "
            "persons; on data this small, compare the runs' NCP themselves, not λ.")


def _span(values: list[int]) -> str:
    return f"{values[0]}" if values[0] == values[-1] else f"{values[0]}–{values[-1]}"


GDF_SERIES = "GDF"


def series_of(run: RunLoss) -> str:
    """The chart series a run belongs to: its k for Mondrian (a line through its λ runs), GDF apart."""
    return GDF_SERIES if run.strategy == "gdf" else f"k = {run.k}"


def tradeoff_points(runs: Sequence[RunLoss]) -> list[tuple[str, str, float, float]]:
    """The runs as points of the trade-off picture, (label, series, NCP_A, NCP_X): one per (k, strategy, λ)
    (the newest run), Mondrian by k then λ, GDF last by k. Runs of one series that lost exactly the same (to
    the three decimals the pages show) are one point labelled with all their λ ("k=2, λ=0/0.5/1")."""
    runs = latest_per_setting(runs)
    ordered = sorted(runs, key=lambda run: (run.strategy == "gdf", run.k, run.relational_weight or 0.0))
    merged: dict[tuple, list[RunLoss]] = {}
    for run in ordered:
        key = (series_of(run), run.k, round(run.ncp_relational, 3), round(run.ncp_textual, 3))
        merged.setdefault(key, []).append(run)
    points = []
    for (series, _, _, _), group in merged.items():
        first = group[0]
        if first.strategy == "gdf":
            label = first.label
        else:
            label = f"k={first.k}, λ=" + "/".join(f"{run.relational_weight:g}" for run in group)
        points.append((label, series, first.ncp_relational, first.ncp_textual))
    return points
