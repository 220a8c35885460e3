"""`/accounts/`: our signup (the provider's rules) and the panel hand-off; allauth's views under their old names.

Sign-in, sign-out, password change and reset, address confirmation, re-authentication and two-factor are
allauth's (included after these in storefront/urls.py). The old names (`login`, `logout`, `password_change`,
`password_reset`) point at allauth's views at the same paths, so links and `LOGIN_URL` keep working; the old
reset-link path redirects to the reset form (its links were single-use and short-lived anyway).
"""

from allauth.account import views as allauth_views
from allauth.mfa.recovery_codes import views as recovery_code_views
from allauth.mfa.totp import views as totp_views
from django.urls import path, re_path
from django.views.decorators.cache import never_cache
from django.views.generic import RedirectView

from accounts import views
from accounts.staff import acting
from storefront.requests.acting_rules import acting_allowed, acting_refused

urlpatterns = [
    path("signup/", views.signup, name="signup"),
    path("signup/states/", views.signup_states, name="signup_states"),
    path("signup/spelling/", views.records_preview, name="records_preview"),
    path("login/", acting_allowed(allauth_views.login), name="login"),
    path("logout/", acting_allowed(allauth_views.logout), name="logout"),
    path("password/change/", acting_refused(allauth_views.password_change), name="password_change"),
    path("password/reset/", acting_refused(allauth_views.password_reset), name="password_reset"),
    # Django's old reset links (not allauth's `key/…` ones, included later).
    re_path(
        r"^password/reset/(?!key/)[^/]+/[^/]+/$",
        acting_allowed(RedirectView.as_view(url="/accounts/password/reset/", permanent=False)),
        name="password_reset_confirm_old",
    ),
    # Re-authentication takes the password and the code together (accounts.forms): the code alone is not offered.
    path(
        "2fa/reauthenticate/",
        acting_allowed(RedirectView.as_view(pattern_name="account_reauthenticate", query_string=True)),
    ),
    # allauth's pages that show a secret (the authenticator's setup key and QR code, the recovery codes), at their
    # own paths and names, never kept by a browser's or a proxy's cache (`Cache-Control: no-store`).
    path("2fa/totp/activate/", acting_refused(never_cache(totp_views.activate_totp)), name="mfa_activate_totp"),
    path(
        "2fa/recovery-codes/",
        acting_refused(never_cache(recovery_code_views.view_recovery_codes)),
        name="mfa_view_recovery_codes",
    ),
    path(
        "2fa/recovery-codes/generate/",
        acting_refused(never_cache(recovery_code_views.generate_recovery_codes)),
        name="mfa_generate_recovery_codes",
    ),
    path(
        "2fa/recovery-codes/download/",
        acting_refused(never_cache(recovery_code_views.download_recovery_codes)),
        name="mfa_download_recovery_codes",
    ),
    path("panel/", views.panel, name="panel"),
    path("export/", views.account_export, name="account_export"),
    path("delete/", views.account_delete, name="account_delete"),
    # Staff acting as a customer (django-hijack's views, accounts/staff/acting.py).
    path("act-as/start/", acting.act_as_start, name="act_as_start"),
    path("act-as/stop/", acting.act_as_stop, name="act_as_stop"),
]
