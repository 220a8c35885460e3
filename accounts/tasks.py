"""The accounts app's background tasks. Account emails go through the outbox (storefront/outbox.py; the keyed
ones are rendered when sent, accounts/emails.py)."""

from __future__ import annotations

from django_tasks import task

from storefront.background import retry_later
from storefront.gateway import RateLimited, Unavailable


@task()
def provider_signup_retry(*, customer_pk: int, attempt: int = 1) -> bool:
    """The provider signup of a confirmed customer, again, after the provider was unavailable at confirmation.
    True once linked. Safe to run twice: the service does nothing for a linked customer."""
    from accounts.models import Customer
    from accounts.services import customer_provider_signup

    customer = Customer.objects.filter(pk=customer_pk, customer_id__isnull=True).first()
    if customer is None:
        return True
    try:
        return customer_provider_signup(customer=customer).customer_id is not None
    except (Unavailable, RateLimited):
        retry_later(provider_signup_retry, attempt=attempt, kwargs={"customer_pk": customer_pk})
        raise
