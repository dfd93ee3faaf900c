from django.contrib import admin
from django.contrib.auth import views as auth_views
from django.urls import include, path
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerSplitView

from core import observability, rules_pages
from core import views as core_views

# The JSON API's routes, served once per version (core.api.versioning, docs/api-changelog.md).
API_URLS = [
    path("", include("tournament.api.urls")),
    path("", include("scoring.api.urls")),
    path("", include("brackets.api.urls")),
    path("", include("ratings.api.urls")),
    path("", include("live.api.urls")),
    path("", include("circuits.api.urls")),
    path("", include("notify.api.urls")),
]

urlpatterns = [
    path("healthz", core_views.healthz, name="healthz"),
    # Browsers ask for /favicon.ico where a response names no icon (the API's JSON): the
    # site's icon, not a 404 in every log.
    path("favicon.ico", core_views.favicon, name="favicon"),
    path("readyz", core_views.readyz, name="readyz"),
    # The referee page's service worker, at the root so it may control the pages (issue 15).
    path("sw.js", core_views.service_worker, name="service-worker"),
    path("metrics", observability.metrics_view, name="metrics"),
    path("i18n/", include("django.conf.urls.i18n")),
    path("rules/", rules_pages.rules_page, name="rules"),
    path("rules/referee-card/", rules_pages.referee_card, name="referee-card"),
    path("admin/", admin.site.urls),
    # Directors who are not staff sign in here (the admin login accepts staff only).
    path("accounts/login/", auth_views.LoginView.as_view(), name="login"),
    path("accounts/logout/", auth_views.LogoutView.as_view(), name="logout"),
    # One schema per API version (core.api.versioning); /api/schema/ is v1's, as /api/ is.
    path("api/schema/", SpectacularAPIView.as_view(api_version="v1"), name="api-schema"),
    path("api/docs/", SpectacularSwaggerSplitView.as_view(url_name="api-schema"), name="api-docs"),
    path("api/v1/schema/", SpectacularAPIView.as_view(api_version="v1"), name="api-schema-v1"),
    path("api/v2/schema/", SpectacularAPIView.as_view(api_version="v2"), name="api-schema-v2"),
    path(
        "api/v2/docs/",
        SpectacularSwaggerSplitView.as_view(url_name="api-schema-v2"),
        name="api-docs-v2",
    ),
    # Apps' URLs: the JSON API under /api/v1/ and /api/v2/ (namespaces "v1", "v2"), and under
    # /api/ as an alias of v1; pages at the root. Each app owns its urls modules.
    path("api/v1/", include((API_URLS, "v1"))),
    path("api/v2/", include((API_URLS, "v2"))),
    path("api/", include(API_URLS)),
    path("", include("tournament.urls")),
    path("", include("scoring.urls")),
    path("", include("brackets.urls")),
    path("", include("ratings.urls")),
    path("", include("live.urls")),
    path("", include("circuits.urls")),
    path("", include("notify.urls")),
    path("", include("archive.urls")),
    path("", core_views.home, name="home"),
]

handler403 = "tournament.views.permission_denied"
handler404 = "core.views.page_not_found"
handler500 = "core.views.server_error"
