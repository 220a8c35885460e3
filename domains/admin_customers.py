"""The customer's domains, shown inside the Customer admin.

The inline belongs to this app (it shows our model); it joins the customer page by extending accounts'
CustomerAdmin, because accounts, the lower layer, must not import domains.
"""

from __future__ import annotations

from django.contrib import admin
from django.http import HttpRequest

from accounts.admin import CustomerAdmin
from accounts.models import Customer
from domains.models import Order


class OrderInline(admin.TabularInline):
    model = Order
    fk_name = "customer"
    fields = ("order_id", "domain_name", "status", "expires_at", "dns_active", "last_synced_at")
    readonly_fields = fields
    extra = 0
    can_delete = False
    show_change_link = True
    ordering = ("expires_at", "domain_name")

    def has_add_permission(self, request: HttpRequest, obj: Customer | None = None) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Customer | None = None) -> bool:
        return False


class CustomerWithOrdersAdmin(CustomerAdmin):
    inlines = (*CustomerAdmin.inlines, OrderInline)


admin.site.unregister(Customer)
admin.site.register(Customer, CustomerWithOrdersAdmin)
