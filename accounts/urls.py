from django.contrib.auth import views as auth_views
from django.urls import path

from accounts import views
from accounts.forms import CustomerPasswordChangeForm, CustomerSetPasswordForm, QueuedPasswordResetForm

urlpatterns = [
    path("signup/", views.signup, name="signup"),
    path("signup/states/", views.signup_states, name="signup_states"),
    path("login/", views.login, name="login"),
    path("logout/", views.SignOutView.as_view(), name="logout"),
    path(
        "password/change/",
        auth_views.PasswordChangeView.as_view(form_class=CustomerPasswordChangeForm),
        name="password_change",
    ),
    path("password/change/done/", auth_views.PasswordChangeDoneView.as_view(), name="password_change_done"),
    path(
        "password/reset/",
        auth_views.PasswordResetView.as_view(form_class=QueuedPasswordResetForm),
        name="password_reset",
    ),
    path("password/reset/done/", auth_views.PasswordResetDoneView.as_view(), name="password_reset_done"),
    path(
        "password/reset/<uidb64>/<token>/",
        auth_views.PasswordResetConfirmView.as_view(form_class=CustomerSetPasswordForm),
        name="password_reset_confirm",
    ),
    path("password/reset/complete/", auth_views.PasswordResetCompleteView.as_view(), name="password_reset_complete"),
    path("panel/", views.panel, name="panel"),
]
