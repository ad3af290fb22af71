from django.urls import include, path
from rest_framework.routers import DefaultRouter

from anonymizer import api, crowd_views, kanon_views, preferences_api, preferences_views, temporal_views, views

router = DefaultRouter()
router.register("uploads", api.UploadViewSet, basename="api-upload")
router.register("jobs", api.JobViewSet, basename="api-job")
router.register("campaigns", api.CampaignViewSet, basename="api-campaign")

urlpatterns = [
    path("", views.home, name="home"),
    path("healthz", views.healthz, name="healthz"),
    path("accounts/signup/", views.signup, name="signup"),
    path("accounts/token/", views.api_token, name="api-token"),
    path("jobs/", views.job_list, name="job-list"),
    path("jobs/new/profile/", views.profile_new, name="profile-new"),
    path("jobs/<uuid:job_id>/", views.job_detail, name="job-detail"),
    path("jobs/<uuid:job_id>/cancel/", views.job_cancel, name="job-cancel"),
    path("jobs/<uuid:job_id>/retry/", views.job_retry, name="job-retry"),
    path("jobs/<uuid:job_id>/delete/", views.job_delete, name="job-delete"),
    path("jobs/<uuid:job_id>/results/<int:result_id>/", views.job_result_download, name="job-result-download"),
    path("uploads/", views.upload_list, name="upload-list"),
    path("uploads/<uuid:upload_id>/download/", views.upload_download, name="upload-download"),
    path("uploads/<uuid:upload_id>/delete/", views.upload_delete, name="upload-delete"),
    path("kanon/<uuid:upload_id>/configure/", kanon_views.configure, name="kanon-configure"),
    path("kanon/<uuid:upload_id>/runs/", kanon_views.compare, name="kanon-compare"),
    path("temporal/<uuid:upload_id>/remove-time/", temporal_views.remove_time, name="temporal-remove-time"),
    path("temporal/<uuid:upload_id>/patterns/", temporal_views.learn_patterns, name="temporal-learn-patterns"),
    path("p/<str:token>/", crowd_views.join, name="crowd-join"),
    path("p/<str:token>/task/", crowd_views.task, name="crowd-task"),
    path("p/<str:token>/api/<str:action>", crowd_views.api, name="crowd-api"),
    path("crowd/", crowd_views.campaign_list, name="campaign-list"),
    path("crowd/new/", crowd_views.campaign_new, name="campaign-new"),
    path("crowd/<uuid:campaign_id>/", crowd_views.campaign_detail, name="campaign-detail"),
    path("crowd/<uuid:campaign_id>/<str:action>/", crowd_views.campaign_action, name="campaign-action"),
    path("crowd/<uuid:campaign_id>/export/<str:what>.<str:fmt>", crowd_views.campaign_export,
         name="campaign-export"),
    path("api/v1/job-kinds/", api.JobKindListView.as_view(), name="api-job-kinds"),
    path("api/v1/location-models/", api.LocationModelListView.as_view(), name="api-location-models"),
    path("api/v1/inspect", api.InspectView.as_view(), name="api-inspect"),
    path("api/v1/inspect/batch", api.InspectBatchView.as_view(), name="api-inspect-batch"),
    path("preferences/", preferences_views.preferences, name="preferences"),
    path("preferences/jobs/", preferences_views.preference_jobs, name="preference-jobs"),
    path("api/v1/preferences/model", preferences_api.PreferenceModelView.as_view(), name="api-preference-model"),
    path("api/v1/preferences/reports", preferences_api.PreferenceReportsView.as_view(),
         name="api-preference-reports"),
    path("api/v1/", include(router.urls)),
]
