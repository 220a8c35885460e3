"""The task queues, most urgent first (settings.TASKS names them; every @task names its own).

- paid: what a customer has paid for or is waiting on right now: registering and capturing a paid order,
  renewals, Stripe's events, collecting a payment.
- default: customer emails and short work a person notices (a signup linked at the provider, a checkout settled).
- bulk: work nobody waits for: the order sync, reminders, price and currency refreshes, reports, sweeps.

A worker takes from the first of its queues that has a task ready (storefront/background/worker.py), so paid work never
waits behind queued bulk work; the Procfile runs bulk work in processes of its own, so it never holds the worker that
paid work needs either (docs/operations.md "Queues and workers").
"""

PAID = "paid"
DEFAULT = "default"
BULK = "bulk"
QUEUES = (PAID, DEFAULT, BULK)
