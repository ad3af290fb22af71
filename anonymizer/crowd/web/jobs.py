"""Jobs that learn from a campaign's answers: the human-inferability classifier, the calibrated
de-identification threshold, and the machine-inferable x human-inferable table (the paper's Table 2)."""

from __future__ import annotations

import io
from collections.abc import Sequence

from django.conf import settings
from django.utils.translation import gettext, gettext_lazy
from rest_framework import serializers

from anonymizer.crowd.stats import cross_table
from anonymizer.crowd.web import selectors
from anonymizer.location.human import HumanModel, train_human_model
from anonymizer.location.model import LocationModel, hand_calibration
from anonymizer.models import Campaign, CampaignPost, HumanInferabilityModel, Job, TrainedLocationModel
from anonymizer.platform import artifacts
from anonymizer.platform.api_input import StrictUUIDField
from anonymizer.platform.errors import UserFacingError
from anonymizer.platform.jobs.registry import JobKind, register
from anonymizer.platform.jobs.runner import JobRun
from anonymizer.tabular import export

# The jobs a campaign's page starts on its answers.
CAMPAIGN_JOBS = ("train_human_model", "calibrate_threshold", "machine_human_table")


class CampaignParams(serializers.Serializer):
    campaign = StrictUUIDField(help_text="One of your campaigns.")

    def validate_campaign(self, campaign_id):
        """Before anything is queued (the run checks again: the campaign may go meanwhile)."""
        owner = self.context.get("owner")
        if owner is not None and not selectors.campaigns_of(owner).filter(id=campaign_id).exists():
            raise serializers.ValidationError(gettext("There is no such campaign of yours."))
        return campaign_id


def _campaign(job: Job, task: str | None = None) -> Campaign:
    campaign = selectors.campaigns_of(job.owner).filter(id=job.params["campaign"]).select_related(
        "location_model").first()
    if campaign is None:  # not theirs, or gone: the same answer, so nothing leaks
        raise UserFacingError(gettext("There is no such campaign of yours."))
    if task is not None and campaign.task != task:
        raise UserFacingError(gettext("This needs a campaign of the task %(wanted)s; this one is %(task)s.") % {
            "wanted": repr(task), "task": repr(campaign.task)})
    if campaign.location_model is None:
        raise UserFacingError(gettext("The campaign has no location model, whose tokenizer and grid this needs."))
    return campaign


def _human_labels(campaign: Campaign) -> tuple[list[str], list[bool]]:
    report = selectors.campaign_report(campaign)
    texts = dict(campaign.posts.filter(kind=CampaignPost.Kind.REGULAR).values_list("id", "text"))
    labelled = [(texts[int(a.post)], a.human_inferable) for a in report["aggregates"] if a.human_inferable is not None]
    return [text for text, _ in labelled], [label for _, label in labelled]


def run_train_human_model(job: Job, run: JobRun) -> dict:
    campaign = _campaign(job, Campaign.Task.INFERABLE)
    texts, labels = _human_labels(campaign)  # decided posts only: an undecided one has no label to learn
    run.progress(1, 3, gettext("training on %(posts)s labelled posts") % {"posts": len(texts)})
    location = artifacts.load(campaign.location_model, LocationModel.load)
    try:
        model = train_human_model(texts, labels, location.tokenizer_settings)
    except ValueError as exc:
        raise UserFacingError(str(exc)) from exc
    model.metadata["campaign"] = str(campaign.id)
    record = register_human_model(model, owner=job.owner, campaign=campaign, location_record=campaign.location_model,
                                  activate=False)
    switch = "owner" if campaign.location_model.owner_id == job.owner_id else "operator"
    return {"model": str(record.id), "location_model": campaign.location_model.name, "in_use": False,
            "model_version": str(record.id), "switched_by": switch, **model.metadata}


def register_human_model(model: HumanModel, *, owner, campaign: Campaign | None,
                         location_record: TrainedLocationModel, activate: bool = True) -> HumanInferabilityModel:
    """Save the model under MODEL_DIR; when ``activate``, it becomes the one used beside its location model. A
    campaign's training saves it unused: its owner, or for a built-in location model the operator, switches."""
    return artifacts.save_version(HumanInferabilityModel, model.save, owner=owner, name=location_record.name,
                                  prefix="human/", active_among={"location_model": location_record},
                                  activate=activate, campaign=campaign, location_model=location_record,
                                  metadata=model.metadata)


def calibrate_threshold(record: TrainedLocationModel, hand_deidentified: Sequence[str], *, owner,
                        campaign: Campaign) -> TrainedLocationModel:
    """A new, unused version of a location model with the paper's calibrated threshold (the mean top-cell
    probability of posts people de-identified by hand) and its 95% bootstrap interval over those posts, owned by
    the campaign's owner: nothing anybody uses changes until its owner chooses it (a built-in model's default
    changes only by the operator's ``manage.py promote_model_version``)."""
    model = artifacts.load(record, LocationModel.load)
    threshold, interval = hand_calibration(model, hand_deidentified)
    calibrated = model.with_threshold(threshold)
    fields = calibrated.record_fields()
    fields["metadata"] = {**fields["metadata"], "calibration": {
        "campaign": str(campaign.id), "campaign_name": campaign.name, "base_version": str(record.id),
        "posts": len(hand_deidentified), "mean": threshold.value, "interval": list(interval)}}
    return artifacts.save_version(TrainedLocationModel, calibrated.save, owner=owner,
                                  title=f"{record.title or record.name}, calibrated on {campaign.name}"[:200],
                                  activate=False, **fields)


def run_calibrate_threshold(job: Job, run: JobRun) -> dict:
    campaign = _campaign(job, Campaign.Task.DEIDENTIFY)
    sample = selectors.calibration_sample(campaign)
    if not sample["enough"]:
        raise UserFacingError(gettext(
            "Too few hand de-identifications to calibrate: it needs at least %(need)s posts each de-identified by "
            "%(participants)s participants who were not flagged; there are %(posts)s. Nothing was changed.") % {
                "need": sample["need_posts"], "participants": sample["need_participants"], "posts": sample["posts"]})
    run.progress(1, 2, gettext("scoring %(posts)s hand de-identified posts") % {"posts": len(sample["texts"])})
    record = calibrate_threshold(campaign.location_model, sample["texts"], owner=job.owner, campaign=campaign)
    calibration = record.metadata["calibration"]
    return {"location_model": record.name, "version": record.version, "model_version": str(record.id),
            "in_use": False, "switched_by": "owner", "threshold": record.metadata["threshold"],
            "posts": sample["posts"], "hand_deidentifications": len(sample["texts"]),
            "participants": sample["participants"],
            "interval_low": round(calibration["interval"][0], 4), "interval_high": round(calibration["interval"][1], 4)}


def run_machine_human_table(job: Job, run: JobRun) -> dict:
    campaign = _campaign(job, Campaign.Task.INFERABLE)
    report = selectors.campaign_report(campaign)
    human = {a.post: a.human_inferable for a in report["aggregates"] if a.human_inferable is not None}
    texts = dict(campaign.posts.filter(id__in=[int(p) for p in human]).values_list("id", "text"))
    location = artifacts.load(campaign.location_model, LocationModel.load)
    ids = sorted(human, key=int)
    run.progress(1, 2, gettext("classifying %(posts)s posts") % {"posts": len(ids)})
    top = location.cell_probabilities([[t.norm for t in location.tokenize(texts[int(p)])] for p in ids]).max(axis=1)
    machine = {p: bool(probability >= location.threshold.value) for p, probability in zip(ids, top, strict=True)}
    table = cross_table(machine, human)
    out = io.StringIO()
    writer = export.writer(out, lineterminator="\n", neutralize=settings.CSV_NEUTRALIZE_FORMULAS)
    writer.writerow(["post", "external_id", "top_probability", "machine_inferable", "human_inferable"])
    for p, probability in zip(ids, top, strict=True):
        writer.writerow([p, report["external_ids"].get(p, ""), f"{probability:.6f}", machine[p], human[p]])
    run.add_result("machine_x_human.csv", out.getvalue().encode(), "text/csv")
    return {"threshold": location.threshold.value, "table": table.as_rows(), "posts": len(ids)}


register(JobKind(name="train_human_model", label=gettext_lazy("Train the human-inferability classifier"),
                 run=run_train_human_model, params_serializer=CampaignParams,
                 summary_template="jobs/summary/crowd.html"))
register(JobKind(name="calibrate_threshold", label=gettext_lazy("Calibrate the threshold from hand de-identifications"),
                 run=run_calibrate_threshold, params_serializer=CampaignParams,
                 summary_template="jobs/summary/crowd.html"))
register(JobKind(name="machine_human_table", label=gettext_lazy("Machine- x human-inferable table"),
                 run=run_machine_human_table, params_serializer=CampaignParams,
                 summary_template="jobs/summary/crowd.html"))
