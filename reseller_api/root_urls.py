"""The URLconf of a request under /api/v1/ (reseller_api/middleware.py sets it as the request's `urlconf`): the API,
then the whole site's.

The site's URLs are here too because, while a request is served, Django resolves and reverses with the request's
URLconf only: an unknown /api/v1/ path's 404 page is the site's template (its header links to the home page, the
search, the cart), and anything the API's operations call that names a page must still find it.
"""

from django.urls import include, path

# Django reads the error handlers from the top module of the URLconf a request was served with: the root's
# (storefront/urls.py: a database unreachable for a moment is a 503, not a 500), named by path as `include` names it.
handler500 = "storefront.views.server_error"

urlpatterns = [
    # The staff API, with API keys only (docs/api.md).
    path("api/v1/", include("reseller_api.urls")),
    path("", include("storefront.urls")),
]
