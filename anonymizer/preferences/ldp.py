"""Matrix factorization under epsilon-local differential privacy, with honest per-user privacy accounting.

Setting (Shin et al., TKDE 2018; Asada et al. 2019): the server holds the item profiles V and is not trusted.
Each round it sends V to every user; a user refits their own profile u_i to V on their own ratings (exactly,
``mf.fit_user_profiles``; u_i never leaves the device and costs no privacy), computes the gradient of the loss
in V from their ratings, perturbs it on the device and sends only the perturbed report. The server averages the
reports and takes a gradient step on V. A user's predictions (u_i . v_j) are computed on the device as well.

Two mechanisms:

BOUNDED (``LDPMatrixFactorization``, Shin et al.'s sampling + one-bit mechanism) - the user's total epsilon is
the budget they chose. User i's gradient for V is the n_items x D matrix G_i (D = the free coordinates of v_j:
``rank`` factors and the item bias), G_i[j] = -(r_ij - u_i . v_j) u_i on a rated item j and
exactly 0 on an unrated one, each entry divided by ``clip`` and clipped to [-1, 1]. Each round the user
    1. samples ONE coordinate k uniformly from all n_items x D (or, with ``projection`` = p, from the p x D
       coordinates of Phi G_i, where Phi is a public p x n_items matrix of +-1/sqrt(p) drawn afresh each round);
    2. reports (k, y) with y = one_bit(x_k, epsilon_round): +B with probability 1/2 + x_k (e^eps - 1) /
       (2 (e^eps + 1)), else -B, where B = (e^eps + 1) / (e^eps - 1) (Duchi et al. 2013), so E[y] = x_k.
The index k is drawn independently of the data, so it reveals nothing; in particular not which items the user
rated (their gradient is 0, reported through the same mechanism as any other value) - we sample among all
items rather than run randomized response on the rated-indicator, which would cost a second epsilon and
multiply the noise by the de-biasing factor 1 / (1 - p). Two inputs x, x' in [-1, 1] give the output +B with
probabilities whose ratio is at most e^eps (the bound is reached at x = 1, x' = -1), so each report is
epsilon_round-LDP for the whole gradient matrix, hence for all of the user's ratings and the set of items they
rated (reports depend on earlier rounds only through the public V, so adaptive sequential composition applies).
Every user sends ``rounds`` reports, one per pass over the users, with epsilon_round = epsilon / rounds each,
so the total is epsilon; by default rounds = ``auto_rounds(epsilon)``, about 2 per report. (The code calls
epsilon_round the epsilon of one report; with user partitioning, below, a pass has several server rounds.)
The server's estimate of the mean clipped gradient over the users of a round, n_items D clip / n_users x (sum
of the reports on each coordinate), is unbiased; with
projection it is Phi^T of the projected estimate, unbiased over the draw of Phi as long as no projected
coordinate (a sum of up to n_rated clipped entries / sqrt(p)) needs clipping to [-1, 1] again - where one does,
the estimate is shrunk towards 0 there (the price of bounding the report). The noise is known in closed
form, so the server gates each round's estimate (``apply_noise_gate``, post-processing, no privacy cost): it applies
the estimate only when its mean square exceeds the noise variance by ``GATE_Z`` standard errors, i.e. when the
round demonstrably carries signal, and skips the step otherwise. With few users (the 193 of the NYC data) no
round passes and V stays at its small random start, so predictions fall back to each user's own bias instead of
following noise; with tens of thousands of users every round passes. (Shrinking the estimate by signal /
(signal + noise) instead, measured and dropped, is better in mean square error but worse for the 0/1
predictions: it scales the item biases down, and a user's refit cannot scale them back up.)

USER PARTITIONING (``groups``). With every user in every round, one pass is one step on V: at epsilon = 2 (one
report of epsilon 2 each) V gets a single step from its random start, which sets the item biases but leaves the
factors where they started. With ``groups`` = G >= 1 each pass instead splits the users at random (a draw
independent of the data) into disjoint groups, and each group reports in its own round, with the whole
epsilon_round: a bias group (``bias_share`` of the users) reports one coordinate of the item-bias column of G_i
(n_items coordinates, clip ``clip``; one gated step of ``learning_rate`` on the item biases), then G factor
groups, one round each, report one coordinate of the ``rank`` factor columns (n_items rank coordinates, each
entry clipped to ``factor_clip``, far below ``clip``: the factor entries -e_ij u_il are about ten times smaller
than the bias entries -e_ij, and the one-bit noise scales with the clip) and the server steps the factors by
``factor_learning_rate`` after each. A single factor round rarely carries more signal than noise, so the factor
rounds are gated together (post-processing): if the sum of their G estimates does not exceed what their summed
noise explains, the factors go back to where the pass found them. Each user still sends exactly one report per
pass, of epsilon_round; the accountant charges each round to its group's users only, so every user's total is
rounds x epsilon_round = epsilon, as without partitioning (no amplification by sampling or shuffling is
claimed). Partitioning spends no more privacy and buys more steps, but not more information: the n reports of a
pass carry the same total, spread over more steps, so it pays only when a pass's users are many enough for the
factors' signal to stand out of the noise summed over the factor rounds. ``auto_groups`` (the default) turns it
on at 8 x n_items x rank x B^2 users per factor group (and at least 5 groups): never for the 193 real users (the
schedule, and every number, stays that of the single round), on for tens of thousands. Measured on the
Foursquare NYC proxy labels (40 items, rank 3, epsilon 2; gap = non-private MF's reconstruction rate minus
LDP-MF's on the 193 real users' held-out ratings, 5-fold CV with the LDP trainer on a resampled population, mean
over several draws of the folds, since one draw's gap moves by about 0.02):
    users      single round   partitioned (default)   draws
    20,000     0.072          0.056 (8 groups)        6
    50,000     0.048          0.044 (20 groups)       16
    100,000    0.031          0.025 (20 groups)       6
    500,000    0.034          0.011 (20 groups)       6
So it helps, and at 500,000 users the factors are learned; at 50,000 the gain is within the noise of the
measurement, and issue 17's goal (a gap <= 0.02 at 50,000 users and epsilon 2) is not reached: there one report
per user leaves each of the 120 factor coordinates with total noise about its own size (with the exact gradient
plus Gaussian noise of the one-bit mechanism's variance in its place, the gap is still 0.026 at a third of that
noise's standard deviation and 0.009 at a tenth). Tried and dropped: partitioning without the bias / factor
split (every group reporting all columns: worse than one round, the item biases take each round's whole noise),
smaller clips for all columns, larger, decaying or averaged steps, shrinking the learned factors, ``projection``
with partitioning, and V's factors from a one-shot private estimate of the residual covariance (eigenvectors).

PER-ENTRY (``LaplaceMF``, the paper's eq. 8-10) - the cost multiplies. Each round each user, for EVERY item j,
sends y*_ij = randomized_response(y_ij) (y_ij = 1 if j rated; keep with probability 1 - p, else a fair coin,
p = 2 / (e^eps_rr + 1)) and g*_ij = clip(G_i[j]) + Laplace(2 / eps_entry) per coordinate (a coordinate
in [-1, 1] moves by at most 2). The server averages (y*_ij - p/2) / (1 - p) g*_ij, unbiased for y_ij G_i[j],
and gates it as above (it sees every value, so it uses their sample variance).
Per round a user spends n_items (eps_rr + D eps_entry): over all rounds rounds x n_items x (eps_rr + D eps_entry).
The paper's "epsilon = 0.01" is eps_entry; with 40 items, D = 4, 5 rounds and eps_rr = eps_entry a user
spends 5 x 40 x 0.05 = 10, a thousand times the 0.01 it names (and 100 rounds of 400 items: 2,000).

``PrivacyAccountant`` adds up what each user spent by basic sequential composition (pure epsilon-LDP; the sum of
the epsilons of every report a user sent; no amplification or advanced composition is claimed) and refuses a
charge that would take a user over a budget.

``Mulberry32`` and ``perturb_report`` / ``client_report`` are the tiny, portable client side: a 32-bit PRNG
and the one-bit report written on one float at a time, so a browser implementation can be checked against
this one on fixed streams. Mulberry32 is for those comparisons only: its 32-bit seed can be brute-forced from a
few reports, so the page draws every report's randomness from the browser's cryptographic generator.
The vectorized training uses the same formula with numpy uniforms.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence

import numpy as np

from anonymizer.preferences.mf import fit_user_profiles, init_factors, scores_of, threshold_of
from anonymizer.preferences.ratings import Ratings

Uniform = Callable[[], float]
_M32 = 0xFFFFFFFF


class Mulberry32:
    """Tommy Ettinger's mulberry32: 32-bit state, 32-bit integer arithmetic only, so JavaScript reproduces it
    bit for bit (``Math.imul``, ``>>>``). ``uniform()`` = next 32-bit output / 2**32, in [0, 1).

    JavaScript: a = a + 0x6D2B79F5 | 0; t = Math.imul(a ^ a >>> 15, 1 | a);
                t = t + Math.imul(t ^ t >>> 7, 61 | t) ^ t; return ((t ^ t >>> 14) >>> 0) / 4294967296;
    """

    def __init__(self, seed: int) -> None:
        self.state = seed & _M32

    def next_uint32(self) -> int:
        self.state = (self.state + 0x6D2B79F5) & _M32
        a = self.state
        t = ((a ^ (a >> 15)) * (1 | a)) & _M32
        t = ((t + (((t ^ (t >> 7)) * (61 | t)) & _M32)) & _M32) ^ t
        return (t ^ (t >> 14)) & _M32

    def uniform(self) -> float:
        return self.next_uint32() / 4294967296.0

    __call__ = uniform


def one_bit_bound(epsilon: float) -> float:
    """B = (e^eps + 1) / (e^eps - 1), the magnitude of a one-bit report."""
    if not epsilon > 0:
        raise ValueError("epsilon must be positive")
    return 1.0 / math.tanh(epsilon / 2.0)  # = (e^eps + 1) / (e^eps - 1), stable for small and large eps


def perturb_report(value: float, epsilon: float, uniform: Uniform) -> float:
    """The one-bit epsilon-LDP report of ``value`` (clipped to [-1, 1]): +B if uniform() < 1/2 + value *
    (e^eps - 1) / (2 (e^eps + 1)), else -B. Uses exactly one uniform draw. E[report] = value."""
    x = clip_unit(value)
    bound = one_bit_bound(epsilon)
    return bound if uniform() < 0.5 + x / (2.0 * bound) else -bound


def clip_unit(value: float) -> float:
    """A value clipped to [-1, 1], NaN read as 0 (the same rule as ``one_bit`` and ldp.js): a NaN must not
    decide the report's sign, which would break the e^eps bound against any real value."""
    value = float(value)
    return 0.0 if math.isnan(value) else min(1.0, max(-1.0, value))


def client_report(gradient: Sequence[float], epsilon: float, uniform: Uniform) -> tuple[int, float]:
    """A user's whole report for one round: (index, value) for the flattened, clipped gradient (row-major
    n_items x D, or the projected p x D). Draws the index with the first uniform (floor(u * n)), then the
    value with perturb_report. The server's unbiased estimate of coordinate k is n * value * [index == k]."""
    n = len(gradient)
    index = min(int(uniform() * n), n - 1)
    return index, perturb_report(gradient[index], epsilon, uniform)


def one_bit(values: np.ndarray, epsilon: float, uniforms: np.ndarray) -> np.ndarray:
    """Vectorized perturb_report: one report per value, given one uniform in [0, 1) per value."""
    bound = one_bit_bound(epsilon)
    x = np.clip(np.nan_to_num(np.asarray(values, dtype=float), nan=0.0, posinf=1.0, neginf=-1.0), -1.0, 1.0)
    return np.where(uniforms < 0.5 + x / (2.0 * bound), bound, -bound)


def rr_flip_probability(epsilon: float) -> float:
    """The p of the paper's randomized response (eq. 8) giving epsilon-LDP: p = 2 / (e^eps + 1)."""
    return 2.0 / (math.exp(epsilon) + 1.0)


def randomized_response(bits: np.ndarray, epsilon: float, rng: np.random.Generator) -> np.ndarray:
    """Paper eq. 8: keep the bit with probability 1 - p, else replace it by a fair coin (1 and 0 with p/2
    each). P(1 | 1) / P(1 | 0) = (1 - p/2) / (p/2) = e^eps."""
    p = rr_flip_probability(epsilon)
    replace = rng.random(np.shape(bits)) < p
    coin = rng.random(np.shape(bits)) < 0.5
    return np.where(replace, coin, np.asarray(bits, bool)).astype(np.int8)


def debias_rr(reported: np.ndarray, epsilon: float) -> np.ndarray:
    """Paper eq. 10's factor: (y* - p/2) / (1 - p), whose expectation is the true bit."""
    p = rr_flip_probability(epsilon)
    return (np.asarray(reported, np.float64) - p / 2.0) / (1.0 - p)


def laplace_noise(shape, epsilon: float, sensitivity: float, rng: np.random.Generator) -> np.ndarray:
    """Laplace noise of scale sensitivity / epsilon (epsilon-DP for a value moving by at most ``sensitivity``)."""
    return rng.laplace(0.0, sensitivity / epsilon, shape)


GATE_Z = 3.0


def _noise_power_bound(estimate: np.ndarray, noise_variance: float, z: float) -> float:
    """The mean square that pure noise of ``noise_variance`` per coordinate stays below, by ``z`` standard errors
    of the mean of K squared coordinates (sqrt(2 / K) of it)."""
    return noise_variance * (1.0 + z * math.sqrt(2.0 / estimate.size))


def apply_noise_gate(estimate: np.ndarray, noise_variance: float, z: float = GATE_Z) -> np.ndarray:
    """The estimate if its mean square exceeds what noise of ``noise_variance`` explains (``z`` standard errors
    above it), else zeros. Post-processing of released values."""
    power = float(np.mean(estimate**2))
    return estimate if power > _noise_power_bound(estimate, noise_variance, z) else np.zeros_like(estimate)


class BudgetExceeded(RuntimeError):
    pass


class PrivacyAccountant:
    """Each user's epsilon spent, by basic sequential composition: the sum over every report they sent.

    ``charge(epsilon, count, users)`` records ``count`` reports of ``epsilon`` each by ``users`` (all users when
    None). Charges are kept as (epsilon, count per user); ``spent`` groups them by epsilon and sums epsilon x
    count, so R reports of eps / R add up to R * (eps / R), which is eps up to one rounding. With a
    ``budget``, a charge that would take any user above it (beyond a relative 1e-9 for rounding) raises
    BudgetExceeded and is not recorded.
    """

    def __init__(self, n_users: int, budget: float | None = None) -> None:
        self.n_users = n_users
        self.budget = budget
        self._charges: list[tuple[float, np.ndarray]] = []

    def charge(self, epsilon: float, count: int | np.ndarray = 1, users: np.ndarray | None = None) -> None:
        counts = np.zeros(self.n_users, np.int64)
        if users is None:
            counts += np.asarray(count, np.int64)
        else:
            np.add.at(counts, np.asarray(users, np.int64), np.asarray(count, np.int64))
        if self.budget is not None:
            after = self.spent() + epsilon * counts
            if np.any(after > self.budget * (1 + 1e-9)):
                worst = int(np.argmax(after))
                raise BudgetExceeded(f"user {worst} would spend epsilon {after[worst]:.6g} > budget {self.budget}")
        self._charges.append((float(epsilon), counts))

    def spent(self) -> np.ndarray:
        """Per-user total epsilon."""
        if not self._charges:
            return np.zeros(self.n_users)
        distinct: dict[float, np.ndarray] = {}
        for epsilon, counts in self._charges:
            distinct[epsilon] = distinct.get(epsilon, 0) + counts
        return np.sum([epsilon * counts for epsilon, counts in distinct.items()], axis=0)

    def charges(self) -> list[tuple[float, np.ndarray]]:
        """Every charge in order: (epsilon of each report, reports per user), copies."""
        return [(epsilon, counts.copy()) for epsilon, counts in self._charges]

    def reports(self) -> np.ndarray:
        """Per-user number of reports sent."""
        return np.sum([c for _, c in self._charges], axis=0) if self._charges else np.zeros(self.n_users, int)


def auto_rounds(epsilon: float, max_rounds: int = 20) -> int:
    """Rounds for a total epsilon when none are given: about 2 per round, where the one-bit report's magnitude
    B = coth(eps / 2) is already near its floor of 1 (B = 1.31 at eps = 2, 2.16 at 1, 20 at 0.1); splitting
    a small budget further only multiplies the noise. At least 1, at most ``max_rounds``."""
    return int(min(max(round(epsilon / 2.0), 1), max_rounds))


GROUP_USERS_PER_COORDINATE = 8.0
MIN_FACTOR_GROUPS = 5
MAX_FACTOR_GROUPS = 20


def auto_groups(n_users: int, n_coordinates: int, epsilon_report: float, bias_share: float = 0.3,
                users_per_coordinate: float = GROUP_USERS_PER_COORDINATE, min_groups: int = MIN_FACTOR_GROUPS,
                max_groups: int = MAX_FACTOR_GROUPS) -> int:
    """Factor groups per pass when none are given, for ``n_coordinates`` = n_items x rank factor coordinates:
    one per ``users_per_coordinate`` x n_coordinates x B^2 users outside the bias group (B = coth(epsilon_report
    / 2)), which keeps a factor round's noise per coordinate the same for any item count and epsilon; at most
    ``max_groups``; 0 (every user in every round, the single-round schedule) when that gives fewer than
    ``min_groups``. For 40 items, rank 3 and epsilon 2 that is about 1,650 users per group: 5 groups from
    about 11,800 users, 20 from about 47,100 (and none for the 193 real users at any epsilon)."""
    factor_users = (1.0 - bias_share) * n_users
    per_group = users_per_coordinate * n_coordinates * one_bit_bound(epsilon_report) ** 2
    groups = int(min(factor_users / per_group, max_groups))
    return groups if groups >= min_groups else 0


def mean_clipped_gradient(ratings: Ratings, users: np.ndarray, items: np.ndarray, rank: int,
                          clip: float = 1.0) -> np.ndarray:
    """What the mechanisms estimate, computed in the clear: (1 / n_users) sum_i clip(G_i), n_items x D, where
    G_i[j] = -(r_ij - u_i . v_j) u_i[free] on rated items and 0 elsewhere, clipped entrywise to [-clip, clip]."""
    free = np.r_[np.arange(rank), rank + 1]
    error = ratings.value - scores_of(users, items, ratings.user, ratings.item)
    per_entry = np.clip(-error[:, None] * users[ratings.user][:, free], -clip, clip)
    out = np.zeros((ratings.n_items, len(free)))
    np.add.at(out, ratings.item, per_entry)
    return out / ratings.n_users


class _FederatedMF:
    """What both LDP trainers share. The server holds V (n_items x (rank + 2): factors, the constant 1 that
    carries the user bias, the item bias); each user holds u_i and refits it exactly to the current V on their
    device every round (``fit_user_profiles``: no privacy cost). Predictions u_i . v_j, 1 when >= threshold."""

    rank: int
    regularization: float
    learning_rate: float
    init_scale: float
    threshold: float | str
    seed: int | None

    def _free_columns(self) -> np.ndarray:
        """Columns of V that are parameters: the factors and the item bias (not the constant 1)."""
        return np.r_[np.arange(self.rank), self.rank + 1]

    def round_gradient(self, ratings: Ratings, users: np.ndarray, items: np.ndarray,
                        rng: np.random.Generator) -> np.ndarray:
        raise NotImplementedError

    def _charge(self, ratings: Ratings) -> None:
        raise NotImplementedError

    def _rounds(self) -> int:
        raise NotImplementedError

    def fit(self, ratings: Ratings) -> _FederatedMF:
        rng = np.random.default_rng(self.seed)
        _, items = init_factors(ratings, self.rank, True, self.init_scale, rng)
        free = self._free_columns()
        self.accountant_ = PrivacyAccountant(ratings.n_users, budget=getattr(self, "epsilon", None))
        for _ in range(self._rounds()):
            users = fit_user_profiles(ratings, items, self.rank, self.regularization)
            gradient = self.round_gradient(ratings, users, items, rng)
            self._charge(ratings)
            items[:, free] -= self.learning_rate * (gradient + self.regularization * items[:, free])
        self.user_factors_ = fit_user_profiles(ratings, items, self.rank, self.regularization)
        self.item_factors_ = items
        self.threshold_ = threshold_of(self.threshold, self.user_factors_, items)
        return self

    def decision_function(self, user: np.ndarray, item: np.ndarray) -> np.ndarray:
        return scores_of(self.user_factors_, self.item_factors_, np.asarray(user), np.asarray(item))

    def predict(self, user: np.ndarray, item: np.ndarray) -> np.ndarray:
        return (self.decision_function(user, item) >= self.threshold_).astype(np.int8)


class LDPMatrixFactorization(_FederatedMF):
    """The bounded mechanism of the module docstring: per-user total epsilon = ``epsilon``, sent as ``rounds``
    reports of epsilon / rounds each (None: ``auto_rounds(epsilon)``), one per pass over the users.

    ``groups`` = 0: every pass is one round in which every user reports on all free columns of V (one step).
    ``groups`` = G >= 1: every pass splits the users at random into disjoint groups - a bias group
    (``bias_share`` of them), whose round steps the item biases (``learning_rate``, clip ``clip``, gated per
    round), then G factor groups, one round each, stepping the factors (``factor_learning_rate``, clip
    ``factor_clip``, gated over the G rounds together). None: ``auto_groups``."""

    def __init__(self, rank: int = 3, epsilon: float = 1.0, rounds: int | None = None,
                 learning_rate: float = 1.0, regularization: float = 0.05, clip: float = 1.0,
                 projection: int | None = None, noise_gate: bool = True, init_scale: float = 0.1,
                 threshold: float | str = 0.5, seed: int | None = 0, groups: int | None = None,
                 bias_share: float = 0.3, factor_clip: float = 0.15, factor_learning_rate: float = 3.0) -> None:
        self.rank = rank
        self.epsilon = epsilon
        self.rounds = rounds
        self.learning_rate = learning_rate
        self.regularization = regularization
        self.clip = clip
        self.projection = projection
        self.noise_gate = noise_gate
        self.init_scale = init_scale
        self.threshold = threshold
        self.seed = seed
        self.groups = groups
        self.bias_share = bias_share
        self.factor_clip = factor_clip
        self.factor_learning_rate = factor_learning_rate

    def _rounds(self) -> int:
        return self.rounds if self.rounds is not None else auto_rounds(self.epsilon)

    @property
    def epsilon_round(self) -> float:
        """The epsilon of one report (each user sends ``rounds`` of them)."""
        return self.epsilon / self._rounds()

    def _groups(self, n_users: int, n_items: int) -> int:
        if self.rank < 1:
            return 0
        groups = self.groups if self.groups is not None else auto_groups(
            n_users, n_items * self.rank, self.epsilon_round, self.bias_share)
        # Every group needs a user: the bias group round(bias_share n) >= 1, each factor group >= 1.
        return int(max(0, min(groups, n_users - max(round(self.bias_share * n_users), 1))))

    def _columns(self, columns: np.ndarray | None) -> np.ndarray:
        return self._free_columns() if columns is None else np.asarray(columns, np.int64)

    def noise_variance(self, n_users: int, n_items: int, columns: np.ndarray | None = None,
                       clip: float | None = None) -> float:
        """The variance of one coordinate of ``aggregate``'s estimate from pure one-bit noise: one coordinate sums
        the +-B reports of the ~n / (rows D) users that drew it, each scaled by rows D clip / n, so
        rows D clip^2 B^2 / n (phi^T mixes p of them with weights +-1/sqrt(p): the same)."""
        clip = self.clip if clip is None else clip
        rows = self.projection or n_items
        return rows * len(self._columns(columns)) * clip**2 * one_bit_bound(self.epsilon_round) ** 2 / n_users

    def reports(self, ratings: Ratings, users: np.ndarray, items: np.ndarray, rng: np.random.Generator,
                columns: np.ndarray | None = None,
                clip: float | None = None) -> tuple[np.ndarray, np.ndarray, np.ndarray | None]:
        """Every user's report of one round, vectorized: (coordinate index, +-B value, the round's projection
        or None). Coordinates are row-major over (item, or projected row) x the reported ``columns`` of V (all
        free columns by default), each gradient entry clipped to ``clip`` (default ``self.clip``)."""
        n_users, n_items = ratings.n_users, ratings.n_items
        columns = self._columns(columns)
        clip = self.clip if clip is None else clip
        dims = len(columns)
        rows = self.projection or n_items
        index = np.minimum((rng.random(n_users) * (rows * dims)).astype(np.int64), rows * dims - 1)
        row, dim = np.divmod(index, dims)
        # Coordinate (j, l) of user i's gradient: -e_ij * u_il (u_il = 1 for the item-bias coordinate).
        user_value = users[:, columns]
        if self.projection is None:
            phi = None
            key = np.arange(n_users) * n_items + row
            rated = np.zeros(n_users, bool)
            if len(ratings):
                pos = np.minimum(np.searchsorted(ratings.key, key), len(ratings) - 1)
                rated = ratings.key[pos] == key
            error = np.zeros(n_users)
            error[rated] = ratings.value[pos[rated]] - scores_of(users, items, np.flatnonzero(rated), row[rated])
            value = -error * user_value[np.arange(n_users), dim]
        else:
            phi = rng.choice(np.array([-1.0, 1.0]) / math.sqrt(rows), size=(rows, n_items))
            # Projected coordinate (s, l) of user i: sum over i's rated items j of phi[s, j] * clipped G_i[j, l].
            error = ratings.value - scores_of(users, items, ratings.user, ratings.item)
            entry = np.clip(-error * user_value[ratings.user, dim[ratings.user]] / clip, -1.0, 1.0)
            value = np.bincount(ratings.user, weights=phi[row[ratings.user], ratings.item] * entry,
                                minlength=n_users) * clip
        value = np.clip(value / clip, -1.0, 1.0)
        return index, one_bit(value, self.epsilon_round, rng.random(n_users)), phi

    def aggregate(self, ratings: Ratings, index: np.ndarray, report: np.ndarray, phi: np.ndarray | None,
                  columns: np.ndarray | None = None, clip: float | None = None,
                  gate: bool | None = None) -> np.ndarray:
        """The server's unbiased estimate of the mean (over the round's users) clipped gradient, n_items x the
        reported columns; gated when ``gate`` (default ``self.noise_gate``)."""
        dims = len(self._columns(columns))
        clip = self.clip if clip is None else clip
        rows = self.projection or ratings.n_items
        scale = rows * dims * clip / ratings.n_users
        estimate = (np.bincount(index, weights=report, minlength=rows * dims) * scale).reshape(rows, dims)
        if phi is not None:
            estimate = phi.T @ estimate
        if self.noise_gate if gate is None else gate:
            estimate = apply_noise_gate(estimate, self.noise_variance(ratings.n_users, ratings.n_items, columns,
                                                                      clip))
        return estimate

    def round_gradient(self, ratings: Ratings, users: np.ndarray, items: np.ndarray,
                        rng: np.random.Generator) -> np.ndarray:
        return self.aggregate(ratings, *self.reports(ratings, users, items, rng))

    def _partition(self, ratings: Ratings, groups: int,
                   rng: np.random.Generator) -> list[tuple[np.ndarray, Ratings]]:
        """A random split of the users (independent of the data) into the bias group and ``groups`` factor groups:
        [(the group's user indices, its ratings with the users renumbered 0 .. size - 1)], bias group first."""
        n = ratings.n_users
        n_bias = max(round(self.bias_share * n), 1)
        order = rng.permutation(n)
        label = np.empty(n, np.int64)
        label[order[:n_bias]] = 0
        label[order[n_bias:]] = 1 + np.arange(n - n_bias) % groups
        members = [np.flatnonzero(label == g) for g in range(groups + 1)]
        within = np.empty(n, np.int64)
        for group in members:
            within[group] = np.arange(len(group))
        entry_label = label[ratings.user]
        by_group = np.argsort(entry_label, kind="stable")
        bounds = np.searchsorted(entry_label[by_group], np.arange(groups + 2))
        parts = []
        for g, group in enumerate(members):
            chosen = by_group[bounds[g]:bounds[g + 1]]
            parts.append((group, Ratings(within[ratings.user[chosen]], ratings.item[chosen], ratings.value[chosen],
                                         len(group), ratings.n_items)))
        return parts

    def _step(self, part: Ratings, items: np.ndarray, columns: np.ndarray, clip: float,
              rng: np.random.Generator, gate: bool) -> np.ndarray:
        """One round of one group: the users refit their profiles on their devices and report; the estimate."""
        users = fit_user_profiles(part, items, self.rank, self.regularization)
        index, report, phi = self.reports(part, users, items, rng, columns, clip)
        return self.aggregate(part, index, report, phi, columns, clip, gate)

    def fit(self, ratings: Ratings) -> LDPMatrixFactorization:
        rng = np.random.default_rng(self.seed)
        _, items = init_factors(ratings, self.rank, True, self.init_scale, rng)
        self.accountant_ = PrivacyAccountant(ratings.n_users, budget=self.epsilon)
        self.groups_ = groups = self._groups(ratings.n_users, ratings.n_items)
        self.factor_steps_ = 0
        free, factors, bias = self._free_columns(), np.arange(self.rank), np.array([self.rank + 1])
        for _ in range(self._rounds()):
            if not groups:
                gradient = self._step(ratings, items, free, self.clip, rng, self.noise_gate)
                self.accountant_.charge(self.epsilon_round)
                items[:, free] -= self.learning_rate * (gradient + self.regularization * items[:, free])
                continue
            (members, part), *factor_parts = self._partition(ratings, groups, rng)
            gradient = self._step(part, items, bias, self.clip, rng, self.noise_gate)
            self.accountant_.charge(self.epsilon_round, users=members)
            items[:, bias] -= self.learning_rate * (gradient + self.regularization * items[:, bias])
            start, moved, noise = items[:, factors].copy(), np.zeros((ratings.n_items, self.rank)), 0.0
            for members, part in factor_parts:
                gradient = self._step(part, items, factors, self.factor_clip, rng, gate=False)
                self.accountant_.charge(self.epsilon_round, users=members)
                items[:, factors] -= self.factor_learning_rate * (gradient + self.regularization * items[:, factors])
                moved += gradient
                noise += self.noise_variance(part.n_users, part.n_items, factors, self.factor_clip)
            # The gate over the factor rounds (post-processing): their summed estimates must carry more than
            # their summed noise explains, else the factors go back to where the pass found them.
            if self.noise_gate and not np.any(apply_noise_gate(moved, noise)):
                items[:, factors] = start
            else:
                self.factor_steps_ += len(factor_parts)
        self.user_factors_ = fit_user_profiles(ratings, items, self.rank, self.regularization)
        self.item_factors_ = items
        self.threshold_ = threshold_of(self.threshold, self.user_factors_, items)
        return self


class LaplaceMF(_FederatedMF):
    """The paper's per-entry mechanism (module docstring): every item, every coordinate, every round."""

    def __init__(self, rank: int = 3, epsilon_entry: float = 0.01, epsilon_rr: float | None = None,
                 rounds: int = 5, learning_rate: float = 1.0, regularization: float = 0.05, clip: float = 1.0,
                 noise_gate: bool = True, init_scale: float = 0.1, threshold: float | str = 0.5,
                 chunk_users: int = 2048, seed: int | None = 0) -> None:
        self.rank = rank
        self.epsilon_entry = epsilon_entry
        self.epsilon_rr = epsilon_rr
        self.rounds = rounds
        self.learning_rate = learning_rate
        self.regularization = regularization
        self.clip = clip
        self.noise_gate = noise_gate
        self.init_scale = init_scale
        self.threshold = threshold
        self.chunk_users = chunk_users
        self.seed = seed

    def _rounds(self) -> int:
        return self.rounds

    @property
    def _eps_rr(self) -> float:
        return self.epsilon_rr if self.epsilon_rr is not None else self.epsilon_entry

    def epsilon_per_round(self, n_items: int) -> float:
        """What one user spends in one round: n_items x (eps_rr + D x eps_entry)."""
        return n_items * (self._eps_rr + len(self._free_columns()) * self.epsilon_entry)

    def epsilon_total(self, n_items: int) -> float:
        """rounds x n_items x (eps_rr + D x eps_entry)."""
        return self.rounds * self.epsilon_per_round(n_items)

    def _charge(self, ratings: Ratings) -> None:
        # Per item: one randomized response and D Laplace-perturbed coordinates, for every item.
        self.accountant_.charge(self._eps_rr, count=ratings.n_items)
        self.accountant_.charge(self.epsilon_entry, count=ratings.n_items * len(self._free_columns()))

    def round_gradient(self, ratings: Ratings, users: np.ndarray, items: np.ndarray,
                        rng: np.random.Generator) -> np.ndarray:
        """All users perturb their full gradient (paper eq. 8-9); the server's de-biased mean (eq. 10)."""
        free = self._free_columns()
        error = ratings.value - scores_of(users, items, ratings.user, ratings.item)
        total = np.zeros((ratings.n_items, len(free)))
        squares = np.zeros_like(total)
        bounds = np.searchsorted(ratings.user, np.r_[np.arange(0, ratings.n_users, self.chunk_users),
                                                     ratings.n_users])
        for block, lo in enumerate(range(0, ratings.n_users, self.chunk_users)):
            hi = min(lo + self.chunk_users, ratings.n_users)
            a, b = bounds[block], bounds[block + 1]
            local_user, item = ratings.user[a:b] - lo, ratings.item[a:b]
            gradient = np.zeros((hi - lo, ratings.n_items, len(free)))
            gradient[local_user, item] = np.clip(
                -error[a:b, None] * users[ratings.user[a:b]][:, free] / self.clip, -1.0, 1.0)
            rated = np.zeros((hi - lo, ratings.n_items), bool)
            rated[local_user, item] = True
            noisy = gradient + laplace_noise(gradient.shape, self.epsilon_entry, 2.0, rng)
            products = debias_rr(randomized_response(rated, self._eps_rr, rng), self._eps_rr)[:, :, None] * noisy
            total += products.sum(axis=0)
            squares += (products**2).sum(axis=0)
        n = ratings.n_users
        mean = total / n
        if self.noise_gate:
            # The server sees every user's value of every coordinate: the noise variance of the mean is the
            # mean over coordinates of their sample variance, / n.
            mean = apply_noise_gate(mean, float(np.mean(squares / n - mean**2)) / n)
        return mean * self.clip
