"""How well the recognizer is measured to do: the one place the reports take the figures from.

A report that says "no recognized name left" is only as good as what the recognizer finds, so the kanon report
and job page state these figures beside it, with the sample and date they were measured on. They are measured
by the bench (``bench_command``), not computed at run time, and updated by hand when the recognizer changes:
a figure here describes the recognizer of ``commit``, not necessarily the one running.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass


@dataclass(frozen=True)
class RecognizerMeasurement:
    """The recognizer's recall and precision as last measured. Shares are fractions (0.802 is 80.2%); None
    where the figure was not measured on this sample."""

    label: str  # one line saying what was measured, when and on what, for a reader
    sample: str  # the posts read: which sample, drawn how
    seed: int  # the seed the sample was drawn with
    posts: int  # posts a reader annotated
    mentions: int  # entity mentions the reader marked in them
    mention_recall: float  # share of the mentions a recognized (or string-level recoded) term covers
    post_leak_rate: float | None  # share of released posts still holding a span a reader would remove
    leak_sample: str  # where post_leak_rate and placeholder_precision were measured, when not on ``sample``
    placeholder_precision: float | None  # share of placeholders that replaced an identifier, not an ordinary word
    placeholders: int | None  # placeholders judged for placeholder_precision
    tab_er_di_all_types: float | None  # TAB test documents, direct-identifier recall, all OntoNotes types
    tab_er_di_blog: float | None  # the same with rx-anon's blog configuration's types
    tab_documents: int  # TAB test documents the ER_di figures are over
    bench_command: str  # what measures them again
    commit: str  # the recognizer measured
    measured_on: str  # ISO date

    def statement(self) -> str:
        """The figures in one paragraph for a report's reader, each with what it was measured on."""
        parts = [f"The recognizer found {self.mention_recall:.1%} of the {self.mentions:,} entity mentions a reader "
                 f"marked in {self.posts} posts ({self.sample.split(':')[0]}, seed {self.seed}; measured "
                 f"{self.measured_on} at commit {self.commit} by {self.bench_command})."]
        if self.post_leak_rate is not None:
            parts.append(f"Released posts still holding a span a reader would remove: {self.post_leak_rate:.0%} "
                         f"({self.leak_sample}).")
        if self.placeholder_precision is not None and self.placeholders:
            parts.append(f"Placeholders that replaced an identifier rather than an ordinary word: "
                         f"{self.placeholder_precision:.0%} of {self.placeholders:,} (the same check).")
        if self.tab_er_di_all_types is not None:
            blog = f", {self.tab_er_di_blog:.3f} with the blog configuration" if self.tab_er_di_blog is not None else ""
            parts.append(f"TAB direct-identifier recall (ER_di, {self.tab_documents} test documents): "
                         f"{self.tab_er_di_all_types:.3f} with all types{blog}.")
        return " ".join(parts)


#: Updated by hand from the bench's output when the recognizer changes (issue 44: the lead at its end).
MEASURED = RecognizerMeasurement(
    label="measured 2026-12-05 on the held-out sample (seed 20261208, never tuned on) after issue 44's second "
          "round: recall 72.0% of 322 mentions (DPO mentions 76.4%)",
    sample="held-out sample: 49 Blog Authorship posts never used for tuning, annotated once by a blind reader "
           "before any output was seen (bench/reader/judgments_kanon_entities_20261208.jsonl, drawn by "
           "bench/reader/sample_kanon_entities.py)",
    seed=20261208,
    posts=49,
    mentions=322,
    mention_recall=232 / 322,
    post_leak_rate=11 / 50,
    leak_sample="a blind reader's check of 50 other held-out posts (seed 20261209) released with rx-anon's blog "
                "configuration, k = 2, λ = 0.5, shuffled with the release before the round (seed 20261210): 11 "
                "of 50 still held a span to remove (11 of 50 before), 44 of 363 placeholders replaced an "
                "ordinary word (48 of 368 before)",
    placeholder_precision=(363 - 44) / 363,
    placeholders=363,
    tab_er_di_all_types=0.984,
    tab_er_di_blog=0.984,
    tab_documents=31,
    bench_command=".venv/bin/python bench/bench_kanon_recall.py --sample heldout (TAB: bench/bench_tab.py)",
    commit="ab52e73",
    measured_on="2026-12-05",
)


def measured_recognizer() -> dict:
    """``MEASURED`` as a report's JSON, with its ``statement``."""
    return {**dataclasses.asdict(MEASURED), "statement": MEASURED.statement()}
