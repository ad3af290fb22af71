"""static/js/ldp.js against the Python it mirrors, in chromium on fixed streams: the same Mulberry32 outputs
and uniforms bit for bit, the same one-bit reports (same draws, same signs, the same ±B), the same coordinate
indices, and the same profile, scores and gradient from a model and ratings."""

from __future__ import annotations

import json

import numpy as np
import pytest

from anonymizer.preferences import serving
from anonymizer.preferences.ldp import Mulberry32, client_report, one_bit_bound, perturb_report
from tests.helpers import ROOT, browser_page

pytestmark = pytest.mark.browser
SEEDS = [0, 1, 42, 123_456_789, 2**31 - 1, 2**31, 0xDEADBEEF, 2**32 - 1]
EPSILONS = [0.01, 0.1, 0.2, 0.5, 1.0, 2.0, 5.0, 10.0]


@pytest.fixture(scope="module")
def js():
    """A blank page with ldp.js loaded; returns evaluate(expression, argument)."""
    pages = browser_page()
    page = next(pages)
    page.goto("about:blank")
    page.add_script_tag(path=str(ROOT / "static" / "js" / "ldp.js"))
    assert page.evaluate("typeof window.KakuregaLDP.clientReport") == "function"
    yield page.evaluate
    next(pages, None)


def test_mulberry32_gives_the_same_integers_and_uniforms(js):
    got = js("""seeds => seeds.map(seed => {
        const a = new KakuregaLDP.Mulberry32(seed), b = new KakuregaLDP.Mulberry32(seed);
        const ints = [], uniforms = [];
        for (let i = 0; i < 2000; i++) { ints.push(a.nextUint32()); uniforms.push(b.uniform()); }
        return [ints, uniforms];
    })""", SEEDS)
    for seed, (ints, uniforms) in zip(SEEDS, got, strict=True):
        a, b = Mulberry32(seed), Mulberry32(seed)
        assert ints == [a.next_uint32() for _ in range(2000)], seed
        assert uniforms == [b.uniform() for _ in range(2000)], seed  # floats compared exactly
        assert all(0 <= u < 1 for u in uniforms)


def test_the_one_bit_bound_and_reports_are_the_same(js):
    values = [-3.0, -1.0, -0.73, -0.2, -1e-9, 0.0, 1e-9, 0.05, 0.5, 0.999, 1.0, 2.5]
    got = js("""([seeds, values, epsilons]) => ({
        bounds: epsilons.map(KakuregaLDP.oneBitBound),
        reports: seeds.map(seed => {
            const uniform = KakuregaLDP.uniformStream(seed);
            const out = [];
            for (let k = 0; k < 40; k++) for (const eps of epsilons) for (const v of values)
                out.push(KakuregaLDP.perturbReport(v, eps, uniform));
            return [out, uniform()];  // and where the stream stands afterwards: one draw per report
        }),
    })""", [SEEDS, values, EPSILONS])
    for eps, bound in zip(EPSILONS, got["bounds"], strict=True):
        assert bound == pytest.approx(one_bit_bound(eps), rel=1e-14)
    for seed, (reports, after) in zip(SEEDS, got["reports"], strict=True):
        uniform = Mulberry32(seed)
        expected = [perturb_report(v, eps, uniform) for _ in range(40) for eps in EPSILONS for v in values]
        assert np.array_equal(np.sign(reports), np.sign(expected)), seed
        assert reports == pytest.approx(expected, rel=1e-14)
        assert after == uniform()
        assert {abs(round(r, 9)) for r in reports} == {round(one_bit_bound(e), 9) for e in EPSILONS}


def test_client_reports_pick_the_same_coordinates_and_values(js):
    rng = np.random.default_rng(5)
    gradients = [rng.uniform(-1.5, 1.5, n).tolist() for n in (1, 2, 7, 480, 4_000)]
    got = js("""([seeds, gradients, epsilons]) => seeds.map(seed => {
        const uniform = KakuregaLDP.uniformStream(seed);
        const out = [];
        for (const g of gradients) for (const eps of epsilons) for (let k = 0; k < 25; k++)
            out.push(KakuregaLDP.clientReport(g, eps, uniform));
        out.push(KakuregaLDP.contributionReports(gradients[3], 1.0, 5, uniform));
        return out;
    })""", [SEEDS, gradients, EPSILONS])
    for seed, reports in zip(SEEDS, got, strict=True):
        uniform = Mulberry32(seed)
        expected = [list(client_report(g, eps, uniform)) for g in gradients for eps in EPSILONS for _ in range(25)]
        *single, contribution = reports
        assert [i for i, _ in single] == [i for i, _ in expected], seed
        assert [v for _, v in single] == pytest.approx([v for _, v in expected], rel=1e-14)
        assert np.array_equal(np.sign([v for _, v in single]), np.sign([v for _, v in expected]))
        reference = serving.contribution_reports(gradients[3], 1.0, 5, uniform)
        assert [(r["round"], r["index"], r["epsilon"]) for r in contribution] == [
            (r["round"], r["index"], r["epsilon"]) for r in reference]
        assert [r["value"] for r in contribution] == pytest.approx([r["value"] for r in reference], rel=1e-14)


def test_profile_scores_confidence_and_gradient_are_the_same(js, default_artifact):
    model = {**default_artifact.to_dict(), "rank": default_artifact.rank}
    rng = np.random.default_rng(11)
    cases = [{}, {5: 1}, {0: 0, 119: 1}]
    for size in (3, 10, 40, 120):
        items = rng.choice(default_artifact.n_items, size, replace=False)
        cases.append({int(j): int(rng.random() < 0.5) for j in items})
    got = js("""([model, cases]) => cases.map(pairs => {
        const ratings = new Map(pairs);
        const profile = KakuregaLDP.fitProfile(model, ratings);
        const scores = KakuregaLDP.scores(model, profile);
        return {profile, scores, confidence: scores.map(s => KakuregaLDP.confidence(model, s)),
                gradient: KakuregaLDP.gradient(model, profile, ratings)};
    })""", [json.loads(json.dumps(model)), [list(c.items()) for c in cases]])
    for ratings, out in zip(cases, got, strict=True):
        profile = serving.fit_profile(default_artifact, ratings)
        scores = serving.scores(default_artifact, profile)
        assert out["profile"] == pytest.approx(profile.tolist(), abs=1e-10)
        assert out["scores"] == pytest.approx(scores.tolist(), abs=1e-10)
        assert out["confidence"] == pytest.approx(serving.confidence(default_artifact, scores).tolist(), abs=1e-9)
        gradient = serving.gradient(default_artifact, profile, ratings)
        assert out["gradient"] == pytest.approx(gradient.tolist(), abs=1e-10)
        assert len(out["gradient"]) == default_artifact.n_coordinates
        rated = {j * (default_artifact.rank + 1) + d for j in ratings for d in range(default_artifact.rank + 1)}
        assert all(v == 0 for k, v in enumerate(out["gradient"]) if k not in rated)  # unrated items: exactly 0


def test_the_page_draws_every_report_from_fresh_cryptographic_bits(js):
    """Issue 17: a contribution's draws used to come from one Mulberry32 stream seeded by 32 random bits, which a
    brute force over 2^32 seeds recovers from a few reports. Now each draw is 53 fresh bits of
    crypto.getRandomValues: recorded here, every coordinate index and every sign is that draw's function of the
    person's gradient, and nothing is carried from one draw to the next."""
    rng = np.random.default_rng(17)
    gradient = rng.uniform(-1.5, 1.5, 480).tolist()
    reports, calls = js("""gradient => {
        const real = crypto.getRandomValues.bind(crypto), calls = [];
        crypto.getRandomValues = array => { const out = real(array); calls.push(Array.from(out)); return out; };
        try {
            return [KakuregaLDP.contributionReports(gradient, 2.0, 5, KakuregaLDP.reportUniform()), calls];
        } finally {
            crypto.getRandomValues = real;
        }
    }""", gradient)

    def uniform(words: list[int]) -> float:
        return ((words[0] >> 5) * 2**26 + (words[1] >> 6)) / 2**53

    assert len(reports) == 5 and len(calls) == 10 and all(len(words) == 2 for words in calls)
    assert len({tuple(words) for words in calls}) == 10  # 64 fresh bits per draw
    bound = one_bit_bound(2.0 / 5)
    for r, report in enumerate(reports):
        index_draw, sign_draw = uniform(calls[2 * r]), uniform(calls[2 * r + 1])
        assert report["index"] == min(int(index_draw * 480), 479)
        x = min(1.0, max(-1.0, gradient[report["index"]]))
        assert report["value"] == pytest.approx(bound if sign_draw < 0.5 + x / (2 * bound) else -bound, rel=1e-14)
    many = js("() => Array.from({length: 20000}, () => KakuregaLDP.secureUniform())")
    assert all(0 <= u < 1 for u in many) and len(set(many)) == len(many) and 0.48 < float(np.mean(many)) < 0.52


def test_one_rule_for_nan_infinities_and_out_of_range_values(js):
    """Issue 17: NaN used to give -B always in the browser and in numpy but a clipped -1 in Python; a NaN that
    decides the sign breaks the e^eps bound. One rule now: NaN reads as 0, ±inf and out-of-range values clip to
    ±1 — the same reports from ldp.js, perturb_report and the vectorized one_bit on the same draws."""
    from anonymizer.preferences.ldp import clip_unit, one_bit

    names = ["NaN", "Infinity", "-Infinity", "1e308", "-1e308", "5", "-5", "0.3", "-0", "null"]
    got = js("""([names, seeds]) => {
        const values = names.map(name => name === "null" ? null : Number(name));
        return {
            clipped: values.map(KakuregaLDP.clipUnit),
            reports: seeds.map(seed => {
                const uniform = KakuregaLDP.uniformStream(seed), out = [];
                for (let k = 0; k < 200; k++)
                    for (const v of values) out.push(KakuregaLDP.perturbReport(v, 1.0, uniform));
                return out;
            }),
        };
    }""", [names, SEEDS])
    values = [float("nan"), float("inf"), float("-inf"), 1e308, -1e308, 5.0, -5.0, 0.3, -0.0, float("nan")]
    assert got["clipped"] == [0.0, 1.0, -1.0, 1.0, -1.0, 1.0, -1.0, 0.3, 0.0, 0.0]
    assert [clip_unit(v) for v in values] == got["clipped"]
    for seed, reports in zip(SEEDS, got["reports"], strict=True):
        stream = Mulberry32(seed)
        expected = [perturb_report(v, 1.0, stream) for _ in range(200) for v in values]
        assert np.array_equal(np.sign(reports), np.sign(expected)), seed
        draws = Mulberry32(seed)
        uniforms = np.array([draws.uniform() for _ in range(200 * len(values))])
        vectorized = one_bit(np.tile(values, 200), 1.0, uniforms)
        assert np.array_equal(np.sign(vectorized), np.sign(expected)), seed
        # A NaN is a fair coin (E = 0), not a fixed sign.
        nan_signs = np.sign(reports)[0::len(values)]
        assert 0.3 < float(np.mean(nan_signs > 0)) < 0.7
