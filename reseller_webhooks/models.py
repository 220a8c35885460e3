"""Endpoints staff add, the events the store emits, and one delivery of an event to each endpoint subscribed."""

from __future__ import annotations

import secrets
import uuid

from django.db import models


def secret_make() -> str:
    """A signing secret: 32 random bytes, prefixed so it is recognisable where it is pasted."""
    return "whsec_" + secrets.token_urlsafe(32)


def event_public_id() -> str:
    return "evt_" + uuid.uuid4().hex


class Endpoint(models.Model):
    """Where the reseller's system listens. The secret signs every delivery (HMAC needs it in clear, so it is kept,
    not hashed): it is shown once when the endpoint is made or its secret renewed, and masked everywhere else."""

    url = models.URLField("URL", max_length=500)
    description = models.CharField(max_length=200, blank=True)
    events = models.JSONField(default=list, help_text="The event types sent to this endpoint.")
    secret = models.CharField(max_length=100, default=secret_make, editable=False)
    active = models.BooleanField(
        default=True,
        help_text="Off: nothing is sent (the worker turns it off after a day "
        "of failures; tick it again once the endpoint answers).",
    )
    created_at = models.DateTimeField(auto_now_add=True)
    # The first failure since the last success: a day of failures disables the endpoint.
    failing_since = models.DateTimeField(null=True, blank=True)
    disabled_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["url"]

    def __str__(self) -> str:
        return self.url

    @property
    def secret_hint(self) -> str:
        return f"whsec_…{self.secret[-4:]}"


class Event(models.Model):
    """Something that happened, as sent: its body is made from these fields, the same for every endpoint. Kept only
    when an endpoint was subscribed to its type when it happened."""

    public_id = models.CharField(max_length=40, unique=True, default=event_public_id)
    # What makes the event once: a replayed Stripe event, a second worker or a retried task emits nothing new.
    key = models.CharField(max_length=200, unique=True)
    type = models.CharField(max_length=40, db_index=True)
    created_at = models.DateTimeField()
    data = models.JSONField(default=dict)

    class Meta:
        ordering = ["-created_at", "-pk"]

    def __str__(self) -> str:
        return f"{self.type} {self.public_id}"


class Delivery(models.Model):
    class Status(models.TextChoices):
        PENDING = "pending", "Pending"
        DELIVERED = "delivered", "Delivered"
        GIVEN_UP = "given_up", "Given up"

    event = models.ForeignKey(Event, on_delete=models.CASCADE, related_name="deliveries")
    endpoint = models.ForeignKey(Endpoint, on_delete=models.CASCADE, related_name="deliveries")
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.PENDING, db_index=True)
    attempts = models.PositiveIntegerField(default=0)
    created_at = models.DateTimeField()
    # Retries stop once the next would come later than a day after this (a "send again" starts a new day).
    retry_until = models.DateTimeField()
    next_attempt_at = models.DateTimeField(null=True, blank=True, db_index=True)
    last_attempt_at = models.DateTimeField(null=True, blank=True)
    response_code = models.PositiveSmallIntegerField(null=True, blank=True)
    last_error = models.CharField(max_length=300, blank=True)
    delivered_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at", "-pk"]
        verbose_name_plural = "deliveries"
        constraints = [models.UniqueConstraint(fields=["event", "endpoint"], name="delivery_once_per_endpoint")]

    def __str__(self) -> str:
        return f"{self.event.type} to {self.endpoint.url}"
