from django.urls import path

from anonymizer.preferences.web import api, views

urlpatterns = [
    path("preferences/", views.preferences, name="preferences"),
    path("preferences/jobs/", views.preference_jobs, name="preference-jobs"),
    path("api/v1/preferences/model", api.PreferenceModelView.as_view(), name="api-preference-model"),
    path("api/v1/preferences/reports", api.PreferenceReportsView.as_view(), name="api-preference-reports"),
]
