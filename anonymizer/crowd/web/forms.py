"""The form of the new-campaign page."""

from __future__ import annotations

from django import forms

from anonymizer.models import Campaign, TrainedLocationModel


class CampaignForm(forms.Form):
    """A new crowdsourcing campaign: the task, the posts, and how many answers each post needs."""

    name = forms.CharField(max_length=200)
    instructions = forms.CharField(widget=forms.Textarea(attrs={"rows": 4}), initial=(
        "Read each post. Could you tell where it was written — the area of the city? Answer Yes or No. "
        "You may use a search engine."))
    consent_text = forms.CharField(widget=forms.Textarea(attrs={"rows": 4}), initial=(
        "Your answers are stored with a random participant number, never with your name, and used for research "
        "on location privacy. You may stop at any time."))
    task = forms.ChoiceField(choices=Campaign.Task.choices)
    ask_location = forms.BooleanField(required=False, label="Also ask participants to click the area on a map")
    location_model = forms.ModelChoiceField(queryset=TrainedLocationModel.objects.none(), required=False,
                                            help_text="Its tokenizer splits words to strike and its grid is the map; "
                                                      "a built-in model's corpus can also supply the posts.")
    posts_file = forms.FileField(required=False, label="Posts (CSV)",
                                 help_text="Columns: text; optional id, kind (regular / gold / attention), gold "
                                           "(yes / no), lat, lon.")
    text_column = forms.CharField(required=False, initial="text")
    sample_size = forms.IntegerField(min_value=1, max_value=10_000, initial=100,
                                     label="…or sample this many held-out posts of the model's corpus")
    attention_checks = forms.IntegerField(min_value=0, max_value=20, initial=2)
    judgments_per_post = forms.IntegerField(min_value=1, max_value=1000, initial=100)
    cutoff = forms.FloatField(min_value=0.0, max_value=1.0, initial=0.10)
    gold_share = forms.FloatField(min_value=0.0, max_value=0.9, initial=0.10)
    min_gold_accuracy = forms.FloatField(min_value=0.0, max_value=1.0, initial=0.70)
    per_participant_cap = forms.IntegerField(min_value=1, max_value=10_000, initial=50)
    reservation_seconds = forms.IntegerField(min_value=10, max_value=86_400, initial=300)

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
