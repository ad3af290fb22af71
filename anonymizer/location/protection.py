"""Does de-identification protect? Attackers written apart from the defender try to locate the posts before and
after the defender de-identified them (no Django here).

A de-identifier that only fools the model it was built from proves little. The corpus is cut into three
user-disjoint parts (when users are known): the defender's training posts, the attackers' training posts and
the test posts. The defender de-identifies the test posts; four attackers, trained on the attackers' part only,
try to place the original and the released texts:

- ``char_ngram``, ``complement_nb``, ``gazetteer``: other code than the defender's (``attackers``), reading the
  raw text;
- ``model``: the defender's own code (tokenizer, classifier) trained on the attackers' posts.

Every figure is also given as a ratio to the majority baseline, guessing from the attackers' training posts
alone: for accuracy and top-5 accuracy, attacker / baseline (above 1: better than guessing); for the median
error in km, attacker / baseline too (below 1: closer than guessing).
"""

from __future__ import annotations

import inspect
import time
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np
from sklearn.model_selection import GroupShuffleSplit, ShuffleSplit

from anonymizer.location.attackers import (
    GAZETTEER_FILE,
    CharNgramAttacker,
    ComplementNBAttacker,
    GazetteerAttacker,
)
from anonymizer.location.calibration import train_calibrated_model
from anonymizer.location.corpus import Post, load_corpus
from anonymizer.location.defaults import GAZETTEER, ModelSpec
from anonymizer.location.evaluate import evaluate_predictions
from anonymizer.location.model import LocationModel, train_location_model
from anonymizer.location.options import DEFAULT_OPTIONS, PLACE_POLICIES, REPLACEMENTS
from anonymizer.location.tokenize import TokenizerSettings
from anonymizer.platform.grid import Grid, haversine_km

Progress = Callable[[int, int, str], None]

ATTACKERS = {
    "char_ngram": "Character 2–4-grams + logistic regression",
    "complement_nb": "Words / character bigrams + Complement Naive Bayes",
    "gazetteer": "Gazetteer look-up (its own matcher)",
    "model": "The defender's code trained on the attackers' posts",
}
EXAMPLE_KINDS = {
    "changed": "Changed posts (before → after)",
    "place_survives": "Released posts in which a place inside the grid is still named",
    "unchanged_named_place": "Unchanged posts that named a place inside the grid",
    "still_located": "Posts the character n-gram attacker still places in the right cell after de-identification",
}


def three_way_split(posts: Sequence[Post], seed: int = 0, test_share: float = 0.2
                    ) -> tuple[np.ndarray, np.ndarray, np.ndarray, bool]:
    """Defender / attacker / test indices (40 / 40 / 20), user-disjoint when every post has a user."""
    indices = np.arange(len(posts))
    users = [p.user for p in posts]
    by_user = all(users) and len(set(users)) > 2
    if by_user:
        groups = np.asarray(users)
        rest, test = next(GroupShuffleSplit(1, test_size=test_share, random_state=seed).split(indices, groups=groups))
        defender, attacker = next(GroupShuffleSplit(1, test_size=0.5, random_state=seed + 1).split(
            rest, groups=groups[rest]))
    else:
        rest, test = next(ShuffleSplit(1, test_size=test_share, random_state=seed).split(indices))
        defender, attacker = next(ShuffleSplit(1, test_size=0.5, random_state=seed + 1).split(rest))
    return np.sort(rest[defender]), np.sort(rest[attacker]), np.sort(test), by_user


def replacement_options(replacement: str = DEFAULT_OPTIONS.replacement) -> dict:
    """The ``deidentify`` keyword for a replacement mode. A defender without the ``replacement`` keyword only
    deletes: "delete" then needs no keyword, anything else is refused."""
    if replacement not in REPLACEMENTS:
        raise ValueError(f"replacement must be one of {', '.join(REPLACEMENTS)}, not {replacement!r}")
    if "replacement" in inspect.signature(LocationModel.deidentify).parameters:
        return {"replacement": replacement}
    if replacement == "delete":
        return {}
    raise ValueError(f"this de-identifier only deletes; replacement {replacement!r} is not available yet")


def _cells_of(posts: Sequence[Post], grid: Grid) -> np.ndarray:
    return np.array([grid.cell_of(p.lat, p.lon) if p.cell is None else p.cell for p in posts], dtype=np.int64)


def _baseline(train_cells: np.ndarray, test_cells: np.ndarray, lats: np.ndarray, lons: np.ndarray,
              grid: Grid) -> dict:
    """Guessing from the attackers' training posts alone: the busiest cell (and the five busiest for top-5)."""
    counts = np.bincount(train_cells, minlength=grid.n_cells)
    order = np.argsort(-counts, kind="stable")
    majority = int(order[0])
    center = grid.cell_center(majority)
    return {"majority_cell": majority, "majority_label": grid.label(majority),
            "top5_cells": [int(c) for c in order[:5]],
            "accuracy": float(np.mean(test_cells == majority)),
            "top5_accuracy": float(np.isin(test_cells, order[:5]).mean()),
            "median_error_km": float(np.median(haversine_km(lats, lons, center[0], center[1])))}


def _ratio(value: float, baseline: float) -> float | None:
    return float(value / baseline) if baseline else None


def _scores(probabilities: np.ndarray, test_cells: np.ndarray, lats: np.ndarray, lons: np.ndarray, grid: Grid,
            baseline: dict) -> dict:
    scores = evaluate_predictions(probabilities, np.arange(grid.n_cells), test_cells, lats, lons, grid,
                                  baseline["majority_cell"])
    return {"posts": scores["posts"], "accuracy": scores["accuracy"], "top5_accuracy": scores["top5_accuracy"],
            "median_error_km": scores["median_error_km"], "mean_error_km": scores["mean_error_km"],
            "mean_top_probability": scores["mean_top_probability"],
            "expected_calibration_error": scores["reliability"]["expected_calibration_error"],
            "accuracy_ratio": _ratio(scores["accuracy"], baseline["accuracy"]),
            "top5_ratio": _ratio(scores["top5_accuracy"], baseline["top5_accuracy"]),
            "median_error_ratio": _ratio(scores["median_error_km"], baseline["median_error_km"])}


def _model_probabilities(model: LocationModel, texts: Sequence[str]) -> np.ndarray:
    return model.cell_probabilities([[t.norm for t in model.tokenize(text)] for text in texts])


def evaluate_protection(posts: Sequence[Post], *, grid: Grid, tokenizer_settings: TokenizerSettings,
                        seed: int = 0, max_test_posts: int = 1000, progress: Progress | None = None,
                        gazetteer_path: Path | str | None = None, examples: int = 20,
                        **defender_options) -> dict:
    """Train the defender and the attackers on disjoint parts, de-identify the test posts with the defender
    (automatic mode, ``defender_options`` passed to ``LocationModel.deidentify``), and score every attacker on
    the original and the released texts. Returns a JSON-able dict (see ``protection_table``).

    ``max_test_posts``: how many test posts to de-identify, a sample (seeded) of the test part when it is
    larger. ``gazetteer_path``: the gazetteer file the gazetteer attacker reads (default: the one in data/);
    without it the gazetteer attacker and the place-name figures are left out, saying so.
    """
    report = progress or (lambda done, total, message: None)
    started = time.perf_counter()
    defender_idx, attacker_idx, test_idx, by_user = three_way_split(posts, seed)
    test_part = len(test_idx)
    attacker_posts = [posts[i] for i in attacker_idx]
    if len(test_idx) > max_test_posts:  # a seeded sample: a corpus's first posts are often one day's, one user's
        test_idx = np.sort(np.random.default_rng(seed).choice(test_idx, size=max_test_posts, replace=False))
    test = [posts[i] for i in test_idx]
    if not test or not attacker_posts or not len(defender_idx):
        raise ValueError("too few posts to split into defender, attacker and test parts")
    seconds: dict[str, float] = {}

    def timed(name: str, build: Callable):
        begin = time.perf_counter()
        value = build()
        seconds[name] = round(time.perf_counter() - begin, 2)
        return value

    report(0, 100, "training the defender")
    # The defender is made as a default model is: trained on 60% of its posts, its threshold calibrated on the
    # other 40% against its own character n-gram attacker; the test posts are never seen.
    defender = timed("defender", lambda: train_calibrated_model(
        [posts[i] for i in defender_idx], name="defender", grid=grid, tokenizer_settings=tokenizer_settings,
        seed=seed))
    attacker_texts = [p.text for p in attacker_posts]
    attacker_cells = _cells_of(attacker_posts, grid)
    report(20, 100, "training the attackers: the defender's code on the attackers' posts")
    models: dict[str, object] = {}
    models["model"] = timed("model", lambda: train_location_model(
        attacker_posts, name="attacker", grid=grid, tokenizer_settings=tokenizer_settings, test_size=0))
    report(35, 100, "training the attackers: character n-grams")
    models["char_ngram"] = timed("char_ngram", lambda: CharNgramAttacker(grid.n_cells).fit(
        attacker_texts, attacker_cells))
    report(55, 100, "training the attackers: Complement Naive Bayes")
    models["complement_nb"] = timed("complement_nb", lambda: ComplementNBAttacker(grid.n_cells).fit(
        attacker_texts, attacker_cells))
    path = Path(gazetteer_path) if gazetteer_path is not None else GAZETTEER_FILE
    gazetteer: GazetteerAttacker | None = None
    gazetteer_note = ""
    if path.exists():
        report(58, 100, "reading the gazetteer")
        gazetteer = timed("gazetteer", lambda: GazetteerAttacker(grid.n_cells, grid=grid, path=path).fit(
            attacker_texts, attacker_cells))
        models["gazetteer"] = gazetteer
    else:
        gazetteer_note = f"The gazetteer file {path} is missing: no gazetteer attacker, no place-name figures."

    report(60, 100, f"de-identifying {len(test):,} test posts")
    released: list[str] = []
    deleted_tokens: list[list[str]] = []
    tokens_total = tokens_deleted = changed = replaced = 0
    not_under: list[int] = []
    begin = time.perf_counter()
    for k, post in enumerate(test):
        result = defender.deidentify(post.text, **defender_options)
        released.append(result.text_after)
        gone = list(result.decision.deleted)
        deleted_tokens.append([result.tokens[i].text for i in gone])
        tokens_total += len(result.tokens)
        tokens_deleted += len(gone)
        changed += bool(gone)
        replaced += bool(getattr(result, "replacements", None))  # a mask or a coarser place written instead
        if not result.decision.under_threshold:
            not_under.append(k)
        if k % 25 == 0:
            report(60 + int(25 * k / len(test)), 100, f"de-identifying: {k:,} of {len(test):,} posts")
    deidentify_seconds = time.perf_counter() - begin
    seconds["deidentify"] = round(deidentify_seconds, 2)

    report(85, 100, "attacking the original and the released posts")
    originals = [p.text for p in test]
    test_cells = _cells_of(test, grid)
    lats, lons = np.array([p.lat for p in test]), np.array([p.lon for p in test])
    baseline = _baseline(attacker_cells, test_cells, lats, lons, grid)
    attacks: dict[str, dict] = {}
    predicted_after: dict[str, np.ndarray] = {}
    predicted_before: dict[str, np.ndarray] = {}
    for name in ATTACKERS:
        if name not in models:
            continue
        attacker = models[name]
        if name == "model":
            before, after = (_model_probabilities(attacker, texts) for texts in (originals, released))
        else:
            before, after = attacker.predict_proba(originals), attacker.predict_proba(released)
        predicted_before[name], predicted_after[name] = before.argmax(axis=1), after.argmax(axis=1)
        attacks[name] = {"label": ATTACKERS[name],
                         "original": _scores(before, test_cells, lats, lons, grid, baseline),
                         "released": _scores(after, test_cells, lats, lons, grid, baseline)}
    defender_scores = {"original": _scores(_model_probabilities(defender, originals), test_cells, lats, lons, grid,
                                           baseline),
                       "released": _scores(_model_probabilities(defender, released), test_cells, lats, lons, grid,
                                           baseline)}

    mentions_before = [gazetteer.mentions_in_grid(t) for t in originals] if gazetteer else None
    mentions_after = [gazetteer.mentions_in_grid(t) for t in released] if gazetteer else None
    n = len(test)
    if gazetteer:
        named_before = sum(bool(m) for m in mentions_before)
        named_after = sum(bool(m) for m in mentions_after)
        place_mentions = {"available": True, "original": named_before / n, "released": named_after / n,
                          "original_posts": named_before, "released_posts": named_after,
                          "still_named_of_named": (sum(bool(a) and bool(b) for a, b in zip(
                              mentions_before, mentions_after, strict=True)) / named_before) if named_before else None,
                          "note": "Posts in which the gazetteer attacker finds a name of a place inside the grid."}
    else:
        place_mentions = {"available": False, "original": None, "released": None, "note": gazetteer_note}

    def cell_label(k: int) -> str:
        return grid.label(int(test_cells[k]))

    picked: dict[str, list[dict]] = {kind: [] for kind in EXAMPLE_KINDS}
    for k in range(n):
        was_changed = bool(deleted_tokens[k])
        if was_changed and len(picked["changed"]) < examples:
            picked["changed"].append({"before": originals[k], "after": released[k], "deleted": deleted_tokens[k],
                                      "cell": cell_label(k)})
        if mentions_after and mentions_after[k] and len(picked["place_survives"]) < examples:
            picked["place_survives"].append({"before": originals[k], "after": released[k],
                                             "mentions": mentions_after[k], "changed": was_changed})
        if (mentions_before and mentions_before[k] and not was_changed
                and len(picked["unchanged_named_place"]) < examples):
            picked["unchanged_named_place"].append({"text": originals[k], "mentions": mentions_before[k]})
    if "char_ngram" in predicted_after:
        majority = baseline["majority_cell"]
        right = [k for k in range(n) if predicted_after["char_ngram"][k] == test_cells[k]
                 and predicted_before["char_ngram"][k] == test_cells[k]]
        # Changed posts first (the de-identifier's misses), then posts placed in another cell than the busiest
        # one (a guess of the busiest cell is the baseline's luck, not inference).
        right.sort(key=lambda k: (not deleted_tokens[k], bool(test_cells[k] == majority)))
        picked["still_located"] = [{"before": originals[k], "after": released[k], "changed": bool(deleted_tokens[k]),
                                    "cell": cell_label(k), "busiest_cell": bool(test_cells[k] == majority)}
                                   for k in right[:examples]]
    report(100, 100, "done")
    return {
        "posts": {"defender": len(defender_idx), "attacker": len(attacker_idx), "test": n,
                  "test_part": int(test_part), "user_disjoint": bool(by_user)},
        "threshold": {"value": defender.threshold.value, "kind": defender.threshold.kind},
        "options": {key: value for key, value in defender_options.items() if isinstance(value, str | int | float)},
        "baseline": baseline,
        "deletions": {"posts_changed": changed / n, "morphemes_deleted": tokens_deleted / max(tokens_total, 1),
                      "morphemes": tokens_total, "morphemes_deleted_count": tokens_deleted,
                      "mean_deleted_per_changed_post": tokens_deleted / max(changed, 1),
                      "posts_not_under_threshold": len(not_under),
                      "posts_with_replacements": replaced,
                      "seconds_per_post": deidentify_seconds / n},
        "attackers": attacks,
        "defender": defender_scores,
        "place_mentions": place_mentions,
        "examples": picked,
        "seconds": {**seconds, "total": round(time.perf_counter() - started, 2)},
    }


def _cell(text: str) -> str:
    """A post as one Markdown table cell or list item."""
    return " ".join(text.replace("|", "\\|").split()) or "(empty)"


def _times(value: float | None, digits: int = 2) -> str:
    return "–" if value is None else f"{value:.{digits}f}×"


def _share(value: float | None) -> str:
    return "–" if value is None else f"{value:.1%}"


def evaluate_default_protection(spec: ModelSpec, data_dir: Path, *, replacement: str = DEFAULT_OPTIONS.replacement,
                                places: str = DEFAULT_OPTIONS.places, seed: int = 0, max_test_posts: int = 1000,
                                examples: int = 20, progress: Progress | None = None) -> dict:
    """``evaluate_protection`` on the corpus of a default model's spec in ``data_dir`` (its gazetteer too), the
    defender de-identifying with ``replacement`` and ``places``. Raises FileNotFoundError when the corpus is
    missing, ValueError for a replacement or place policy the de-identifier does not have."""
    defender_options = {**replacement_options(replacement), "places": places}
    if places not in PLACE_POLICIES:
        raise ValueError(f"places must be one of {', '.join(PLACE_POLICIES)}, not {places!r}")
    posts, _ = load_corpus(data_dir / spec.corpus, columns=spec.columns, grid=spec.grid,
                           where={k: set(v) for k, v in spec.where.items()} or None)
    return evaluate_protection(posts, grid=spec.grid, tokenizer_settings=spec.tokenizer_settings, seed=seed,
                               max_test_posts=max_test_posts, gazetteer_path=data_dir / GAZETTEER,
                               examples=examples, progress=progress, **defender_options)


def protection_table(result: dict) -> str:
    """The figures and the examples as a Markdown report."""
    posts, baseline, d = result["posts"], result["baseline"], result["deletions"]
    options = ", ".join(f"{k}={v}" for k, v in result.get("options", {}).items()) or "defaults"
    part = posts.get("test_part", posts["test"])
    sampled = f" (sampled from {part:,})" if part > posts["test"] else ""
    lines = [
        "## Protection against independent attackers",
        "",
        f"Posts: defender {posts['defender']:,}, attackers {posts['attacker']:,}, test {posts['test']:,}{sampled}; "
        f"{'user-disjoint' if posts['user_disjoint'] else 'not user-disjoint (the corpus names no users)'}. "
        f"Defender threshold {result['threshold']['value']:.3f} ({result['threshold']['kind']}); "
        f"de-identification options: {options}.",
        "",
        f"Majority baseline (the attackers' training posts alone): the busiest cell {baseline['majority_label']} "
        f"is right for {baseline['accuracy']:.3f} of the test posts, the five busiest cells for "
        f"{baseline['top5_accuracy']:.3f}; its median error is {baseline['median_error_km']:.1f} km.",
        "Ratios are attacker ÷ baseline: for accuracy and top-5, above 1 is better than guessing; for the median "
        "error, below 1 is closer than guessing.",
    ]
    for name, attack in result["attackers"].items():
        before, after = attack["original"], attack["released"]
        lines += ["", f"### {attack['label']} (`{name}`)", "",
                  "| | original | released | baseline | original ÷ baseline | released ÷ baseline |",
                  "|---|---|---|---|---|---|",
                  f"| accuracy | {before['accuracy']:.3f} | {after['accuracy']:.3f} | {baseline['accuracy']:.3f} | "
                  f"{_times(before['accuracy_ratio'])} | {_times(after['accuracy_ratio'])} |",
                  f"| top-5 accuracy | {before['top5_accuracy']:.3f} | {after['top5_accuracy']:.3f} | "
                  f"{baseline['top5_accuracy']:.3f} | {_times(before['top5_ratio'])} | {_times(after['top5_ratio'])} |",
                  f"| median error km | {before['median_error_km']:.1f} | {after['median_error_km']:.1f} | "
                  f"{baseline['median_error_km']:.1f} | {_times(before['median_error_ratio'])} | "
                  f"{_times(after['median_error_ratio'])} |"]
    own = result["defender"]
    lines += ["", f"The defender's own model (not an independent attacker): accuracy {own['original']['accuracy']:.3f}"
              f" → {own['released']['accuracy']:.3f}, mean top-cell probability "
              f"{own['original']['mean_top_probability']:.3f} → {own['released']['mean_top_probability']:.3f}."]
    places = result["place_mentions"]
    lines += ["", "### Place names"]
    if places["available"]:
        lines += ["", f"Released posts still naming a place inside the grid: **{_share(places['released'])}** "
                      f"({places['released_posts']} of {posts['test']}); originals: {_share(places['original'])} "
                      f"({places['original_posts']}). Of the originals that named one, "
                      f"{_share(places['still_named_of_named'])} still do after de-identification."]
    else:
        lines += ["", places["note"]]
    lines += ["", "### Deletions", "",
              f"Posts changed: {_share(d['posts_changed'])}; morphemes deleted: {_share(d['morphemes_deleted'])} "
              f"({d['mean_deleted_per_changed_post']:.2f} per changed post); released posts not under the threshold: "
              f"{d['posts_not_under_threshold']}; {1000 * d['seconds_per_post']:.1f} ms per post."
              + (f" Posts in which a mask or a coarser place was written instead of a deleted place: "
                 f"{d['posts_with_replacements']}." if d.get("posts_with_replacements") else "")]
    for kind, title in EXAMPLE_KINDS.items():
        rows = result["examples"].get(kind, [])
        lines += ["", f"### {title} ({len(rows)})", ""]
        if not rows:
            lines.append("None.")
        for row in rows:
            if kind == "changed":
                lines.append(f"- {_cell(row['before'])} → {_cell(row['after'])} (deleted: "
                             f"{', '.join(_cell(t) for t in row['deleted'])})")
            elif kind == "place_survives":
                lines.append(f"- {_cell(row['after'])} (names: {', '.join(row['mentions'])}"
                             f"{'' if row['changed'] else '; unchanged'})")
            elif kind == "unchanged_named_place":
                lines.append(f"- {_cell(row['text'])} (names: {', '.join(row['mentions'])})")
            else:
                after = _cell(row["after"]) if row["changed"] else "unchanged"
                busiest = ", the busiest cell" if row.get("busiest_cell") else ""
                lines.append(f"- {_cell(row['before'])} → {after} (cell {row['cell']}{busiest})")
    return "\n".join(lines)
