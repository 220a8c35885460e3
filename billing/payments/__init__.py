"""Payments at Stripe: starting, settling and capturing them, saved cards, collection of what lapsed, refunds, disputes,
the webhook's events and endpoint, reconciling. The only code that calls Stripe (stripe_client.py)."""
