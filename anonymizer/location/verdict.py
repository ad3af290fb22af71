"""The verdict on a released text, computed once for the API, the page and the downloadable report (no Django
here): each check (the classifier, the gazetteer's places, the human-inferability model) with its number and
pass or fail, how strong the model's held-out evaluation says it is, and the warnings about the words to keep.

A check passes only when its scorer, on the released text re-tokenized, is under its threshold; the places check
also fails while the released text still names a place the gazetteer puts inside the grid (a reader with a map
reads it whatever the scorer's number). A name no list holds ("ハチ公前", "Kinnick": review.py) cannot be called
safe either: the places check then reads "review" (◐) and so does the overall status. Nothing here says "safe":
the overall status is "pass" only when every check that exists passes and nothing is left to review, and the text
is "releasable" (Copy is offered) only when every threshold is met (a "review" text is: the reader checks the
listed names, shown beside Copy, and copies).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from anonymizer.location.place_scorer import PLACE_SCORER
from anonymizer.location.review import ReviewItem

CLASSIFIER = "location"
HUMAN = "human"
# A model whose held-out accuracy is under this many times the majority-cell baseline's (guessing the busiest
# cell) is called weak: passing its check says little. The same factor as the attacker calibration's bound
# (calibration.py: an attacker may place at most 1.25x as many posts as the baseline). The default models are
# 1.39x (tokyo-ja) and 1.56x (us-midwest-en).
WEAK_LIFT = 1.25
CHECK_TITLES = {CLASSIFIER: "Classifier", PLACE_SCORER: "Places", HUMAN: "People (human-inferability model)"}
STILL_INFERABLE = "still inferable — not safe to release"
# The overall statuses, worst first: a threshold not met, a gazetteer place inside the map left, names no list
# holds left for the reader to check, every check passed.
STATUSES = ("fail", "places", "review", "pass")
MARKS = {"pass": "✓", "fail": "✗", "unchecked": "–", "review": "◐"}
# What no check here can see, said next to every verdict: a pass is a pass of these checks, not of the post.
CANNOT_KNOW = ("Kakurega reads only the text. It cannot know what else gives the place away: the post's "
               "metadata (its geotag, its time, the account that posts it), its images, the person's other posts, "
               "and places no list holds (a shop, a landmark or a team a local reader knows).")


def percent(p: float) -> str:
    return f"{100 * p:.{2 if p < 0.01 else 1}f}%"


def _cell(label: str, place: str) -> str:
    return f"{label} ≈ {place}" if place else label


def model_strength(metadata: Mapping) -> dict:
    """What the model's stored held-out evaluation (metadata["scores"], written at training by
    evaluate.evaluate_predictions) says about its strength: accuracy, the majority-cell baseline, their ratio
    (lift) and whether it is under WEAK_LIFT. Without a stored evaluation the strength is unknown."""
    scores = metadata.get("scores") or {}
    lift, accuracy, baseline = scores.get("lift"), scores.get("accuracy"), scores.get("majority_baseline")
    if lift is None or accuracy is None or baseline is None:
        return {"known": False, "weak_below": WEAK_LIFT,
                "message": "No held-out evaluation is stored with this model, so its strength is unknown: passing "
                           "its classifier check may say little."}
    weak = lift < WEAK_LIFT
    measured = (f"On {scores.get('posts', 0):,} held-out posts the classifier is right {percent(accuracy)} of the "
                f"time, {lift:.2f}× guessing the busiest cell ({percent(baseline)})")
    message = (f"Weak model: {measured}, under {WEAK_LIFT:.2f}×. Passing its classifier check says little; a "
               "stronger attacker may still place the text." if weak else f"{measured}.")
    return {"known": True, "weak": weak, "lift": lift, "accuracy": accuracy, "majority_baseline": baseline,
            "test_posts": scores.get("posts"), "weak_below": WEAK_LIFT, "message": message}


def _quoted(names: Sequence[str]) -> str:
    return ", ".join(f"“{name}”" for name in dict.fromkeys(names))


def release_checks(result: Mapping, places_left: Sequence[str], has_human: bool,
                   review: Sequence[ReviewItem] = ()) -> list[dict]:
    """Each check on the released text (an inspect result: decision scores and thresholds, the "after"
    distribution), in a fixed order: classifier, places, people. Each has `name`, `title`, `status` (pass, fail,
    unchecked: no such model; review: the places check would pass, or has no scorer, but ``review`` names are
    left), `score`, `threshold` and `passed` (the scorer's own test; absent when unchecked) and `text`
    ("Classifier: 35.8% on a8,6 ≈ Des Moines, IA, under its threshold 37.0% ✓", "Places: review: “ハチ公前” ◐")."""
    decision, after = result["decision"], result["after"]
    scores, thresholds = decision["scores_after"], decision["thresholds"]
    checks = []

    def relation(name: str) -> str:
        under = scores[name] < thresholds[name]
        return f"{'under' if under else 'at or over'} its threshold {percent(thresholds[name])}"

    if CLASSIFIER in scores:
        passed = scores[CLASSIFIER] < thresholds[CLASSIFIER]
        detail = (f"{percent(scores[CLASSIFIER])} on {_cell(after['top_label'], after['top_place'])}, "
                  f"{relation(CLASSIFIER)}")
        checks.append({"name": CLASSIFIER, "score": scores[CLASSIFIER], "threshold": thresholds[CLASSIFIER],
                       "passed": passed, "detail": detail})
    if PLACE_SCORER in scores:
        under = scores[PLACE_SCORER] < thresholds[PLACE_SCORER]
        passed = under and not places_left
        if passed:
            detail = "none left"
        else:
            left = ", ".join(f"“{name}”" for name in places_left)
            detail = (f"{left} left (a place inside the map), " if places_left else "") + \
                f"{percent(scores[PLACE_SCORER])}, {relation(PLACE_SCORER)}"
        checks.append({"name": PLACE_SCORER, "score": scores[PLACE_SCORER], "threshold": thresholds[PLACE_SCORER],
                       "passed": passed, "detail": detail, "left": list(places_left)})
    else:
        # A model trained before units has no place scorer: say so rather than leave the check out.
        checks.append({"name": PLACE_SCORER, "score": None, "threshold": None, "passed": None if not places_left
                       else False, "left": list(places_left),
                       "detail": "this model has no place scorer" + (
                           ": " + ", ".join(f"“{n}”" for n in places_left) + " left" if places_left else
                           "; no gazetteer place inside the map is left")})
    if has_human and HUMAN in scores:
        passed = scores[HUMAN] < thresholds[HUMAN]
        checks.append({"name": HUMAN, "score": scores[HUMAN], "threshold": thresholds[HUMAN], "passed": passed,
                       "detail": f"{percent(scores[HUMAN])}, {relation(HUMAN)}"})
    else:
        checks.append({"name": HUMAN, "score": None, "threshold": None, "passed": None,
                       "detail": "none is trained for this model, so not checked"})
    out = []
    for check in checks:
        check["title"] = CHECK_TITLES[check["name"]]
        check["status"] = {True: "pass", False: "fail", None: "unchecked"}[check["passed"]]
        if check["name"] == PLACE_SCORER and review and check["status"] != "fail":
            # Nothing the gazetteer knows is left, but names it cannot resolve are: not a pass (◐, not ✓).
            check["status"] = "review"
            check["review"] = list(dict.fromkeys(item.text for item in review))
            check["detail"] = f"review: {_quoted(check['review'])}" + (
                "" if check["passed"] else f" ({check['detail']})")
        check["text"] = f"{check['title']}: {check['detail']} {MARKS[check['status']]}"
        # Absent, not null, where there is nothing to say (no such scorer): the schema stays plain JSON Schema.
        out.append({k: v for k, v in check.items() if v is not None})
    return out


SCORER_NAMES = {CLASSIFIER: "the classifier", PLACE_SCORER: "the place scorer (gazetteer)",
                HUMAN: "the human-inferability model"}


def before_sentence(views: Sequence[Mapping], *, name_found: bool = True) -> str:
    """Where the post as written points, by each scorer (inspect.scorer_views), naming the scorer(s) that make it
    location-inferable and with what: "Before: the place scorer (gazetteer) found “綱島駅” in the text: 43.3% on
    a18,4 ≈ near 大田区, at or over its threshold 24.1% — the area is inferable. Under its threshold: the
    classifier 7.8% on a13,6 ≈ 目黒区 (threshold 24.1%)." A number is never set beside another scorer's
    threshold. Without ``name_found`` the place names are counted, not quoted (a shared file never holds the
    deleted words)."""
    def said(view: Mapping) -> str:
        found = ""
        if view["name"] == PLACE_SCORER:
            names = view.get("found") or []
            if not names:
                found = " found no place name:"
            elif name_found:
                found = f" found {', '.join(f'“{n}”' for n in names)} in the text:"
            else:
                found = f" found {len(names)} place name{'s' if len(names) > 1 else ''} in the text:"
        where = f" on {_cell(view['top_label'], view.get('top_place', ''))}" if "top_label" in view else ""
        return f"{SCORER_NAMES.get(view['name'], view['name'])}{found} {percent(view['score'])}{where}"

    over = sorted((v for v in views if v["over"]), key=lambda v: v["score"] / v["threshold"], reverse=True)
    under = [v for v in views if not v["over"]]
    listed = "; ".join(f"{said(v)} (threshold {percent(v['threshold'])})" for v in under)
    if not over:
        return f"Before: already under every threshold: {listed}."
    text = ("Before: " + "; ".join(f"{said(v)}, at or over its threshold {percent(v['threshold'])}" for v in over)
            + " — the area is inferable.")
    if under:
        text += f" Under {'its' if len(under) == 1 else 'their'} threshold{'' if len(under) == 1 else 's'}: {listed}."
    return text


def overall(checks: Sequence[Mapping], under_threshold: bool, strength: Mapping,
            language_problem: str | None = None) -> dict:
    """The verdict's status and one sentence: "fail" (a threshold is not met: the text is still inferable, no
    Copy), "places" (every threshold met but a place inside the map is still named), "review" (every threshold
    met, no gazetteer place left, but names no list holds are: the reader checks them), "pass" (every check that
    exists passed and nothing is left to review). `releasable` is whether the page offers the text to copy: every
    threshold met (a "review" text too: Copy stays, with the names to check beside it)."""
    failed = [c for c in checks if c["status"] == "fail"]
    if not under_threshold:
        status = "fail"
        summary = (f"The released text is {STILL_INFERABLE}: "
                   + "; ".join(c["text"] for c in failed) + ".")
    elif failed:
        status = "places"
        summary = ("Under every threshold, but the text still names a place inside the map ("
                   + ", ".join(f"“{n}”" for c in failed for n in c.get("left", [])) + "): a reader sees roughly "
                   "where. It is not fully de-identified.")
    elif any(c["status"] == "review" for c in checks):
        status = "review"
        names = [n for c in checks for n in c.get("review", [])]
        summary = ("Under every threshold and no place the gazetteer knows is left, but the text still names "
                   f"what no list holds: {_quoted(names)}. Check that none of them tells a reader where the post "
                   "was written (a landmark, a shop, a venue, a local team) before you share it; delete it if it "
                   "does.")
    else:
        status = "pass"
        unchecked = [c["title"] for c in checks if c["status"] == "unchecked"]
        summary = "Every check passed on the released text, re-tokenized and re-scored" + (
            f" ({', '.join(unchecked)}: not checked)" if unchecked else "") + "."
    if strength.get("weak") or not strength["known"]:
        summary += " " + strength["message"]
    if language_problem:  # never a silent pass on a post the model cannot read
        summary += " " + language_problem
    return {"status": status, "releasable": under_threshold, "summary": summary}
