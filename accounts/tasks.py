"""The accounts app's background tasks: password-reset emails, sent by the worker instead of the request.

The task is given the user's id and the site's host, never the reset link: task arguments are stored in the
database and shown in the admin, and a reset link there would let anyone who can read it take the account.
The worker makes the token itself, when it sends.
"""

from __future__ import annotations

from django.contrib.auth import get_user_model
from django.contrib.auth.forms import PasswordResetForm
from django.contrib.auth.tokens import default_token_generator
from django.utils.encoding import force_bytes
from django.utils.http import urlsafe_base64_encode
from django_tasks import task

from storefront.background import retry_later

SUBJECT_TEMPLATE = "registration/password_reset_subject.txt"
BODY_TEMPLATE = "registration/password_reset_email.html"


@task()
def send_password_reset_email(*, user_id: int, domain: str, protocol: str, attempt: int = 1) -> bool:
    """Email a reset link to this user if they may still reset their password. True if sent."""
    user = get_user_model().objects.filter(pk=user_id, is_active=True).first()
    if user is None or not user.has_usable_password() or not user.email:
        return False
    context = {
        "email": user.email,
        "domain": domain,
        "site_name": domain,
        "uid": urlsafe_base64_encode(force_bytes(user.pk)),
        "user": user,
        "token": default_token_generator.make_token(user),
        "protocol": protocol,
    }
    try:
        PasswordResetForm().send_mail(SUBJECT_TEMPLATE, BODY_TEMPLATE, context, None, user.email)
    except Exception:
        retry_later(
            send_password_reset_email,
            attempt=attempt,
            kwargs={"user_id": user_id, "domain": domain, "protocol": protocol},
        )
        raise
    return True
