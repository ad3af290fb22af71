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
from anonymizer.texts import active_language, gettext, gettext_noop, ngettext

CLASSIFIER = "location"
HUMAN = "human"
# A model whose held-out accuracy is under this many times the majority-cell baseline's (guessing the busiest
# cell) is called weak: passing its check says little. The same factor as the attacker calibration's bound
# (calibration.py: an attacker may place at most 1.25x as many posts as the baseline). The default models are
# 1.39x (tokyo-ja) and 1.56x (us-midwest-en).
WEAK_LIFT = 1.25
# Shown in the request's language: gettext(CHECK_TITLES[name]) (anonymizer.texts: English outside the web app).
CHECK_TITLES = {CLASSIFIER: gettext_noop("Classifier"), PLACE_SCORER: gettext_noop("Places"),
                HUMAN: gettext_noop("People (human-inferability model)")}
STILL_INFERABLE = gettext_noop("still inferable — not safe to release")
# The overall statuses, worst first: a threshold not met, a gazetteer place inside the map left, names no list
# holds left for the reader to check, every check passed.
STATUSES = ("fail", "places", "review", "pass")
MARKS = {"pass": "✓", "fail": "✗", "unchecked": "–", "review": "◐"}
# What no check here can see, said next to every verdict: a pass is a pass of these checks, not of the post.
CANNOT_KNOW = gettext_noop("Kakurega reads only the text. It cannot know what else gives the place away: the post's "
               "metadata (its geotag, its time, the account that posts it), its images, the person's other posts, "
               "and places no list holds (a shop, a landmark or a team a local reader knows).")


def percent(p: float) -> str:
    return f"{100 * p:.{2 if p < 0.01 else 1}f}%"


def _cell(label: str, place: str) -> str:
    return f"{label} ≈ {place}" if place else label


def check_title(name: str) -> str:
    """A check's (and its scorer's) title in the active language."""
    return gettext(CHECK_TITLES[name]) if name in CHECK_TITLES else name


def _quote(name: str) -> str:
    return gettext("“%(text)s”") % {"text": name}


def _listed(items) -> str:
    return gettext(", ").join(items)


def gap() -> str:
    """What goes between two sentences: a space, none in Japanese (its sentences end with "。")."""
    return "" if active_language() == "ja" else " "


def model_strength(metadata: Mapping) -> dict:
    """What the model's stored held-out evaluation (metadata["scores"], written at training by
    evaluate.evaluate_predictions) says about its strength: accuracy, the majority-cell baseline, their ratio
    (lift) and whether it is under WEAK_LIFT. Without a stored evaluation the strength is unknown."""
    scores = metadata.get("scores") or {}
    lift, accuracy, baseline = scores.get("lift"), scores.get("accuracy"), scores.get("majority_baseline")
    if lift is None or accuracy is None or baseline is None:
        return {"known": False, "weak_below": WEAK_LIFT,
                "message": gettext("No held-out evaluation is stored with this model, so its strength is unknown: "
                                   "passing its classifier check may say little.")}
    weak = lift < WEAK_LIFT
    values = {"posts": f"{scores.get('posts', 0):,}", "accuracy": percent(accuracy), "lift": f"{lift:.2f}",
              "baseline": percent(baseline), "weak": f"{WEAK_LIFT:.2f}"}
    message = (gettext("Weak model: On %(posts)s held-out posts the classifier is right %(accuracy)s of the time, "
                       "%(lift)s× guessing the busiest cell (%(baseline)s), under %(weak)s×. Passing its classifier "
                       "check says little; a stronger attacker may still place the text.") if weak else
               gettext("On %(posts)s held-out posts the classifier is right %(accuracy)s of the time, %(lift)s× "
                       "guessing the busiest cell (%(baseline)s).")) % values
    return {"known": True, "weak": weak, "lift": lift, "accuracy": accuracy, "majority_baseline": baseline,
            "test_posts": scores.get("posts"), "weak_below": WEAK_LIFT, "message": message}


def _quoted(names: Sequence[str]) -> str:
    return _listed(_quote(name) for name in dict.fromkeys(names))


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
        return (gettext("under its threshold %(threshold)s") if under else
                gettext("at or over its threshold %(threshold)s")) % {"threshold": percent(thresholds[name])}

    def scored(name: str) -> str:
        return gettext("%(score)s, %(relation)s") % {"score": percent(scores[name]), "relation": relation(name)}

    if CLASSIFIER in scores:
        passed = scores[CLASSIFIER] < thresholds[CLASSIFIER]
        detail = gettext("%(score)s on %(cell)s, %(relation)s") % {
            "score": percent(scores[CLASSIFIER]), "cell": _cell(after["top_label"], after["top_place"]),
            "relation": relation(CLASSIFIER)}
        checks.append({"name": CLASSIFIER, "score": scores[CLASSIFIER], "threshold": thresholds[CLASSIFIER],
                       "passed": passed, "detail": detail})
    if PLACE_SCORER in scores:
        under = scores[PLACE_SCORER] < thresholds[PLACE_SCORER]
        passed = under and not places_left
        if passed:
            detail = gettext("none left")
        elif places_left:
            detail = gettext("%(names)s left (a place inside the map), %(scored)s") % {
                "names": _listed(_quote(name) for name in places_left), "scored": scored(PLACE_SCORER)}
        else:
            detail = scored(PLACE_SCORER)
        checks.append({"name": PLACE_SCORER, "score": scores[PLACE_SCORER], "threshold": thresholds[PLACE_SCORER],
                       "passed": passed, "detail": detail, "left": list(places_left)})
    else:
        # A model trained before units has no place scorer: say so rather than leave the check out.
        checks.append({"name": PLACE_SCORER, "score": None, "threshold": None, "passed": None if not places_left
                       else False, "left": list(places_left),
                       "detail": gettext("this model has no place scorer: %(names)s left") % {
                           "names": _listed(_quote(n) for n in places_left)} if places_left else
                       gettext("this model has no place scorer; no gazetteer place inside the map is left")})
    if has_human and HUMAN in scores:
        passed = scores[HUMAN] < thresholds[HUMAN]
        checks.append({"name": HUMAN, "score": scores[HUMAN], "threshold": thresholds[HUMAN], "passed": passed,
                       "detail": scored(HUMAN)})
    else:
        checks.append({"name": HUMAN, "score": None, "threshold": None, "passed": None,
                       "detail": gettext("none is trained for this model, so not checked")})
    out = []
    for check in checks:
        check["title"] = check_title(check["name"])
        check["status"] = {True: "pass", False: "fail", None: "unchecked"}[check["passed"]]
        if check["name"] == PLACE_SCORER and review and check["status"] != "fail":
            # Nothing the gazetteer knows is left, but names it cannot resolve are: not a pass (◐, not ✓).
            check["status"] = "review"
            check["review"] = list(dict.fromkeys(item.text for item in review))
            names = _quoted(check["review"])
            check["detail"] = (gettext("review: %(names)s") % {"names": names} if check["passed"] else
                               gettext("review: %(names)s (%(detail)s)") % {"names": names,
                                                                             "detail": check["detail"]})
        check["text"] = gettext("%(title)s: %(detail)s %(mark)s") % {
            "title": check["title"], "detail": check["detail"], "mark": MARKS[check["status"]]}
        # Absent, not null, where there is nothing to say (no such scorer): the schema stays plain JSON Schema.
        out.append({k: v for k, v in check.items() if v is not None})
    return out


SCORER_NAMES = {CLASSIFIER: gettext_noop("the classifier"), PLACE_SCORER: gettext_noop("the place scorer (gazetteer)"),
                HUMAN: gettext_noop("the human-inferability model")}


def before_sentence(views: Sequence[Mapping], *, name_found: bool = True) -> str:
    """Where the post as written points, by each scorer (inspect.scorer_views), naming the scorer(s) that make it
    location-inferable and with what: "Before: the place scorer (gazetteer) found “綱島駅” in the text: 43.3% on
    a18,4 ≈ near 大田区, at or over its threshold 24.1% — the area is inferable. Under its threshold: the
    classifier 7.8% on a13,6 ≈ 目黒区 (threshold 24.1%)." A number is never set beside another scorer's
    threshold. Without ``name_found`` the place names are counted, not quoted (a shared file never holds the
    deleted words)."""
    def said(view: Mapping) -> str:
        scorer = gettext(SCORER_NAMES[view["name"]]) if view["name"] in SCORER_NAMES else view["name"]
        who = scorer
        if view["name"] == PLACE_SCORER:
            names = view.get("found") or []
            if not names:
                who = gettext("%(scorer)s found no place name:") % {"scorer": scorer}
            elif name_found:
                who = gettext("%(scorer)s found %(names)s in the text:") % {
                    "scorer": scorer, "names": _listed(_quote(n) for n in names)}
            else:
                who = ngettext("%(scorer)s found %(n)d place name in the text:",
                               "%(scorer)s found %(n)d place names in the text:", len(names)) % {
                    "scorer": scorer, "n": len(names)}
        what = (gettext("%(score)s on %(cell)s") % {"score": percent(view["score"]),
                                                     "cell": _cell(view["top_label"], view.get("top_place", ""))}
                if "top_label" in view else percent(view["score"]))
        return gettext("%(who)s %(what)s") % {"who": who, "what": what}

    over = sorted((v for v in views if v["over"]), key=lambda v: v["score"] / v["threshold"], reverse=True)
    under = [v for v in views if not v["over"]]
    listed = gettext("; ").join(gettext("%(said)s (threshold %(threshold)s)") % {
        "said": said(v), "threshold": percent(v["threshold"])} for v in under)
    if not over:
        return gettext("Before: already under every threshold: %(listed)s.") % {"listed": listed}
    text = gettext("Before: %(over)s — the area is inferable.") % {"over": gettext("; ").join(
        gettext("%(said)s, at or over its threshold %(threshold)s") % {"said": said(v),
                                                                        "threshold": percent(v["threshold"])}
        for v in over)}
    if under:
        text += gap() + ngettext("Under its threshold: %(listed)s.", "Under their thresholds: %(listed)s.",
                               len(under)) % {"listed": listed}
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
        summary = gettext("The released text is still inferable — not safe to release: %(checks)s.") % {
            "checks": gettext("; ").join(c["text"] for c in failed)}
    elif failed:
        status = "places"
        summary = gettext("Under every threshold, but the text still names a place inside the map (%(names)s): a "
                          "reader sees roughly where. It is not fully de-identified.") % {
            "names": _listed(_quote(n) for c in failed for n in c.get("left", []))}
    elif any(c["status"] == "review" for c in checks):
        status = "review"
        names = [n for c in checks for n in c.get("review", [])]
        summary = gettext("Under every threshold and no place the gazetteer knows is left, but the text still "
                          "names what no list holds: %(names)s. Check that none of them tells a reader where the "
                          "post was written (a landmark, a shop, a venue, a local team) before you share it; "
                          "delete it if it does.") % {"names": _quoted(names)}
    else:
        status = "pass"
        unchecked = [c["title"] for c in checks if c["status"] == "unchecked"]
        summary = (gettext("Every check passed on the released text, re-tokenized and re-scored (%(unchecked)s: "
                           "not checked).") % {"unchecked": _listed(unchecked)} if unchecked else
                   gettext("Every check passed on the released text, re-tokenized and re-scored."))
    if strength.get("weak") or not strength["known"]:
        summary += gap() + strength["message"]
    if language_problem:  # never a silent pass on a post the model cannot read
        summary += gap() + language_problem
    return {"status": status, "releasable": under_threshold, "summary": summary}
