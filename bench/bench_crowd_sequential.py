"""Sequential stopping vs the paper's fixed 100 judgments per post, for the crowd's "can you tell where?" task.

Usage: .venv/bin/python bench/bench_crowd_sequential.py

Simulated answers (Bernoulli draws at a known true yes-rate), so the truth (true rate >= cutoff) is known. The
sequential queue stops a post once stats.decide has decided it and it has min_judgments answers, or at max 100;
the fixed campaign takes the first 100 answers of the same stream and applies the paper's point rule (yes-rate
>= 10%). Two populations:
(i) a grid of true rates, 10,000 posts each;
(ii) a realistic mix. The paper (000_97ca98741418ff59.txt, section 6 "Feasibility of location inference",
    "Results and Discussion") reports only that 246 of 1,000 tweets reached >= 10% yes among 100 participants;
    it gives no distribution of yes-rates. So the mix is an ASSUMPTION: true rates ~ Beta(a, b), with b solved
    so that the fixed campaign's expected share labelled inferable is the paper's 24.6% (beta-binomial
    P(K >= 10 | n = 100) = 0.246), for a J-shaped a = 0.5 (most posts carry no location cue) and a humped
    a = 2 (more posts near the cut-off, harder for any rule).
Seeded; a few seconds.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
from scipy.optimize import brentq
from scipy.stats import betabinom

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from anonymizer.crowd.sequential import SimulationResult, StoppingRule, simulate  # noqa: E402

SEED = 20240607
CUTOFF = 0.10
MAX = 100  # the campaign's judgments per post, the paper's 100
FIXED = 100
GRID = (0.00, 0.02, 0.05, 0.08, 0.10, 0.12, 0.15, 0.20, 0.30, 0.50)
PER_RATE = 10_000
MIX_POSTS = 100_000
PAPER_INFERABLE = 246 / 1000  # section 6: 246 of 1,000 tweets had >= 10% yes among 100 participants
# min_judgments 1 (no floor) shows what the floor buys; 10, 20, 35 are the candidates (35 is where 0 yes of n
# first decides "not" at cutoff 0.10). Confidence 0.99 shows the other lever: fewer errors, fewer savings.
GRID_RULES = ((1, 0.95), (10, 0.95), (20, 0.95), (35, 0.95))
MIX_RULES = ((1, 0.95), (10, 0.95), (20, 0.95), (35, 0.95), (10, 0.99), (35, 0.99))
BETA_SHAPES = (0.5, 2.0)

HEADER = (f"{'seq/post':>9}{'fixed':>6}{'saved':>7}{'err seq':>9}{'undec':>7}{'err seq+fb':>11}{'err fixed':>10}"
          f"{'disagree':>9}")
LEGEND = """Columns: seq/post = judgments per post, sequential; fixed = per post, fixed campaign; saved = judgments
saved vs fixed; err seq = sequential label vs truth, decided posts only; undec = share still undecided at max
100; err seq+fb = sequential vs truth over all posts when an undecided post falls back to the point rule on its
100 answers (= the fixed label, same footing as err fixed); err fixed = the paper's point rule at 100 vs truth,
all posts; disagree = sequential label vs the fixed-100 point label, decided posts only. Truth: true rate >= 0.10."""


def pct(value: float) -> str:
    return "     -" if np.isnan(value) else f"{100 * value:5.1f}%"


def cells(result: SimulationResult) -> str:
    return (f"{result.judgments_per_post:9.1f}{FIXED:6d}{pct(result.saved_share):>7}{pct(result.sequential_error):>9}"
            f"{pct(result.undecided_share):>7}{pct(result.fallback_error):>11}{pct(result.fixed_error):>10}"
            f"{pct(result.disagreement):>9}")


def beta_b(a: float) -> float:
    """b such that Beta(a, b) rates give the paper's share of posts with >= 10 yes of 100."""
    return brentq(lambda b: betabinom(FIXED, a, b).sf(9) - PAPER_INFERABLE, 0.01, 1000.0)


def main() -> int:
    print(f"Sequential stopping vs fixed {FIXED} judgments (cutoff {CUTOFF:.2f}, max {MAX}, seed {SEED})")
    print(LEGEND)

    print(f"\n(i) Grid of true yes-rates, {PER_RATE:,} simulated posts each")
    for min_judgments, confidence in GRID_RULES:
        rule = StoppingRule(cutoff=CUTOFF, min_judgments=min_judgments, max_judgments=MAX, confidence=confidence)
        # One seed for every rule: each rule sees the same answer streams, so the fixed columns are identical.
        result = simulate(GRID, rule, fixed=FIXED, seed=SEED, repeats=PER_RATE)
        print(f"\nmin_judgments {min_judgments}, confidence {confidence}")
        print(f"{'true rate':>9}" + HEADER)
        for rate in GRID:
            print(f"{rate:9.2f}" + cells(result.select(result.true_rates == rate)))
        print(f"{'all':>9}" + cells(result))

    print(f"\n(ii) Realistic mix, {MIX_POSTS:,} posts. ASSUMED true rates ~ Beta(a, b): the paper reports only that "
          f"{PAPER_INFERABLE:.1%}\nof posts reached >= 10% yes of 100 (section 6), not the distribution of "
          "yes-rates; b is solved to reproduce that share.")
    rng = np.random.default_rng(SEED)
    for a in BETA_SHAPES:
        b = beta_b(a)
        rates = rng.beta(a, b, size=MIX_POSTS)
        print(f"\nBeta({a:g}, {b:.2f}): mean rate {a / (a + b):.3f}, true rate >= {CUTOFF:.2f} for "
              f"{np.mean(rates >= CUTOFF):.1%} of posts")
        print(f"{'min':>4}{'conf':>6}" + HEADER + f"{'fixed says inferable':>22}")
        for min_judgments, confidence in MIX_RULES:
            rule = StoppingRule(cutoff=CUTOFF, min_judgments=min_judgments, max_judgments=MAX, confidence=confidence)
            result = simulate(rates, rule, fixed=FIXED, seed=SEED)
            print(f"{min_judgments:4d}{confidence:6.2f}" + cells(result) + f"{result.fixed_inferable.mean():21.1%}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
