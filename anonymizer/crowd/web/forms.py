"""The form of the new-campaign page."""

from __future__ import annotations

from django import forms
from django.core.validators import MaxValueValidator, MinValueValidator

from anonymizer.crowd.web.services import MAX_ATTENTION_CHECKS, MAX_CAMPAIGN_POSTS
from anonymizer.models import Campaign, TrainedLocationModel
from anonymizer.models.crowd import MAX_CAMPAIGN_TEXT
from anonymizer.platform.forms import UploadForm


def _bounded(name: str, form_class: type[forms.Field], **kwargs) -> forms.Field:
    """A form field for the campaign's bounded field ``name``, with the range the table declares on it
    (inclusive bounds as min / max, so the browser knows them; exclusive ones as validators)."""
    model_field = Campaign._meta.get_field(name)
    lows = [v.limit_value for v in model_field.validators if type(v) is MinValueValidator]
    highs = [v.limit_value for v in model_field.validators if type(v) is MaxValueValidator]
    others = [v for v in model_field.validators if type(v) not in (MinValueValidator, MaxValueValidator)]
    return form_class(min_value=max(lows) if lows else None, max_value=min(highs) if highs else None,
                      validators=others, initial=model_field.default, **kwargs)


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
    location_model = forms.ModelChoiceField(queryset=TrainedLocationModel.objects.none(), required=False,
                                            help_text="Its tokenizer splits words to strike and its grid is the map; "
                                                      "a built-in model's corpus can also supply the posts.")
    posts_file = forms.FileField(required=False, label="Posts (CSV)",
                                 help_text="Columns: text; optional id, kind (regular / gold / attention), gold "
                                           f"(yes / no), lat, lon. At most {MAX_CAMPAIGN_POSTS:,} posts.")
    text_column = forms.CharField(required=False, initial="text", max_length=1000)
    sample_size = forms.IntegerField(min_value=1, max_value=MAX_CAMPAIGN_POSTS, initial=100,
                                     label="…or sample this many held-out posts of the model's corpus")
    attention_checks = forms.IntegerField(min_value=0, max_value=MAX_ATTENTION_CHECKS, initial=2)
    judgments_per_post = _bounded("judgments_per_post", forms.IntegerField)
    cutoff = _bounded("cutoff", forms.FloatField, help_text="Strictly between 0 and 1.")
    gold_share = _bounded("gold_share", forms.FloatField, help_text="From 0 to less than 1.")
    min_gold_accuracy = _bounded("min_gold_accuracy", forms.FloatField)
    per_participant_cap = _bounded("per_participant_cap", forms.IntegerField)
    reservation_seconds = _bounded("reservation_seconds", forms.IntegerField)

    CAMPAIGN_FIELDS = ("name", "instructions", "consent_text", "task", "ask_location", "location_model",
                       "judgments_per_post", "cutoff", "gold_share", "min_gold_accuracy", "per_participant_cap",
                       "reservation_seconds")

    def __init__(self, *args, location_models=None, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        if location_models is not None:
            self.fields["location_model"].queryset = location_models

    def clean(self) -> dict:
        cleaned = super().clean()
        if not self.errors and not cleaned.get("posts_file") and not cleaned.get("location_model"):
            raise forms.ValidationError("Upload a CSV of posts, or choose a built-in model whose corpus to sample.")
        return cleaned

    def campaign_fields(self) -> dict:
        return {name: self.cleaned_data[name] for name in self.CAMPAIGN_FIELDS}
