from django.urls import path

from anonymizer.tabular.web import views

urlpatterns = [
    path("jobs/new/profile/", views.profile_new, name="profile-new"),
]
