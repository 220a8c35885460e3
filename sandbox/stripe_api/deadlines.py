"""What falls due as the sandbox's clock runs: an uncaptured hold lapses, an open session expires, a pending refund
settles. Each such object carries `due_at`; `catch_up()` does what is due.

When it is noticed: at the start of every API request and hosted-page visit, whenever the clock is moved (control
endpoint or admin action), and on `POST /_control/stripe/tick`. There is no timer thread: a hold whose 7 days run
out in real time lapses at the next request, with `canceled_at` the deadline itself.
"""

from __future__ import annotations

from django.db import transaction

from sandbox.stripe_api import clock, payments, refunds
from sandbox.stripe_api.models import StripeObject
from sandbox.stripe_api.webhooks import caused_by


def catch_up() -> int:
    """Do everything due by now; how many objects it changed."""
    moment = clock.now()
    if not StripeObject.objects.filter(due_at__lte=moment).exists():
        return 0
    done = 0
    # No API request caused these: their events carry `request.id` null, as Stripe's automatic ones do.
    with caused_by(None), transaction.atomic():
        for row in StripeObject.objects.select_for_update().filter(due_at__lte=moment).order_by("due_at"):
            if row.object == "payment_intent" and row.data["status"] == "requires_capture":
                payments.lapse(intent=row)
            elif row.object == "checkout.session" and row.data["status"] == "open":
                payments.expire(session=row)
            elif row.object == "refund" and row.data["status"] == "pending":
                refunds.settle(refund=row)
            else:  # no longer in the state that had a deadline (a session paid, say)
                row.due_at = None
                row.save_data()
                continue
            done += 1
    return done
