"""Every route of the app: the platform's and each capability's own (``<capability>/web/urls.py``), and one REST
router for the viewsets they declare."""

from django.urls import include, path
from rest_framework.routers import DefaultRouter

from anonymizer.crowd.web import urls as crowd_urls
from anonymizer.kanon.web import urls as kanon_urls
from anonymizer.location.web import urls as location_urls
from anonymizer.platform import urls as platform_urls
from anonymizer.preferences.web import urls as preference_urls
from anonymizer.tabular.web import urls as tabular_urls
from anonymizer.temporal.web import urls as temporal_urls

router = DefaultRouter()
for prefix, viewset, basename in platform_urls.API_VIEWSETS + crowd_urls.API_VIEWSETS:
    router.register(prefix, viewset, basename=basename)

urlpatterns = [
    *platform_urls.urlpatterns,
    *location_urls.urlpatterns,
    *tabular_urls.urlpatterns,
    *kanon_urls.urlpatterns,
    *temporal_urls.urlpatterns,
    *crowd_urls.urlpatterns,
    *preference_urls.urlpatterns,
    path("api/v1/", include(router.urls)),
]
