"""The money flows' figures on /metrics (storefront/observability/metrics.py), read from the database at each scrape."""

from __future__ import annotations

from billing.payments.services import payments_needing_attention
from domains.models import Registration
from storefront.observability.metrics import scrape_gauge


def metrics_register() -> None:
    scrape_gauge(
        "storefront_payments_needing_attention",
        "Payments staff should look at (flagged, or authorised and not settled after a while).",
        lambda: payments_needing_attention().count(),
    )
    scrape_gauge(
        "storefront_registrations_unknown",
        "Registrations whose outcome is not known yet (the answer was lost; reconciled from the order listing).",
        lambda: Registration.objects.filter(status=Registration.Status.UNKNOWN).count(),
    )
