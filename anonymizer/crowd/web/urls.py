from django.urls import path

from anonymizer.crowd.web import api, views

API_VIEWSETS = [("campaigns", api.CampaignViewSet, "api-campaign")]

urlpatterns = [
    path("p/<str:token>/", views.join, name="crowd-join"),
    path("p/<str:token>/task/", views.task, name="crowd-task"),
    path("p/<str:token>/catalog.js", views.js_catalog, name="crowd-js-catalog"),
    path("p/<str:token>/api/<str:action>", api.participant_api, name="crowd-api"),
    path("crowd/", views.campaign_list, name="campaign-list"),
    path("crowd/new/", views.campaign_new, name="campaign-new"),
    path("crowd/<uuid:campaign_id>/", views.campaign_detail, name="campaign-detail"),
    path("crowd/<uuid:campaign_id>/<str:action>/", views.campaign_action, name="campaign-action"),
    path("crowd/<uuid:campaign_id>/export/<str:what>.<str:fmt>", views.campaign_export, name="campaign-export"),
]
