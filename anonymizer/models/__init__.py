"""Kakurega's records, one module per area, one app label ("anonymizer"): the platform's uploads and jobs, and
each capability's own tables. Import them from here."""

from anonymizer.models.accounts import UserSettings
from anonymizer.models.crowd import Assignment, Campaign, CampaignPost, Judgment, Participant
from anonymizer.models.jobs import FanOutInput, Job, JobChunk, JobResult, Upload
from anonymizer.models.kanon import CachedSpread, CachedTerms
from anonymizer.models.location import HumanInferabilityModel, TrainedLocationModel
from anonymizer.models.preferences import PreferenceContribution, PreferenceModel, PreferenceReport
from anonymizer.models.review import ReviewedRow

__all__ = [
    "Assignment",
    "CachedSpread",
    "CachedTerms",
    "Campaign",
    "CampaignPost",
    "FanOutInput",
    "HumanInferabilityModel",
    "Job",
    "JobChunk",
    "JobResult",
    "Judgment",
    "Participant",
    "PreferenceContribution",
    "PreferenceModel",
    "PreferenceReport",
    "ReviewedRow",
    "TrainedLocationModel",
    "Upload",
    "UserSettings",
]
