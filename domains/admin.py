"""Each feature keeps its admin beside its views and services; importing them here registers them."""

# Each feature keeps its admin beside its views and services; importing them registers them.
from domains.checkout import admin as checkout_admin  # noqa: F401
from domains.orders import admin as orders_admin  # noqa: F401
