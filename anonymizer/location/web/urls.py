from django.urls import path

from anonymizer.location.web import api, views

urlpatterns = [
    path("", views.home, name="home"),
    path("models/<uuid:version_id>/use/", views.use_model_version, name="model-use"),
    path("uploads/<uuid:upload_id>/deidentify/", views.deidentify_posts, name="location-deidentify-posts"),
    path("api/v1/location-models/", api.LocationModelListView.as_view(), name="api-location-models"),
    path("api/v1/inspect", api.InspectView.as_view(), name="api-inspect"),
    path("api/v1/inspect/report", api.InspectReportView.as_view(), name="api-inspect-report"),
    path("api/v1/inspect/batch", api.InspectBatchView.as_view(), name="api-inspect-batch"),
]
