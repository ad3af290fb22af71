from django.urls import path

from anonymizer.location.web import api, views

urlpatterns = [
    path("", views.home, name="home"),
    path("models/<uuid:version_id>/use/", views.use_model_version, name="model-use"),
    path("uploads/<uuid:upload_id>/deidentify/", views.deidentify_posts, name="location-deidentify-posts"),
    path("jobs/<uuid:job_id>/review/", views.review_file, name="location-review"),
    path("jobs/<uuid:job_id>/review/download/", views.review_download, name="location-review-download"),
    path("jobs/<uuid:job_id>/review/report/", views.review_report, name="location-review-report"),
    path("api/v1/jobs/<uuid:job_id>/reviews", api.ReviewView.as_view(), name="api-location-review"),
    path("api/v1/location-models/", api.LocationModelListView.as_view(), name="api-location-models"),
    path("api/v1/inspect", api.InspectView.as_view(), name="api-inspect"),
    path("api/v1/inspect/report", api.InspectReportView.as_view(), name="api-inspect-report"),
    path("api/v1/inspect/batch", api.InspectBatchView.as_view(), name="api-inspect-batch"),
]
