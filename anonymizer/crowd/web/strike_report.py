"""Reads for the staff dashboard of a campaign: the strike-words answers per post (``strike_report``) and every
map click with its distance to the post's true point (``map_answers``).

The yes/no report (``selectors.campaign_report``) reads neither: a strike answer has no yes/no, and a click on a
post without a true point has no error. Answers of flagged participants are left out here too.
"""

from __future__ import annotations

import statistics

from django.templatetags.static import static

from anonymizer.crowd.strikes import StrikeRecord, summarize_strikes
from anonymizer.crowd.web.selectors import SNIPPET_CHARS
from anonymizer.location.geography import map_description
from anonymizer.location.model import LocationModel
from anonymizer.location.release import remove_spans
from anonymizer.location.tokenize import Token
from anonymizer.models import Campaign, CampaignPost, Judgment
from anonymizer.platform import artifacts
from anonymizer.platform.charts import snippet
from anonymizer.platform.grid import Grid, haversine_km

#: The dashboard shows this many posts (as its yes/no table does); counts and alpha cover all of them.
SHOWN_POSTS = 200


def _word_rows(text: str, tokens: list[Token], counts: tuple[int, ...], answers: int,
               consensus: set[int]) -> tuple[list[dict], str]:
    """The post as its tokens with their counts, each with the text before it (spaces, what the tokenizer
    skipped), and the text after the last token: the template rebuilds the post exactly."""
    words, position = [], 0
    for index, token in enumerate(tokens):
        share = counts[index] / answers if answers else 0.0
        words.append({"index": index, "before": text[position:token.start], "text": token.text,
                      "count": counts[index], "share": share, "shade": round(share * 10),
                      "consensus": index in consensus, "deletable": token.deletable})
        position = token.end
    return words, text[position:]


def strike_report(campaign: Campaign, *, shown: int = SHOWN_POSTS) -> dict:
    """The strike-words answers of a de-identification campaign's regular posts, for the dashboard.

    Keys: ``posts`` (number of regular posts), ``answers`` and ``excluded`` (valid answers and answers of flagged
    participants, all posts), ``alpha`` (Krippendorff's alpha, nominal, over (post, token) x participant, None
    when undefined), ``units`` (tokens rated by at least two valid answers), ``shown`` (rows below) and ``rows``,
    one per post in the dashboard's order (post id), at most ``shown``: ``post``, ``external_id``, ``snippet``,
    ``answers``, ``excluded``, ``tokens`` (number), ``words`` (``index``, ``before``, ``text``, ``count``,
    ``share``, ``shade`` 0-10, ``consensus``, ``deletable``), ``after`` (text after the last token),
    ``consensus`` (token indices) and ``consensus_text`` (the post without them).
    """
    model = artifacts.load(campaign.location_model, LocationModel.load)
    posts = list(campaign.posts.filter(kind=CampaignPost.Kind.REGULAR).order_by("id").values_list("id", "external_id",
                                                                                                   "text"))
    answers = list(Judgment.objects.filter(post__campaign=campaign, post__kind=CampaignPost.Kind.REGULAR,
                                           deleted_tokens__isnull=False).order_by("id")
                   .values_list("participant_id", "post_id", "deleted_tokens", "participant__flagged_reason"))
    # Only the posts shown or answered are tokenized (a campaign holds up to 10,000 posts).
    needed = {post_id for post_id, _, _ in posts[:shown]} | {post_id for _, post_id, _, _ in answers}
    tokens = {post_id: model.tokenize(text) for post_id, _, text in posts if post_id in needed}
    summary = summarize_strikes(
        [StrikeRecord(str(participant), str(post_id), tuple(struck), len(tokens[post_id]), bool(flag))
         for participant, post_id, struck, flag in answers],
        {str(post_id): len(tokens[post_id]) for post_id, _, _ in posts if post_id in tokens},
        fixed={str(post_id): {i for i, t in enumerate(post_tokens) if not t.deletable}
               for post_id, post_tokens in tokens.items()})
    by_post = {item.post: item for item in summary.posts}
    rows = []
    for post_id, external_id, text in posts[:shown]:
        item = by_post[str(post_id)]
        words, after = _word_rows(text, tokens[post_id], item.counts, item.answers, set(item.consensus))
        rows.append({"post": post_id, "external_id": external_id, "snippet": snippet(text, SNIPPET_CHARS),
                     "answers": item.answers, "excluded": item.excluded, "tokens": item.tokens, "words": words,
                     "after": after, "consensus": list(item.consensus),
                     "consensus_text": remove_spans(text, [tokens[post_id][i] for i in item.consensus])})
    return {"posts": len(posts), "answers": sum(item.answers for item in summary.posts),
            "excluded": sum(item.excluded for item in summary.posts), "alpha": summary.alpha,
            "units": summary.units, "shown": len(rows), "rows": rows}


def geography_config(grid: dict) -> dict:
    """The map's land, borders and largest places under ``grid`` (no cell names: on the participant's map they
    would hint): for the participant's click map and the dashboard's map of the answers."""
    described = map_description(Grid.from_dict(grid))
    return {"layers": [{**{k: v for k, v in layer.items() if k != "path"}, "url": static(layer["path"])}
                       for layer in described["geography"]],
            "labels": described["place_labels"]}


def map_answers(campaign: Campaign) -> dict:
    """Every valid map click on the campaign's regular posts, for the dashboard's map.

    Keys: ``count`` (valid clicks), ``excluded`` (clicks of flagged participants, not shown), ``with_true_point``
    (clicks whose post has a true point), ``median_error_km`` (median click-to-true-point distance over those,
    None without any), ``clicks`` (``post``, ``external_id``, ``snippet``, ``lat``, ``lon``, ``true`` = [lat, lon]
    or None, ``error_km`` or None; in answer order), ``grid`` (the location model's grid bounds, None without a
    model) and ``geography`` (``layers`` and ``labels`` for ``KakuregaGeography.draw``, None without a grid).
    """
    rows = list(Judgment.objects.filter(post__campaign=campaign, post__kind=CampaignPost.Kind.REGULAR,
                                        clicked_latitude__isnull=False, clicked_longitude__isnull=False)
                .order_by("id")
                .values_list("post_id", "post__external_id", "post__text", "clicked_latitude", "clicked_longitude",
                             "post__latitude", "post__longitude", "participant__flagged_reason"))
    clicks, excluded = [], 0
    for post_id, external_id, text, lat, lon, true_lat, true_lon, flag in rows:
        if flag:
            excluded += 1
            continue
        known = true_lat is not None and true_lon is not None
        clicks.append({"post": post_id, "external_id": external_id, "snippet": snippet(text, SNIPPET_CHARS), "lat": lat,
                       "lon": lon, "true": [true_lat, true_lon] if known else None,
                       "error_km": haversine_km(lat, lon, true_lat, true_lon) if known else None})
    errors = [click["error_km"] for click in clicks if click["error_km"] is not None]
    grid = campaign.location_model.metadata.get("grid") if campaign.location_model is not None else None
    return {"count": len(clicks), "excluded": excluded, "with_true_point": len(errors),
            "median_error_km": statistics.median(errors) if errors else None, "clicks": clicks,
            "grid": grid, "geography": geography_config(grid) if grid else None}
