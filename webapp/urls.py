from csp.decorators import csp_update
from django.contrib import admin
from django.contrib.auth import views as auth_views
from django.urls import include, path
from drf_spectacular.views import SpectacularAPIView, SpectacularRedocView, SpectacularSwaggerSplitView

from anonymizer.platform import accounts
from anonymizer.platform.api import ObtainTokenView

_DOCS_CSP = csp_update({"style-src": ["'unsafe-inline'"], "worker-src": ["blob:"]})

urlpatterns = [
    path("accounts/login/", auth_views.LoginView.as_view(), name="login"),
    path("accounts/logout/", auth_views.LogoutView.as_view(), name="logout"),
    path("accounts/", accounts.account, name="account"),
    path("accounts/password/", accounts.PasswordChangeView.as_view(), name="password_change"),
    path("accounts/password/done/", auth_views.PasswordChangeDoneView.as_view(), name="password_change_done"),
    path("accounts/delete/", accounts.account_delete, name="account-delete"),
    path("api/v1/auth/token/", ObtainTokenView.as_view(), name="api-obtain-token"),
    path("api/v1/schema/", SpectacularAPIView.as_view(), name="api-schema"),
    # The split view serves Swagger UI's start-up script from a URL, so the page needs no inline script; the
    # bundled UIs insert <style> elements (and ReDoc starts a blob: worker), which the strict policy would stop.
    path("api/v1/docs/", _DOCS_CSP(SpectacularSwaggerSplitView.as_view(url_name="api-schema")), name="api-docs"),
    path("api/v1/redoc/", _DOCS_CSP(SpectacularRedocView.as_view(url_name="api-schema")), name="api-redoc"),
    path("admin/", admin.site.urls),
    path("", include("anonymizer.urls")),
]
