# The admin of this app lives in one module per model family; importing them registers them.
from domains import admin_customers, admin_legal, admin_orders, admin_registrations, admin_renewals  # noqa: F401
