"""The accounts app's background tasks: linking a confirmed customer to the provider until it is done (or staff are
told). Account emails go through the outbox (storefront/background/outbox.py; the keyed ones are rendered when sent,
accounts/signup/emails.py)."""

from __future__ import annotations

import logging

from django_tasks import task

from storefront.background.retries import retry_later
from storefront.background.scheduler import job_schedule
from storefront.gateway import RateLimited, Unavailable
from storefront.queues import DEFAULT

logger = logging.getLogger(__name__)


@task(queue_name=DEFAULT)
def provider_signup_retry(*, customer_pk: int, attempt: int = 1) -> bool:
    """The provider signup of a confirmed customer, again, after the provider was unavailable at confirmation or its
    answer was lost. True once linked. Safe to run twice: the service does nothing for a linked customer, and sends
    nothing while another attempt is in flight. After the last automatic retry, `link_provider_customers` (every
    few minutes) goes on trying, and staff see the customer in their alerts."""
    from accounts.models import Customer
    from accounts.signup.services import SignupPending, customer_provider_signup

    customer = Customer.objects.filter(pk=customer_pk, customer_id__isnull=True).first()
    if customer is None:
        return True
    try:
        linked = customer_provider_signup(customer=customer).customer_id is not None
    except (Unavailable, RateLimited, SignupPending):
        linked = False
    if not linked:
        retry_later(provider_signup_retry, attempt=attempt, kwargs={"customer_pk": customer_pk})
    return linked


@task(queue_name=DEFAULT)
def link_provider_customers() -> dict[str, int]:
    """Every confirmed customer still not linked to the provider, tried again (a provider outage longer than the
    retries of `provider_signup_retry`, a retry that was never enqueued). A failure of one stops none of the others."""
    from accounts.signup.services import SignupError, customer_provider_signup, customers_awaiting_provider
    from storefront.gateway import GatewayError

    counts = {"linked": 0, "waiting": 0}
    for customer in customers_awaiting_provider():
        try:
            linked = customer_provider_signup(customer=customer).customer_id is not None
        except (GatewayError, SignupError) as err:
            logger.warning("linking customer %s to the provider: %s", customer.pk, type(err).__name__)
            linked = False
        counts["linked" if linked else "waiting"] += 1
    return counts


job_schedule("link-provider-customers", "*/10 * * * *", link_provider_customers)
