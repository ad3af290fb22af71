"""Serializers of the inspect API: the request (a post or a batch, the de-identification and time options) and,
for the OpenAPI schema, the response's shape."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import fields

from django.conf import settings
from django.core.exceptions import ValidationError as DjangoValidationError
from django.utils.translation import gettext, gettext_lazy
from rest_framework import serializers

from anonymizer.location.options import DEFAULT_OPTIONS, PLACE_POLICIES, REPLACEMENTS, InspectOptions
from anonymizer.location.options import OPTION_HELP as LOCATION_HELP
from anonymizer.location.tokens import TOKEN_KINDS
from anonymizer.location.verdict import STATUSES
from anonymizer.platform.api_input import AtMost, CharactersAtMost, ItemsAtMost, StrictUUIDField
from anonymizer.temporal.removal import (
    DEFAULT_KEEP_TIME,
    DEFAULT_TOP,
    DEFAULTS,
    KINDS,
    MAX_TOP,
    OPTION_HELP,
    TIME_MODES,
)


class InspectOptionsSerializer(serializers.Serializer):
    # The time options mean what they mean for the dataset job (anonymizer.temporal.removal says it once).
    time_mode = serializers.ChoiceField(choices=list(TIME_MODES), default=DEFAULTS.time_mode,
                                        help_text=OPTION_HELP["time_mode"])
    keep_time = serializers.ListField(child=serializers.ChoiceField(choices=list(KINDS)), required=False,
                                      max_length=50, default=DEFAULT_KEEP_TIME.copy, help_text=OPTION_HELP["keep_time"])
    remove_how_long = serializers.BooleanField(default=DEFAULTS.remove_how_long,
                                               help_text=OPTION_HELP["remove_how_long"])
    time_patterns = StrictUUIDField(required=False, allow_null=True, default=None,
                                          help_text=OPTION_HELP["time_patterns"])
    time_patterns_top = serializers.IntegerField(min_value=1, max_value=MAX_TOP, default=DEFAULT_TOP,
                                                 help_text=OPTION_HELP["time_patterns_top"])
    remove_time = serializers.BooleanField(
        default=DEFAULT_OPTIONS.remove_time,
        help_text=LOCATION_HELP["remove_time"])
    model = serializers.CharField(required=False, allow_blank=True, default=DEFAULT_OPTIONS.model, max_length=200,
                                  help_text=LOCATION_HELP["model"])
    mode = serializers.ChoiceField(choices=["auto", "fixed"], default="auto",
                                   help_text=LOCATION_HELP["mode"])
    m = serializers.IntegerField(required=False, min_value=1,
                                 validators=[AtMost(lambda: settings.INSPECT_MAX_M, "m")],
                                 help_text=LOCATION_HELP["m"])
    keep = serializers.ListField(child=serializers.CharField(max_length=100), required=False, default=list,
                                 max_length=50,
                                 help_text=LOCATION_HELP["keep"])
    replacement = serializers.ChoiceField(
        choices=list(REPLACEMENTS), default=DEFAULT_OPTIONS.replacement,
        help_text=LOCATION_HELP["replacement"])
    places = serializers.ChoiceField(
        choices=list(PLACE_POLICIES), default=DEFAULT_OPTIONS.places,
        help_text=LOCATION_HELP["places"])

    def validate(self, data: dict) -> dict:
        if data["mode"] == "fixed":
            if "m" not in data:
                raise serializers.ValidationError({"m": [gettext("m is required when mode is fixed.")]})
        else:
            data.pop("m", None)
        return data

    def inspect_options(self) -> InspectOptions:
        """The validated options, typed (once per request)."""
        return inspect_options(self.validated_data)


#: The time-removal options of an inspect request (anonymizer.temporal.removal reads them by these names).
TIME_OPTIONS = ("time_mode", "keep_time", "remove_how_long", "time_patterns", "time_patterns_top")


def inspect_options(data: Mapping) -> InspectOptions:
    """The InspectOptions of validated options (a request's, or the params a job stored): each option by its API
    name (``keep`` is keep_words), the time-removal ones gathered in ``time``; an option not given keeps its
    default."""
    names = {f.name for f in fields(InspectOptions)} - {"keep_words", "time"}
    return InspectOptions(**{name: data[name] for name in names if name in data},
                          keep_words=tuple(data.get("keep", DEFAULT_OPTIONS.keep_words)),
                          time={name: data[name] for name in TIME_OPTIONS if name in data})


def _max_chars() -> int:
    return settings.INSPECT_MAX_CHARS


def _max_batch() -> int:
    return settings.INSPECT_MAX_BATCH


class InspectRequestSerializer(InspectOptionsSerializer):
    text = serializers.CharField(validators=[CharactersAtMost(_max_chars)],
                                 help_text="The post to inspect (at most INSPECT_MAX_CHARS characters).")


class InspectReportRequestSerializer(InspectRequestSerializer):
    format = serializers.ChoiceField(choices=["html", "svg"], default="html",
                                     help_text="html: a standalone page with the map (Folium, Leaflet inlined, works "
                                               "offline); svg: the same figure as a drawing.")
    include_before = serializers.BooleanField(
        default=False, help_text="false (default): the file shows only the released text and where it points (the "
                                 "after map), nothing of the original post. true: the before map and numbers too; "
                                 "the file's first line then says that it reveals where the post points.")


_BATCH_LIMIT = ItemsAtMost(_max_batch, "posts")


class InspectBatchRequestSerializer(InspectOptionsSerializer):
    texts = serializers.ListField(child=serializers.CharField(validators=[CharactersAtMost(_max_chars, "A post")]),
                                  min_length=1, validators=[_BATCH_LIMIT],
                                  help_text="The posts to inspect (at most INSPECT_MAX_BATCH).")

    def to_internal_value(self, data):
        # The batch limit before each post is validated, so a request of a million posts costs nothing.
        texts = data.get("texts") if hasattr(data, "get") else None
        if isinstance(texts, list):
            try:
                _BATCH_LIMIT(texts)
            except DjangoValidationError as exc:
                raise serializers.ValidationError({"texts": exc.messages}) from None
        return super().to_internal_value(data)


# Response shapes, for the OpenAPI schema (the views return plain dicts of this shape).
class _ThresholdSerializer(serializers.Serializer):
    value = serializers.FloatField()
    kind = serializers.ChoiceField(choices=["attacker", "calibrated", "relative", "paper"],
                                   help_text="attacker: calibrated against independent attackers; calibrated: on "
                                             "hand de-identified posts; relative or paper: the paper's rule.")
    explanation = serializers.CharField()


class _GridSerializer(serializers.Serializer):
    south = serializers.FloatField()
    west = serializers.FloatField()
    north = serializers.FloatField()
    east = serializers.FloatField()
    rows = serializers.IntegerField()
    cols = serializers.IntegerField()


class InspectModelSerializer(serializers.Serializer):
    id = serializers.UUIDField()
    name = serializers.CharField()
    title = serializers.CharField()
    version = serializers.CharField()
    language = serializers.CharField()
    grid = _GridSerializer()
    threshold = _ThresholdSerializer()


class _PlaceLabelSerializer(serializers.Serializer):
    name = serializers.CharField()
    lat = serializers.FloatField()
    lon = serializers.FloatField()
    population = serializers.IntegerField()
    level = serializers.IntegerField(help_text="Drawn from this many zoom levels above the zoom that fits the grid.")


class _GeographyLayerSerializer(serializers.Serializer):
    url = serializers.CharField(help_text="A vendored TopoJSON file under the site's static files.")
    object = serializers.CharField(help_text="The topology's object drawn (land, countries, states).")
    borders = serializers.BooleanField(help_text="Whether the lines between its features are drawn.")
    exclude = serializers.ListField(child=serializers.CharField(), help_text="Feature ids left out.")


class InspectedModelSerializer(InspectModelSerializer):
    cell_places = serializers.ListField(
        child=serializers.CharField(allow_blank=True),
        help_text="Per cell (id order) the nearest sizable gazetteer place: the most populous inside the cell "
                  "(\"Des Moines, IA\", \"新宿区\"), else \"near …\" the nearest one outside.")
    place_labels = _PlaceLabelSerializer(many=True, help_text="The places a map of the grid labels.")
    geography = _GeographyLayerSerializer(many=True, help_text="Land, coast and borders to draw under the grid.")


class _CellSerializer(serializers.Serializer):
    cell = serializers.IntegerField()
    label = serializers.CharField()
    place = serializers.CharField(allow_blank=True, help_text="The cell's nearest sizable place (cell_places).")
    probability = serializers.FloatField()


class _ScorerViewSerializer(serializers.Serializer):
    name = serializers.ChoiceField(choices=["location", "places", "human"])
    title = serializers.CharField()
    score = serializers.FloatField(help_text="Its score on this text (a top probability for location and places).")
    threshold = serializers.FloatField()
    over = serializers.BooleanField(help_text="At or over its threshold: this scorer alone makes the text "
                                              "location-inferable.")
    found = serializers.ListField(child=serializers.CharField(), required=False,
                                  help_text="places: the place units of the text it resolved.")
    top_cell = serializers.IntegerField(required=False)
    top_label = serializers.CharField(required=False)
    top_place = serializers.CharField(required=False, allow_blank=True)
    top_probability = serializers.FloatField(required=False)
    under_threshold = serializers.BooleanField(required=False)
    top = _CellSerializer(many=True, required=False)
    entropy_bits = serializers.FloatField(required=False)
    cells_for_90_percent = serializers.IntegerField(required=False)
    probabilities = serializers.ListField(child=serializers.FloatField(), required=False,
                                          help_text="places: one probability per grid cell (the classifier's "
                                                    "are the distribution's own probabilities).")


class _DistributionSerializer(serializers.Serializer):
    top_cell = serializers.IntegerField()
    top_label = serializers.CharField()
    top_place = serializers.CharField(allow_blank=True, help_text="The top cell's nearest sizable place.")
    top_probability = serializers.FloatField()
    under_threshold = serializers.BooleanField()
    top = _CellSerializer(many=True)
    entropy_bits = serializers.FloatField()
    cells_for_90_percent = serializers.IntegerField()
    probabilities = serializers.ListField(child=serializers.FloatField(),
                                          help_text="One probability per grid cell, cell id = row * cols + col.")
    scorers = _ScorerViewSerializer(many=True, help_text="Every scorer on this text (classifier, places, human): "
                                                         "which are over their thresholds, and where each points.")


class _TokenSerializer(serializers.Serializer):
    text = serializers.CharField()
    start = serializers.IntegerField()
    end = serializers.IntegerField()
    deletable = serializers.BooleanField()
    deleted = serializers.BooleanField()
    kept = serializers.BooleanField()
    kind = serializers.ChoiceField(choices=list(TOKEN_KINDS),
                                   help_text="word, place, venue (a named venue or landmark), hashtag, mention or url")
    replaced_by = serializers.CharField(required=False, help_text="What was written instead (mask, generalize).")


class _SpanSerializer(serializers.Serializer):
    start = serializers.IntegerField()
    end = serializers.IntegerField()
    text = serializers.CharField()


class _DecisionSerializer(serializers.Serializer):
    mode = serializers.ChoiceField(choices=["auto", "fixed"])
    m = serializers.IntegerField()
    under_threshold = serializers.BooleanField()
    optimal = serializers.BooleanField()
    minimal = serializers.BooleanField()
    candidates = serializers.IntegerField()
    reason = serializers.CharField(allow_blank=True)
    scores_before = serializers.DictField(child=serializers.FloatField())
    scores_after = serializers.DictField(child=serializers.FloatField(),
                                         help_text="Every scorer on the released text, re-tokenized.")
    thresholds = serializers.DictField(child=serializers.FloatField())
    replacement = serializers.ChoiceField(choices=list(REPLACEMENTS))
    places = serializers.ChoiceField(choices=list(PLACE_POLICIES),
                                     help_text="Which place names went: all in the grid, or those needed.")
    rounds = serializers.IntegerField(help_text="Searches run until the released text scored under every threshold.")


class _HumanSerializer(serializers.Serializer):
    threshold = serializers.FloatField()
    probability_before = serializers.FloatField()
    probability_after = serializers.FloatField()


class _ClassSerializer(serializers.Serializer):
    machine_inferable = serializers.BooleanField()
    human_inferable = serializers.BooleanField()


class _ClassesSerializer(serializers.Serializer):
    before = _ClassSerializer()
    after = _ClassSerializer()


class _GeneralizedSpanSerializer(_SpanSerializer):
    replacement = serializers.CharField()


class _TimeRemovalSerializer(serializers.Serializer):
    text_after = serializers.CharField(allow_blank=True, help_text="The post without its time expressions only.")
    removed = _SpanSerializer(many=True)
    generalized = _GeneralizedSpanSerializer(many=True)


class _WarningSerializer(serializers.Serializer):
    field = serializers.CharField(help_text="The request field it is about (keep, text).")
    message = serializers.CharField()


class _CheckSerializer(serializers.Serializer):
    name = serializers.ChoiceField(choices=["location", "places", "human"])
    title = serializers.CharField(help_text="Classifier, Places, People (human-inferability model).")
    status = serializers.ChoiceField(choices=["pass", "review", "fail", "unchecked"],
                                     help_text="unchecked: no such model (no human-inferability model trained); "
                                               "review (places only): it would pass, or has no scorer, but names "
                                               "no list holds are left (◐, never ✓): see the verdict's review.")
    score = serializers.FloatField(required=False, help_text="On the released text, re-tokenized; absent: no such "
                                                             "scorer.")
    threshold = serializers.FloatField(required=False)
    passed = serializers.BooleanField(required=False, help_text="The scorer's own test (and, places, no place "
                                                                  "inside the map left); absent when unchecked. "
                                                                  "status is the verdict.")
    detail = serializers.CharField()
    left = serializers.ListField(child=serializers.CharField(), required=False,
                                 help_text="places: the gazetteer places inside the grid still in the released text.")
    review = serializers.ListField(child=serializers.CharField(), required=False,
                                   help_text="places, status review: the names left that no scorer could resolve, "
                                             "each once.")
    text = serializers.CharField(help_text="Classifier: 35.8% on a8,6 ≈ Des Moines, IA, under its threshold 37.0% ✓")


class _ModelStrengthSerializer(serializers.Serializer):
    known = serializers.BooleanField(help_text="Whether a held-out evaluation is stored with the model.")
    weak = serializers.BooleanField(required=False, help_text="Lift under weak_below (absent when unknown).")
    lift = serializers.FloatField(required=False, help_text="Held-out accuracy / majority-cell baseline.")
    accuracy = serializers.FloatField(required=False)
    majority_baseline = serializers.FloatField(required=False)
    test_posts = serializers.IntegerField(required=False)
    weak_below = serializers.FloatField()
    message = serializers.CharField()


class _ReviewItemSerializer(serializers.Serializer):
    text = serializers.CharField(help_text="The name, as written in the released text (text_after).")
    start = serializers.IntegerField(help_text="Where it starts in the released text (text_after).")
    end = serializers.IntegerField()
    why = serializers.CharField(help_text="Why it is listed: \"proper noun not in the gazetteer\", \"name before a "
                                          "place word, not in the gazetteer\", \"place name not in the gazetteer\", "
                                          "\"venue or landmark not in the gazetteer\", \"hashtag or @mention that "
                                          "looks like a name, not in the gazetteer\".")


class _VerdictSerializer(serializers.Serializer):
    status = serializers.ChoiceField(
        choices=list(STATUSES),
        help_text="pass: every check that exists passed and nothing is left to review; review: every threshold met "
                  "and no gazetteer place inside the map left, but names no list holds are (see review: the reader "
                  "checks them); places: every threshold met but a place inside the map is still named; fail: a "
                  "threshold is not met, the text is still inferable.")
    releasable = serializers.BooleanField(help_text="Every threshold met: the page offers the text to copy (a "
                                                    "review text too, with the names to check beside Copy).")
    summary = serializers.CharField()
    before = serializers.CharField(help_text="Where the post as written points, naming the scorer(s) over their "
                                             "thresholds and with what (the place scorer's place names, the "
                                             "classifier's top cell), each number beside its own threshold.")
    checks = _CheckSerializer(many=True, help_text="Classifier, places, people: always these three, in order.")
    review = _ReviewItemSerializer(many=True, help_text="The names left in the released text that no scorer could "
                                                        "resolve (not in the gazetteer, neither inside the map nor "
                                                        "outside it), in text order; empty when none.")
    cannot_know = serializers.CharField(help_text="What no check can know: metadata (geotag, time, account), "
                                                  "images, the person's other posts, places no list holds.")
    model_strength = _ModelStrengthSerializer()


class InspectResultSerializer(serializers.Serializer):
    text = serializers.CharField()
    tokens = _TokenSerializer(many=True)
    deleted = _SpanSerializer(many=True)
    text_after = serializers.CharField(allow_blank=True)
    before = _DistributionSerializer()
    after = _DistributionSerializer()
    decision = _DecisionSerializer()
    verdict = _VerdictSerializer(help_text="Each check on the released text and the model's stored strength.")
    map_scorer = serializers.ChoiceField(choices=["location", "places"], help_text="Whose cells the page's maps "
                                         "show: the scorer furthest over its threshold before, else the classifier.")
    warnings = _WarningSerializer(many=True, help_text="About the request: a post not in the model's language "
                                                       "(field text), a keep entry not in the post, a keep list "
                                                       "that makes the goal impossible.")
    human = _HumanSerializer(required=False, help_text="When a human-inferability model exists for this model.")
    classes = _ClassesSerializer(required=False, help_text="The paper's machine x human classes, before and after.")
    time = _TimeRemovalSerializer(required=False, help_text="With remove_time: the time expressions removed first. "
                                                            "All spans are in the original text.")


class InspectResponseSerializer(InspectResultSerializer):
    model = InspectedModelSerializer()


class _BatchItemSerializer(serializers.Serializer):
    result = InspectResultSerializer(required=False)
    error = serializers.CharField(required=False)


class InspectBatchResponseSerializer(serializers.Serializer):
    model = InspectedModelSerializer()
    results = _BatchItemSerializer(many=True)


# -- a de-identified file's review --------------------------------------------------------------------------------
MAX_REVIEWS_PER_REQUEST = 500


class ReviewItemSerializer(serializers.Serializer):
    """One decision on one post the de-identify-posts job left for review."""

    row = serializers.IntegerField(min_value=2, max_value=2**31 - 1,
                                   error_messages={
                                       "min_value": gettext_lazy("Rows are numbered from 2 (the header is row 1).")},
                                   help_text="The post's row in the job's result file (the header is row 1).")
    column = serializers.CharField(max_length=1000, help_text="One of the job's text columns.")
    action = serializers.ChoiceField(
        choices=["accept", "delete", "delete_post", "edit", "clear"],
        help_text="accept: the released text as it is; delete: the spans go; delete_post: the whole post goes "
                  "(an edit or deletion that leaves nothing is refused without it); edit: the text is replaced; "
                  "clear: forget the review.")
    spans = serializers.ListField(
        child=serializers.ListField(child=serializers.IntegerField(min_value=0, max_value=2**31 - 1), min_length=2,
                                    max_length=2),
        required=False, default=list, max_length=10_000,
        help_text="delete: [start, end) character spans of the released text, every one deleted this time.")
    text = serializers.CharField(required=False, default="", allow_blank=True, trim_whitespace=False,
                                 max_length=1_000_000, help_text="edit: the post's new text (not empty).")


class ReviewRequestSerializer(serializers.Serializer):
    reviews = ReviewItemSerializer(many=True, min_length=1, max_length=MAX_REVIEWS_PER_REQUEST,
                                   help_text="Stored all together or, when one is at fault, none.")


class ReviewedRowSerializer(serializers.Serializer):
    row = serializers.IntegerField()
    column = serializers.CharField()
    action = serializers.CharField(allow_null=True, help_text="accepted, deleted or edited; null once cleared.")
    text = serializers.CharField(allow_null=True, help_text="The post as the reviewed file carries it.")
    deleted_spans = serializers.ListField(child=serializers.ListField(child=serializers.IntegerField()))
    reviewed_by = serializers.CharField(allow_null=True)
    reviewed_at = serializers.DateTimeField(allow_null=True)


class ReviewResponseSerializer(serializers.Serializer):
    reviews = ReviewedRowSerializer(many=True)
