"""Issue 17's attack, replayed on the Python mirror of the page. The page used to draw all of a contribution's
randomness from one Mulberry32 stream seeded with 32 random bits: each report's coordinate index is a function of
the seed, so a brute force over the seeds finds the one stream that gives the indices seen, and with it the
uniform behind every ±B - each report becomes a yes/no answer about the true gradient value, not ε-LDP. The
search here covers 2^20 seeds (the same arithmetic as 2^32, a 4,096th of the work, so the test stays fast); the
page now draws 53 fresh bits from a CSPRNG for every draw (``serving.secure_uniform``, mirroring ldp.js), and
the same search finds no stream at all."""

from __future__ import annotations

import numpy as np
import pytest

from anonymizer.preferences.ldp import Mulberry32, one_bit_bound
from anonymizer.preferences.serving import contribution_reports, secure_uniform

SEARCH = 2**20  # seeds the attacker tries
N_COORDINATES, EPSILON, ROUNDS = 480, 10.0, 5  # the default model's coordinates; R >= 3 was exposed


def mulberry32_draws(seeds: np.ndarray, draws: int) -> np.ndarray:
    """Uniforms of Mulberry32 (ldp.Mulberry32) for many seeds at once: seeds x draws. The k-th state is
    seed + (k + 1) 0x6D2B79F5 mod 2^32, then the output mix; uint32 arithmetic wraps as the generator's does."""
    out = np.empty((len(seeds), draws))
    s = seeds.astype(np.uint32)
    with np.errstate(over="ignore"):
        for k in range(draws):
            a = s + np.uint32((k + 1) * 0x6D2B79F5 & 0xFFFFFFFF)
            t = (a ^ (a >> np.uint32(15))) * (a | np.uint32(1))
            t = (t + (t ^ (t >> np.uint32(7))) * (t | np.uint32(61))) ^ t
            out[:, k] = (t ^ (t >> np.uint32(14))) / 4294967296.0
    return out


def recover_seeds(reports: list[dict], n: int) -> np.ndarray:
    """Every seed of the search space whose stream gives the reports' indices (draws 0, 2, 4, ...: each report
    takes one draw for its index, then one for its value)."""
    seeds = np.arange(SEARCH, dtype=np.uint32)
    draws = mulberry32_draws(seeds, 2 * len(reports))
    index = np.minimum((draws[:, 0::2] * n).astype(np.int64), n - 1)
    observed = np.array([r["index"] for r in reports])
    return seeds[np.all(index == observed, axis=1)]


def test_the_mirror_of_the_generator_matches_mulberry32():
    for seed in (0, 7, 123_456, 2**20 - 1):
        generator = Mulberry32(seed)
        assert mulberry32_draws(np.array([seed]), 6)[0].tolist() == [generator() for _ in range(6)]


@pytest.mark.parametrize("seed", [11, 424_242, 2**20 - 3])
def test_a_seeded_stream_gives_its_seed_and_every_value_away(seed):
    gradient = np.random.default_rng(seed).uniform(-1, 1, N_COORDINATES)
    reports = contribution_reports(gradient, EPSILON, ROUNDS, Mulberry32(seed))
    found = recover_seeds(reports, N_COORDINATES)
    assert found.tolist() == [seed]  # 5 indices (about 9 bits each) single out the seed
    # With the seed, the uniform behind each value is known: +B says x > 2B(u - 1/2), -B says x <= it.
    draws = mulberry32_draws(found, 2 * ROUNDS)[0]
    bound = one_bit_bound(EPSILON / ROUNDS)
    for r, report in enumerate(reports):
        cut = 2 * bound * (draws[2 * r + 1] - 0.5)
        x = gradient[report["index"]]
        assert (x > cut) == (report["value"] > 0)


def test_fresh_cryptographic_draws_leave_no_stream_to_find():
    gradient = np.random.default_rng(5).uniform(-1, 1, N_COORDINATES)
    for _ in range(3):
        reports = contribution_reports(gradient, EPSILON, ROUNDS, secure_uniform)
        assert recover_seeds(reports, N_COORDINATES).size == 0
    # And two contributions of the same inputs share nothing: their draws differ.
    first, second = (contribution_reports(gradient, EPSILON, ROUNDS, secure_uniform) for _ in range(2))
    assert [r["index"] for r in first] != [r["index"] for r in second]
