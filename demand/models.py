"""How often customers reached for each missing feature, who asked to be told, and what the store last saw
available. Nothing personal beyond the customer's account: a count, a TLD, a month."""

from __future__ import annotations

from django.db import models

from accounts.models import Customer


class DemandCount(models.Model):
    """One customer's reaches for one feature on one TLD in one month (TLD empty: not about a domain), counted once a
    day: a reload, or the page again after ticking "email me", is not another ask."""

    month = models.DateField(help_text="The first day of the month.")
    # Kept when the account is deleted (the month's totals stay true), without saying whose it was. A reverse
    # name, so the customer's data export (accounts/privacy.py) includes their rows.
    customer = models.ForeignKey(
        Customer, on_delete=models.SET_NULL, null=True, blank=True, related_name="demand_counts"
    )
    tld = models.CharField("TLD", max_length=63, blank=True)
    feature = models.CharField(max_length=40)
    count = models.PositiveIntegerField(default=0, help_text="Days of the month the customer asked.")
    last_day = models.DateField()

    class Meta:
        ordering = ["-month", "feature", "tld"]
        constraints = [
            models.UniqueConstraint(fields=["month", "customer", "tld", "feature"], name="demand_count_once"),
        ]

    def __str__(self) -> str:
        return f"{self.feature} .{self.tld} {self.month:%Y-%m}: {self.count}"


class DemandSubscription(models.Model):
    """A customer's "email me when this arrives", sent once (`notified_at`)."""

    customer = models.ForeignKey(Customer, on_delete=models.CASCADE, related_name="demand_subscriptions")
    feature = models.CharField(max_length=40)
    created_at = models.DateTimeField(auto_now_add=True)
    notified_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at"]
        constraints = [models.UniqueConstraint(fields=["customer", "feature"], name="demand_subscription_once")]

    def __str__(self) -> str:
        return f"{self.feature}: customer {self.customer_id}"


class FeatureState(models.Model):
    """Whether a feature was available when the store last looked: the job compares the settings with this."""

    feature = models.CharField(max_length=40, primary_key=True)
    available = models.BooleanField(default=False)
    changed_at = models.DateTimeField()

    def __str__(self) -> str:
        return f"{self.feature}: {'available' if self.available else 'not available'}"
