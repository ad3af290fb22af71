"""Routes of the platform's pages and API (accounts, jobs, uploads, health)."""

from django.urls import path, re_path
from django.views.i18n import JavaScriptCatalog

from anonymizer.platform import api, i18n, views
from anonymizer.platform.help import help_page

# The REST router's routes are registered by anonymizer.urls, with every capability's viewsets.
API_VIEWSETS = [("uploads", api.UploadViewSet, "api-upload"), ("jobs", api.JobViewSet, "api-job")]

urlpatterns = [
    path("healthz", views.healthz, name="healthz"),
    # The header's language switch, and the scripts' texts in the page's language (gettext() in static/js/).
    path("i18n/language/", i18n.switch_language, name="set-language"),
    path("i18n/catalog.js", JavaScriptCatalog.as_view(), name="javascript-catalog"),
    path("accounts/signup/", views.signup, name="signup"),
    path("accounts/token/", views.api_token, name="api-token"),
    path("jobs/", views.job_list, name="job-list"),
    path("jobs/<uuid:job_id>/", views.job_detail, name="job-detail"),
    path("jobs/<uuid:job_id>/cancel/", views.job_cancel, name="job-cancel"),
    path("jobs/<uuid:job_id>/retry/", views.job_retry, name="job-retry"),
    path("jobs/<uuid:job_id>/delete/", views.job_delete, name="job-delete"),
    path("jobs/<uuid:job_id>/results/<int:result_id>/", views.job_result_download, name="job-result-download"),
    path("uploads/", views.upload_list, name="upload-list"),
    path("uploads/<uuid:upload_id>/download/", views.upload_download, name="upload-download"),
    path("uploads/<uuid:upload_id>/delete/", views.upload_delete, name="upload-delete"),
    path("api/v1/job-kinds/", api.JobKindListView.as_view(), name="api-job-kinds"),
    # The manual, built from docs/ (no login: it is documentation).
    re_path(r"^help/(?P<path>.*)$", help_page, name="help"),
]
