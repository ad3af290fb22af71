from django.urls import path

from anonymizer.temporal.web import views

urlpatterns = [
    path("temporal/<uuid:upload_id>/remove-time/", views.remove_time, name="temporal-remove-time"),
    path("temporal/<uuid:upload_id>/patterns/", views.learn_patterns, name="temporal-learn-patterns"),
]
