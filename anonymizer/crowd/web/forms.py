"""The form of the new-campaign page."""

from __future__ import annotations

from django import forms
from django.core.validators import MaxValueValidator, MinValueValidator

from anonymizer.crowd.web.services import DEFAULT_ATTENTION_CHECKS, MAX_ATTENTION_CHECKS, MAX_CAMPAIGN_POSTS
from anonymizer.models import Campaign, TrainedLocationModel
from anonymizer.models.crowd import MAX_CAMPAIGN_TEXT
from anonymizer.models.validators import GreaterThanValidator, LessThanValidator
from anonymizer.platform.forms import UploadForm


def _number(value) -> str:
    return f"{value:,}" if isinstance(value, int) else f"{value:g}"


def range_text(validators) -> str:
    """The range the validators allow, in words: "From 1 to 1,000.", "More than 0 and less than 1."."""
    low = next((("From", v.limit_value) for v in validators if type(v) is MinValueValidator), None) or next(
        (("More than", v.limit_value) for v in validators if type(v) is GreaterThanValidator), None)
    high = next((("to", v.limit_value) for v in validators if type(v) is MaxValueValidator), None) or next(
        (("less than" if low and low[0] == "More than" else "to less than", v.limit_value)
         for v in validators if type(v) is LessThanValidator), None)
    if low and high:
        joint = " and " if low[0] == "More than" else " "
        return f"{low[0]} {_number(low[1])}{joint}{high[0]} {_number(high[1])}."
    return ""


def _bounded(name: str, form_class: type[forms.Field], *, meaning: str, **kwargs) -> forms.Field:
    """A form field for the campaign's bounded field ``name``, with the range the table declares on it
    (inclusive bounds as min / max, so the browser knows them; exclusive ones as validators), and help text that
    says what it means and that range."""
    model_field = Campaign._meta.get_field(name)
    lows = [v.limit_value for v in model_field.validators if type(v) is MinValueValidator]
    highs = [v.limit_value for v in model_field.validators if type(v) is MaxValueValidator]
    others = [v for v in model_field.validators if type(v) not in (MinValueValidator, MaxValueValidator)]
    default = model_field.default
    help_text = f"{meaning} {range_text(model_field.validators)} Default {_number(default)}."
    return form_class(min_value=max(lows) if lows else None, max_value=min(highs) if highs else None,
                      validators=others, initial=default, help_text=help_text, **kwargs)


class LocationModelField(forms.ModelChoiceField):
    """A choice of location model, each shown by its display name (as on every other page)."""

    def label_from_instance(self, obj: TrainedLocationModel) -> str:
        return obj.display_name


class CampaignForm(UploadForm):
    """A new crowdsourcing campaign: the task, the posts, and how many answers each post needs (every number in
    the range the Campaign table declares; a posts file over the upload limit is an error of its field)."""

    name = forms.CharField(max_length=200)
    instructions = forms.CharField(max_length=MAX_CAMPAIGN_TEXT, widget=forms.Textarea(attrs={"rows": 4}), initial=(
        "Read each post. Could you tell where it was written — the area of the city? Answer Yes or No. "
        "You may use a search engine."))
    consent_text = forms.CharField(max_length=MAX_CAMPAIGN_TEXT, widget=forms.Textarea(attrs={"rows": 4}), initial=(
        "Your answers are stored with a random participant number, never with your name, and used for research "
        "on location privacy. You may stop at any time."))
    task = forms.ChoiceField(choices=Campaign.Task.choices)
    ask_location = forms.BooleanField(required=False, label="Also ask participants to click the area on a map")
    location_model = LocationModelField(queryset=TrainedLocationModel.objects.none(), required=False,
                                        help_text="Its tokenizer splits words to strike and its grid is the map; "
                                                  "a built-in model's corpus can also supply the posts.")
    posts_file = forms.FileField(required=False, label="Posts (CSV)",
                                 help_text="Columns: text; optional id, kind (regular / gold / attention), gold "
                                           f"(yes / no), lat, lon. At most {MAX_CAMPAIGN_POSTS:,} posts.")
    text_column = forms.CharField(required=False, initial="text", max_length=1000)
    sample_size = forms.IntegerField(min_value=1, max_value=MAX_CAMPAIGN_POSTS, initial=100,
                                     label="…or sample this many held-out posts of the model's corpus")
    attention_checks = forms.IntegerField(
        min_value=0, max_value=MAX_ATTENTION_CHECKS, initial=DEFAULT_ATTENTION_CHECKS,
        help_text="Items that tell the participant what to answer, half \u201cplease answer Yes\u201d and half "
                  "\u201cplease answer No\u201d, so that answering the same to everything fails one; every "
                  "participant meets them all before a completion code, and one answered wrongly flags them and "
                  "leaves their answers out of the results. With the gold settings below, 8 let a participant who "
                  "clicks at random get a code in about 1 session of 400. "
                  f"0, or from 2 to {MAX_ATTENTION_CHECKS}. Default {DEFAULT_ATTENTION_CHECKS}.")
    judgments_per_post = _bounded(
        "judgments_per_post", forms.IntegerField,
        meaning="How many answers each post collects; no post is served once it has them. More answers narrow "
                "each post's 95% interval (to at most about ±10 points at 100).")
    cutoff = _bounded(
        "cutoff", forms.FloatField,
        meaning="A post is human-inferable when at least this share of the answers say \u201cyes, I can tell "
                "where\u201d (0.1 = 10%).")
    gold_share = _bounded(
        "gold_share", forms.FloatField,
        meaning="Beyond the check items every participant meets (below), the chance that the next item is one "
                "more gold post (known answer) or attention check instead of a post to judge (0.1 = one in ten).")
    min_gold_answers = _bounded(
        "min_gold_answers", forms.IntegerField, required=False, label="Gold answers before accuracy is judged",
        meaning="Every participant answers this many gold posts (posts whose answer you know, from the CSV's gold "
                "column) before a completion code, and is judged on them; the posts need at least this many. "
                "0 judges nobody by gold posts.")
    min_gold_accuracy = _bounded(
        "min_gold_accuracy", forms.FloatField,
        meaning="A participant whose share of gold posts answered correctly falls below this, once they have "
                "answered the number above, is flagged and their answers left out of the results. At the defaults "
                "(6 gold posts, 50%, and 8 attention checks) a careful participant who gets 9 gold posts in 10 "
                "right is flagged in about 1 session of 400 (in a simulation of 20,000 sessions).")
    per_participant_cap = _bounded(
        "per_participant_cap", forms.IntegerField,
        meaning="The most items one participant answers; then they get their completion code.")
    min_answers_for_code = _bounded(
        "min_answers_for_code", forms.IntegerField, required=False,
        meaning="Posts (not counting gold posts and attention checks) a participant must answer before they get a "
                "completion code; a participant who comes when nothing is left gets none, and is told why.")
    checks_within = _bounded(
        "checks_within", forms.IntegerField, required=False,
        meaning="Every participant meets their first gold post and their first attention check of each kind "
                "(Yes, No) within their first this many items (when the campaign has them); the other checks come "
                "before the fewest items that earn a code.")
    stop_when_decided = forms.BooleanField(
        required=False, initial=True, label="Stop asking about a post once its answers decide it",
        help_text="Sequential stopping: a post whose 95% interval lies wholly on one side of the cut-off stops "
                  "being served once it has the minimum below, saving answers for undecided posts "
                  "(in a simulation: about 44% fewer answers than asking every post 100 times, "
                  "with labels as often right).")
    min_judgments_per_post = _bounded(
        "min_judgments_per_post", forms.IntegerField, required=False,
        meaning="Answers a post collects before it may stop early, however clear its interval.")
    reservation_seconds = _bounded(
        "reservation_seconds", forms.IntegerField,
        meaning="How long a post shown to a participant is kept for them; unanswered after this, it goes back "
                "to the queue for others.")

    CAMPAIGN_FIELDS = ("name", "instructions", "consent_text", "task", "ask_location", "location_model",
                       "judgments_per_post", "cutoff", "gold_share", "min_gold_answers", "min_gold_accuracy",
                       "per_participant_cap",
                       "min_answers_for_code", "checks_within", "stop_when_decided", "min_judgments_per_post",
                       "reservation_seconds")

    def __init__(self, *args, location_models=None, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        if location_models is not None:
            self.fields["location_model"].queryset = location_models

    def clean_attention_checks(self) -> int:
        count = self.cleaned_data["attention_checks"]
        if count == 1:
            raise forms.ValidationError("One attention check can ask only Yes or only No: give 0, or at least 2 "
                                        "(half ask Yes, half No).")
        return count

    def clean(self) -> dict:
        cleaned = super().clean()
        needed = cleaned.get("min_answers_for_code") or 0  # left empty: the default, or the cap when smaller
        if needed > (cleaned.get("per_participant_cap") or 10**9):
            self.add_error("min_answers_for_code", "A completion code cannot need more answers than one participant "
                                                   "may give (the cap above).")
        if not self.errors and not cleaned.get("posts_file") and not cleaned.get("location_model"):
            raise forms.ValidationError("Upload a CSV of posts, or choose a built-in model whose corpus to sample.")
        return cleaned

    def campaign_fields(self) -> dict:
        # An optional number left empty takes the table's default.
        return {name: self.cleaned_data[name] for name in self.CAMPAIGN_FIELDS if self.cleaned_data[name] is not None}
