# The admin of this app lives in two modules, one per model family; importing them registers them.
from domains import admin_orders, admin_registrations  # noqa: F401
