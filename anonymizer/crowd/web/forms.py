"""The form of the new-campaign page."""

from __future__ import annotations

from django import forms
from django.conf import settings
from django.core.validators import MaxValueValidator, MinValueValidator
from django.utils import translation
from django.utils.functional import lazy
from django.utils.text import format_lazy
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from anonymizer.crowd.web.services import DEFAULT_ATTENTION_CHECKS, MAX_ATTENTION_CHECKS, MAX_CAMPAIGN_POSTS
from anonymizer.models import Campaign, TrainedLocationModel
from anonymizer.models.crowd import MAX_CAMPAIGN_TEXT
from anonymizer.models.validators import GreaterThanValidator, LessThanValidator
from anonymizer.platform.forms import UploadForm


def _number(value) -> str:
    return f"{value:,}" if isinstance(value, int) else f"{value:g}"


def range_text(validators) -> str:
    """The range the validators allow, in words: "From 1 to 1,000.", "More than 0 and less than 1."."""
    def limit(kind):
        return next((v.limit_value for v in validators if type(v) is kind), None)

    low, above, high, below = (limit(MinValueValidator), limit(GreaterThanValidator), limit(MaxValueValidator),
                               limit(LessThanValidator))
    if low is not None and high is not None:
        return gettext("From %(low)s to %(high)s.") % {"low": _number(low), "high": _number(high)}
    if low is not None and below is not None:
        return gettext("From %(low)s to less than %(high)s.") % {"low": _number(low), "high": _number(below)}
    if above is not None and below is not None:
        return gettext("More than %(low)s and less than %(high)s.") % {"low": _number(above), "high": _number(below)}
    if above is not None and high is not None:
        return gettext("More than %(low)s and at most %(high)s.") % {"low": _number(above), "high": _number(high)}
    return ""


def _help_text(meaning, validators, default) -> str:
    return gettext("%(meaning)s %(range)s Default %(default)s.") % {
        "meaning": meaning, "range": range_text(validators), "default": _number(default)}


def _bounded(name: str, form_class: type[forms.Field], *, meaning, **kwargs) -> forms.Field:
    """A form field for the campaign's bounded field ``name``, with the range the table declares on it
    (inclusive bounds as min / max, so the browser knows them; exclusive ones as validators), and help text that
    says what it means and that range (in the page's language: computed when shown)."""
    model_field = Campaign._meta.get_field(name)
    lows = [v.limit_value for v in model_field.validators if type(v) is MinValueValidator]
    highs = [v.limit_value for v in model_field.validators if type(v) is MaxValueValidator]
    others = [v for v in model_field.validators if type(v) not in (MinValueValidator, MaxValueValidator)]
    default = model_field.default
    help_text = lazy(_help_text, str)(meaning, model_field.validators, default)
    return form_class(min_value=max(lows) if lows else None, max_value=min(highs) if highs else None,
                      validators=others, initial=default, help_text=help_text, **kwargs)


class LocationModelField(forms.ModelChoiceField):
    """A choice of location model, each shown by its display name (as on every other page)."""

    def label_from_instance(self, obj: TrainedLocationModel) -> str:
        return obj.display_name


class CampaignForm(UploadForm):
    """A new crowdsourcing campaign: the task, the posts, and how many answers each post needs (every number in
    the range the Campaign table declares; a posts file over the upload limit is an error of its field)."""

    name = forms.CharField(max_length=200, label=_("Name"))
    # The default texts in the owner's language, as the participants' language below starts.
    instructions = forms.CharField(
        max_length=MAX_CAMPAIGN_TEXT, widget=forms.Textarea(attrs={"rows": 4}), label=_("Instructions"), initial=_(
            "Read each post. Could you tell where it was written — the area of the city? Answer Yes or No. "
            "You may use a search engine."))
    consent_text = forms.CharField(
        max_length=MAX_CAMPAIGN_TEXT, widget=forms.Textarea(attrs={"rows": 4}), label=_("Consent text"), initial=_(
            "Your answers are stored with a random participant number, never with your name, and used for "
            "research on location privacy. You may stop at any time."))
    task = forms.ChoiceField(choices=Campaign.Task.choices, label=_("Task"))
    language = forms.ChoiceField(
        choices=settings.LANGUAGES, initial="en", required=False, label=_("Participants' language"),
        help_text=_("The participants' pages (consent, instructions, task, attention checks, completion code) are "
                    "in this language whatever their browser says. Write the instructions and consent above in it."))
    ask_location = forms.BooleanField(required=False, label=_("Also ask participants to click the area on a map"))
    location_model = LocationModelField(queryset=TrainedLocationModel.objects.none(), required=False,
                                        label=_("Location model"),
                                        help_text=_("Its tokenizer splits words to strike and its grid is the map; "
                                                    "a built-in model's corpus can also supply the posts."))
    posts_file = forms.FileField(required=False, label=_("Posts (CSV)"), help_text=format_lazy(
        _("Columns: text; optional id, kind (regular / gold / attention), gold (yes / no), lat, lon. At most "
          "{posts} posts."), posts=f"{MAX_CAMPAIGN_POSTS:,}"))
    text_column = forms.CharField(required=False, initial="text", max_length=1000, label=_("Text column"))
    sample_size = forms.IntegerField(min_value=1, max_value=MAX_CAMPAIGN_POSTS, initial=100,
                                     label=_("…or sample this many held-out posts of the model's corpus"))
    attention_checks = forms.IntegerField(
        min_value=0, max_value=MAX_ATTENTION_CHECKS, initial=DEFAULT_ATTENTION_CHECKS, label=_("Attention checks"),
        help_text=format_lazy(_(
            "Items that tell the participant what to answer, half “please answer Yes” and half "
            "“please answer No”, so that answering the same to everything fails one; every "
            "participant meets them all before a completion code, and one answered wrongly flags them and "
            "leaves their answers out of the results. With the gold settings below, 8 let a participant who "
            "clicks at random get a code in about 1 session of 400. "
            "0, or from 2 to {most}. Default {default}."), most=MAX_ATTENTION_CHECKS, default=DEFAULT_ATTENTION_CHECKS))
    judgments_per_post = _bounded(
        "judgments_per_post", forms.IntegerField, label=_("Answers per post"),
        # xgettext:no-python-format (a percentage, not a placeholder)
        meaning=_("How many answers each post collects; no post is served once it has them. More answers narrow "
                  "each post's 95% interval (to at most about ±10 points at 100)."))
    cutoff = _bounded(
        "cutoff", forms.FloatField, label=_("Cut-off"),
        meaning=_("A post is human-inferable when at least this share of the answers say “yes, I can tell "
                  "where” (0.1 = 10%)."))
    gold_share = _bounded(
        "gold_share", forms.FloatField, label=_("Gold share"),
        meaning=_("Beyond the check items every participant meets (below), the chance that the next item is one "
                  "more gold post (known answer) or attention check instead of a post to judge (0.1 = one in ten)."))
    min_gold_answers = _bounded(
        "min_gold_answers", forms.IntegerField, required=False, label=_("Gold answers before accuracy is judged"),
        meaning=_("Every participant answers this many gold posts (posts whose answer you know, from the CSV's gold "
                  "column) before a completion code, and is judged on them; the posts need at least this many. "
                  "0 judges nobody by gold posts."))
    min_gold_accuracy = _bounded(
        "min_gold_accuracy", forms.FloatField, label=_("Minimum gold accuracy"),
        meaning=_("A participant whose share of gold posts answered correctly falls below this, once they have "
                  "answered the number above, is flagged and their answers left out of the results. At the defaults "
                  "(6 gold posts, 50%, and 8 attention checks) a careful participant who gets 9 gold posts in 10 "
                  "right is flagged in about 1 session of 400 (in a simulation of 20,000 sessions)."))
    per_participant_cap = _bounded(
        "per_participant_cap", forms.IntegerField, label=_("Items per participant at most"),
        meaning=_("The most items one participant answers; then they get their completion code."))
    min_answers_for_code = _bounded(
        "min_answers_for_code", forms.IntegerField, label=_("Answers for a completion code"), required=False,
        meaning=_("Posts (not counting gold posts and attention checks) a participant must answer before they get a "
                  "completion code; a participant who comes when nothing is left gets none, and is told why."))
    checks_within = _bounded(
        "checks_within", forms.IntegerField, label=_("Checks within the first items"), required=False,
        meaning=_("Every participant meets their first gold post and their first attention check of each kind "
                  "(Yes, No) within their first this many items (when the campaign has them); the other checks come "
                  "before the fewest items that earn a code."))
    stop_when_decided = forms.BooleanField(
        required=False, initial=True, label=_("Stop asking about a post once its answers decide it"),
        # xgettext:no-python-format (a percentage, not a placeholder)
        help_text=_("Sequential stopping: a post whose 95% interval lies wholly on one side of the cut-off stops "
                    "being served once it has the minimum below, saving answers for undecided posts "
                    "(in a simulation: about 44% fewer answers than asking every post 100 times, "
                    "with labels as often right)."))
    min_judgments_per_post = _bounded(
        "min_judgments_per_post", forms.IntegerField, label=_("Answers before stopping early"), required=False,
        meaning=_("Answers a post collects before it may stop early, however clear its interval."))
    reservation_seconds = _bounded(
        "reservation_seconds", forms.IntegerField, label=_("Reservation (seconds)"),
        meaning=_("How long a post shown to a participant is kept for them; unanswered after this, it goes back "
                  "to the queue for others."))

    CAMPAIGN_FIELDS = ("name", "instructions", "consent_text", "task", "language", "ask_location", "location_model",
                       "judgments_per_post", "cutoff", "gold_share", "min_gold_answers", "min_gold_accuracy",
                       "per_participant_cap",
                       "min_answers_for_code", "checks_within", "stop_when_decided", "min_judgments_per_post",
                       "reservation_seconds")

    def __init__(self, *args, location_models=None, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        if location_models is not None:
            self.fields["location_model"].queryset = location_models
        # The participants' language starts as the owner's, like the default instructions and consent above.
        if translation.get_language() in dict(settings.LANGUAGES):
            self.fields["language"].initial = translation.get_language()

    def clean_language(self) -> str:
        # Left out of a hand-made request: the table's default, English.
        return self.cleaned_data["language"] or Campaign._meta.get_field("language").default

    def clean_attention_checks(self) -> int:
        count = self.cleaned_data["attention_checks"]
        if count == 1:
            raise forms.ValidationError(_("One attention check can ask only Yes or only No: give 0, or at least 2 "
                                          "(half ask Yes, half No)."))
        return count

    def clean(self) -> dict:
        cleaned = super().clean()
        needed = cleaned.get("min_answers_for_code") or 0  # left empty: the default, or the cap when smaller
        if needed > (cleaned.get("per_participant_cap") or 10**9):
            self.add_error("min_answers_for_code", _("A completion code cannot need more answers than one "
                                                     "participant may give (the cap above)."))
        if not self.errors and not cleaned.get("posts_file") and not cleaned.get("location_model"):
            raise forms.ValidationError(_("Upload a CSV of posts, or choose a built-in model whose corpus to "
                                          "sample."))
        return cleaned

    def campaign_fields(self) -> dict:
        # An optional number left empty takes the table's default.
        return {name: self.cleaned_data[name] for name in self.CAMPAIGN_FIELDS if self.cleaned_data[name] is not None}
