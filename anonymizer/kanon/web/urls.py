from django.urls import path

from anonymizer.kanon.web import views

urlpatterns = [
    path("kanon/<uuid:upload_id>/configure/", views.configure, name="kanon-configure"),
    path("kanon/<uuid:upload_id>/runs/", views.compare, name="kanon-compare"),
]
