"""The payment sandbox's state: Stripe's objects as the API shows them, requests it has answered, events it sends.

Objects are kept as the JSON the API answers with (their shape follows Stripe's own example objects), so that an
answer is exactly what was stored; the few fields the sandbox queries on are columns beside it.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models


class StripeObject(models.Model):
    """A Stripe object (checkout session, payment intent, charge, refund, dispute, ...) as the API answers with it."""

    id = models.CharField(primary_key=True, max_length=80)
    object = models.CharField(max_length=40, db_index=True)
    data = models.JSONField()
    # The secret key that created it: another key gets "No such ..." as from another Stripe account.
    api_key = models.CharField(max_length=120)
    # Payment intents only: the refunds and captures are checked against these (not in the API's shape).
    payment_intent = models.CharField(max_length=80, blank=True, db_index=True)
    # When something falls due for this object by the sandbox's clock (Unix seconds): an open session's expiry, an
    # uncaptured payment's capture deadline, a pending refund's settlement (sandbox/stripe_api/deadlines.py).
    due_at = models.BigIntegerField(null=True, blank=True, db_index=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["created_at"]

    def __str__(self) -> str:
        return self.id

    @classmethod
    def make(cls, data: dict, *, api_key: str, payment_intent: str = "", due_at: int | None = None) -> StripeObject:
        return cls.objects.create(
            id=data["id"],
            object=data["object"],
            data=data,
            api_key=api_key,
            payment_intent=payment_intent,
            due_at=due_at,
        )

    def save_data(self) -> None:
        self.save(update_fields=["data", "due_at"])


class _OneKind(models.Manager):
    def __init__(self, kind: str) -> None:
        super().__init__()
        self.kind = kind

    def get_queryset(self) -> models.QuerySet:
        return super().get_queryset().filter(object=self.kind)


# One admin list per kind of object (the admin's money actions work on these).
class PaymentIntent(StripeObject):
    objects = _OneKind("payment_intent")

    class Meta:
        proxy = True


class Charge(StripeObject):
    objects = _OneKind("charge")

    class Meta:
        proxy = True


class Refund(StripeObject):
    objects = _OneKind("refund")

    class Meta:
        proxy = True


class Dispute(StripeObject):
    objects = _OneKind("dispute")

    class Meta:
        proxy = True


class WebhookEndpoint(StripeObject):
    """The endpoints registered through the API (what a store's go-live check reads); staff may delete one here."""

    objects = _OneKind("webhook_endpoint")

    class Meta:
        proxy = True


class IdempotentAnswer(models.Model):
    """The first answer to a POST with an Idempotency-Key: a retry with the same key and parameters gets it again."""

    api_key = models.CharField(max_length=120)
    key = models.CharField(max_length=255)
    path = models.CharField(max_length=255)
    params = models.JSONField()
    status = models.PositiveSmallIntegerField()
    body = models.JSONField()
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["api_key", "key"], name="stripe_idempotency_key_once")]

    def __str__(self) -> str:
        return self.key


class ApiCall(models.Model):
    """Every API request answered, so that tests and staff can see e.g. that a payment was captured once."""

    method = models.CharField(max_length=8)
    path = models.CharField(max_length=255)
    status = models.PositiveSmallIntegerField()
    idempotency_key = models.CharField(max_length=255, blank=True)
    replayed = models.BooleanField(default=False)
    at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["pk"]

    def __str__(self) -> str:
        return f"{self.method} {self.path} {self.status}"


class Event(models.Model):
    """A webhook event, kept whether or not it was delivered (a test can read it signed and replay it)."""

    id = models.CharField(primary_key=True, max_length=80)
    type = models.CharField(max_length=80)
    data = models.JSONField()
    # The account (secret key) whose object it is about: GET /v1/events shows a key its own events only.
    api_key = models.CharField(max_length=120, blank=True, db_index=True)
    # `created` of the event, by the sandbox's clock (GET /v1/events filters on it).
    created = models.BigIntegerField(default=0)
    deliveries = models.PositiveIntegerField(default=0)
    last_delivery_status = models.PositiveSmallIntegerField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["created_at", "id"]

    def __str__(self) -> str:
        return f"{self.id} {self.type}"


class Delivery(models.TextChoices):
    NORMAL = "normal", "each event once, in order"
    DELAYED = "delayed", "after a delay"
    DUPLICATED = "duplicated", "each event twice"
    OUT_OF_ORDER = "out_of_order", "the events of one step in reverse order"
    NEVER = "never", "never sent"


class RefundFlow(models.TextChoices):
    INSTANT = "instant", "succeeded at once (as most card refunds)"
    PENDING = "pending", "pending, then succeeded"
    FAILS = "fails", "pending, then failed"


def _default_secret() -> str:
    return settings.SANDBOX_STRIPE_WEBHOOK_SECRET


class Setup(models.Model):
    """The payment sandbox's one row of settings and faults, switched by staff in the admin (or by tests)."""

    webhook_url = models.URLField(
        blank=True, help_text="Where events are POSTed; empty: SANDBOX_STRIPE_WEBHOOK_URL (bin/run sets it)."
    )
    webhook_secret = models.CharField(max_length=120, default=_default_secret, help_text="whsec_… to sign with.")
    webhook_delivery = models.CharField(max_length=20, choices=Delivery.choices, default=Delivery.NORMAL)
    webhook_delay_seconds = models.FloatField(default=3.0)
    decline_all_cards = models.BooleanField(default=False, help_text="Every card is declined, 4242 too.")
    api_error = models.BooleanField(default=False, help_text="Every API request answers 500.")
    timeout_after_capture = models.BooleanField(
        default=False, help_text="A capture is done, then its answer is held past any client's timeout."
    )
    timeout_seconds = models.FloatField(default=10.0)
    require_idempotency_keys = models.BooleanField(
        default=False,
        help_text="Every state-changing POST without an Idempotency-Key of the caller's own is refused (400 "
        "idempotency_error). The SDK's automatic keys do not count. A test aid, not something Stripe does.",
    )
    strict = models.BooleanField(
        default=False,
        help_text="Answer as Stripe does at the pinned API version only: a request made for another version "
        "(its Stripe-Version header) is refused, and so are parameters that earlier versions took "
        "(payment_method_types on Checkout Sessions).",
    )
    refund_flow = models.CharField(
        max_length=20,
        choices=RefundFlow.choices,
        default=RefundFlow.INSTANT,
        help_text="How a new refund goes: at once to succeeded, or pending until it settles (succeeded or failed).",
    )
    refund_settle_seconds = models.PositiveIntegerField(
        default=24 * 3600, help_text="Sandbox time from a pending refund to its outcome."
    )
    extended_authorization = models.BooleanField(
        default=False,
        help_text="Grant request_extended_authorization=if_available (30 days to capture). Stripe grants it only "
        "to accounts on IC+ pricing, so it is off by default.",
    )
    clock_offset_seconds = models.BigIntegerField(
        default=0,
        editable=False,
        help_text="How far the payment sandbox's clock runs ahead of real time (the 'Advance the clock' action).",
    )

    class Meta:
        verbose_name = "setup and faults"
        verbose_name_plural = "setup and faults"

    def __str__(self) -> str:
        return "Payment sandbox setup"

    @classmethod
    def current(cls) -> Setup:
        setup, _ = cls.objects.get_or_create(pk=1)
        return setup

    @property
    def endpoint(self) -> str:
        return self.webhook_url or settings.SANDBOX_STRIPE_WEBHOOK_URL
