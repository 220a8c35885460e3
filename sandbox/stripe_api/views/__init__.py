"""Stripe's API, the part the storefront uses, one module per resource; `base` holds what every endpoint shares."""
