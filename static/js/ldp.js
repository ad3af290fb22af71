// Location-privacy preferences, the person's side (issue 8): everything that touches their ratings runs here,
// in the browser. It mirrors anonymizer/preferences/ldp.py (Mulberry32, perturb_report, client_report) and
// anonymizer/preferences/serving.py (fit_profile, scores, confidence, gradient, contribution_reports); the
// tests run both on fixed streams and compare them.
//
// A model (GET /api/v1/preferences/model) gives every item's factors v_j and bias c_j. The person's profile
// (u, b) is the ridge fit to their rated cells; their score on item j is u . v_j + b + c_j. To contribute,
// they report the gradient of the squared error in the item side, one sampled coordinate per round through
// Duchi et al.'s one-bit mechanism with epsilon / rounds each: the reports are all that leaves the page.
(function (root) {
  "use strict";
  // Django's JavaScript catalog when the page has it (a bare page, as in the tests, shows the English).
  const gettext = root.gettext || ((text) => text);

  // Tommy Ettinger's mulberry32: 32-bit integer arithmetic only, the same stream as the Python class.
  function Mulberry32(seed) {
    this.state = seed >>> 0;
  }
  Mulberry32.prototype.nextUint32 = function () {
    this.state = (this.state + 0x6D2B79F5) >>> 0;
    const a = this.state;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return (t ^ (t >>> 14)) >>> 0;
  };
  Mulberry32.prototype.uniform = function () {
    return this.nextUint32() / 4294967296;
  };
  // A uniform() function drawing from a new generator: the shape perturbReport and clientReport take.
  function uniformStream(seed) {
    const generator = new Mulberry32(seed);
    return () => generator.uniform();
  }
  // A fresh seed from the browser's cryptographic generator, for tests and the fixed-stream comparisons only:
  // a 32-bit seed can be brute-forced from a few reports (issue 17), so the page never seeds a stream with it.
  function newSeed() {
    return root.crypto.getRandomValues(new Uint32Array(1))[0];
  }
  // The uniform() the page draws a person's reports from: every draw is 53 fresh bits from the browser's
  // cryptographic generator, so no report tells anything about another (no shared, recoverable state).
  function secureUniform() {
    const words = root.crypto.getRandomValues(new Uint32Array(2));
    return ((words[0] >>> 5) * 67108864 + (words[1] >>> 6)) / 9007199254740992;  // (a 2^26 + b) / 2^53
  }
  // The source of the page's report randomness (a test may replace it with a fixed stream to compare).
  function reportUniform() {
    return secureUniform;
  }

  // B = (e^eps + 1) / (e^eps - 1), the magnitude of every report.
  function oneBitBound(epsilon) {
    if (!(epsilon > 0)) throw new RangeError(gettext("epsilon must be positive"));
    return 1 / Math.tanh(epsilon / 2);
  }
  // A value clipped to [-1, 1], NaN read as 0 (the rule of ldp.py's clip_unit and one_bit): a NaN must not
  // decide the report's sign, which would break the e^eps bound against any real value.
  function clipUnit(value) {
    const v = Number(value);
    return Number.isNaN(v) ? 0 : Math.min(1, Math.max(-1, v));
  }
  // +B with probability 1/2 + x (e^eps - 1) / (2 (e^eps + 1)), x = value clipped to [-1, 1], else -B. One draw.
  function perturbReport(value, epsilon, uniform) {
    const x = clipUnit(value);
    const bound = oneBitBound(epsilon);
    return uniform() < 0.5 + x / (2 * bound) ? bound : -bound;
  }
  // One round: the coordinate index from the first draw (independent of the data), then its one-bit report.
  function clientReport(gradient, epsilon, uniform) {
    const n = gradient.length;
    const index = Math.min(Math.floor(uniform() * n), n - 1);
    return [index, perturbReport(gradient[index], epsilon, uniform)];
  }
  // `rounds` reports of epsilon / rounds each (epsilon in all, by sequential composition).
  function contributionReports(gradient, epsilon, rounds, uniform) {
    if (!(rounds >= 1)) throw new RangeError(gettext("rounds must be at least 1"));
    const perReport = epsilon / rounds;
    const reports = [];
    for (let r = 0; r < rounds; r++) {
      const [index, value] = clientReport(gradient, perReport, uniform);
      reports.push({ round: r, index: index, value: value, epsilon: perReport });
    }
    return reports;
  }

  // ratings: a Map (or [item, value] pairs) of item id -> 1 (publish) or 0 (hide).
  function entries(ratings) {
    return Array.from(ratings instanceof Map ? ratings.entries() : ratings, ([j, r]) => [Number(j), Number(r)]);
  }

  // Solve A x = b (A small and positive definite) by Gaussian elimination with partial pivoting.
  function solve(A, b) {
    const n = b.length;
    const M = A.map((row, i) => row.slice().concat([b[i]]));
    for (let c = 0; c < n; c++) {
      let pivot = c;
      for (let r = c + 1; r < n; r++) if (Math.abs(M[r][c]) > Math.abs(M[pivot][c])) pivot = r;
      [M[c], M[pivot]] = [M[pivot], M[c]];
      for (let r = c + 1; r < n; r++) {
        const f = M[r][c] / M[c][c];
        for (let k = c; k <= n; k++) M[r][k] -= f * M[c][k];
      }
    }
    const x = new Array(n).fill(0);
    for (let r = n - 1; r >= 0; r--) {
      let s = M[r][n];
      for (let k = r + 1; k < n; k++) s -= M[r][k] * x[k];
      x[r] = s / M[r][r];
    }
    return x;
  }

  // (u_1 .. u_rank, b): ridge least squares on the rated items, (X'X / m + lambda I) w = X'(r - c) / m with
  // X_j = (v_j, 1); zeros without ratings. The fixed point of the trainer's local steps.
  function fitProfile(model, ratings) {
    const rated = entries(ratings);
    const width = model.rank + 1;
    if (!rated.length) return new Array(width).fill(0);
    const m = rated.length;
    const A = Array.from({ length: width }, () => new Array(width).fill(0));
    const b = new Array(width).fill(0);
    for (const [j, r] of rated) {
      const x = model.factors[j].concat([1]);
      const target = r - model.biases[j];
      for (let p = 0; p < width; p++) {
        b[p] += x[p] * target;
        for (let q = 0; q < width; q++) A[p][q] += x[p] * x[q];
      }
    }
    for (let p = 0; p < width; p++) {
      b[p] /= m;
      for (let q = 0; q < width; q++) A[p][q] = A[p][q] / m + (p === q ? model.regularization : 0);
    }
    return solve(A, b);
  }

  function score(model, profile, j) {
    let s = 0;
    for (let f = 0; f < model.rank; f++) s += model.factors[j][f] * profile[f];
    return s + profile[model.rank] + model.biases[j];
  }
  function scores(model, profile) {
    return model.biases.map((_, j) => score(model, profile, j));
  }
  // How far a score is from the threshold, as a share of half the 0..1 range (not a probability).
  function confidence(model, s) {
    return Math.min(1, Math.abs(s - model.threshold) / 0.5);
  }

  // The clipped gradient of the squared error in the item side, flattened items x (rank factors + item bias):
  // -(r_j - s_j) (u, 1) / clip on a rated item, 0 elsewhere, each coordinate clipped to [-1, 1].
  function gradient(model, profile, ratings) {
    const width = model.rank + 1;
    const out = new Array(model.biases.length * width).fill(0);
    for (const [j, r] of entries(ratings)) {
      const error = r - score(model, profile, j);
      for (let l = 0; l < width; l++) {
        const u = l < model.rank ? profile[l] : 1;
        out[j * width + l] = Math.min(1, Math.max(-1, (-error * u) / model.clip));
      }
    }
    return out;
  }

  root.KakuregaLDP = {
    Mulberry32, uniformStream, newSeed, secureUniform, reportUniform, oneBitBound, clipUnit, perturbReport,
    clientReport, contributionReports,
    fitProfile, scores, confidence, gradient,
  };
})(window);
