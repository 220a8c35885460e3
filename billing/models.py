"""Payments (authorise → register → capture), their lines, the ledger of every money movement, Stripe's webhook
events as received, receipts and credit notes.

Money is Decimal in the payment's currency; Stripe's integer minor units are converted at the boundary
(billing/payments/stripe_client.py). Every state change is a conditional update or happens under the payment's row lock,
so a second door (the return after paying, the webhook, a replay) finds the work done and changes nothing.
"""

from __future__ import annotations

from decimal import Decimal

from django.db import models

from accounts.models import Customer
from pricing.money import Money


class PaymentQuerySet(models.QuerySet["Payment"]):
    def for_intent(self, intent_id: str | None) -> Payment | None:
        """The payment a Stripe payment intent belongs to: its authorisation, or the one that collected it."""
        if not intent_id:
            return None
        return self.filter(
            models.Q(stripe_payment_intent_id=intent_id) | models.Q(collection_intent_id=intent_id)
        ).first()

    def for_session(self, session_id: str | None) -> Payment | None:
        """The payment a Checkout Session belongs to: its checkout's, or its payment link's."""
        if not session_id:
            return None
        return self.filter(models.Q(stripe_session_id=session_id) | models.Q(collection_session_id=session_id)).first()


class Payment(models.Model):
    class Status(models.TextChoices):
        CREATED = "created", "Created (waiting for the customer to pay)"
        AUTHORISED = "authorised", "Authorised (registering, not captured yet)"
        CAPTURED = "captured", "Captured"
        PARTIALLY_CAPTURED = "partially_captured", "Partially captured (the rest released)"
        CANCELLED = "cancelled", "Cancelled (nothing captured)"
        REFUNDED = "refunded", "Refunded"
        # The authorisation lapsed (or was cancelled at Stripe) after lines were registered: collected on the saved
        # card or through a payment link (then captured), or written off by staff.
        UNPAID = "unpaid", "Registered, not paid (the hold lapsed)"
        WRITTEN_OFF = "written_off", "Written off (registered, never paid)"

    FINAL = (Status.CAPTURED, Status.PARTIALLY_CAPTURED, Status.CANCELLED, Status.REFUNDED, Status.WRITTEN_OFF)
    # Past authorise-register-capture: nothing for the settle step to do (an unpaid one is being collected).
    SETTLED = (*FINAL, Status.UNPAID)

    customer = models.ForeignKey(Customer, on_delete=models.PROTECT, related_name="payments")
    # The checkout that this payment pays for: one payment per checkout, whatever the number of clicks.
    checkout_id = models.UUIDField(unique=True)
    status = models.CharField(max_length=20, choices=Status.choices, default=Status.CREATED, db_index=True)
    currency = models.CharField(max_length=3)
    # Units of `currency` per unit of the store's currency when the payment was made (1 in the store's currency):
    # the revenue report converts the payment back to the store's currency at it, whatever the rate is today.
    # Empty: a currency the store did not offer then (no rate known); the report lists it unconverted.
    rate = models.DecimalField(max_digits=18, decimal_places=6, null=True, blank=True, default=Decimal(1))
    amount = models.DecimalField(
        max_digits=12, decimal_places=2, help_text="What the customer is charged: the lines and their tax."
    )
    amount_authorised = models.DecimalField(max_digits=12, decimal_places=2, default=0)
    amount_captured = models.DecimalField(max_digits=12, decimal_places=2, default=0)
    amount_refunded = models.DecimalField(max_digits=12, decimal_places=2, default=0)
    stripe_session_id = models.CharField(max_length=255, unique=True, null=True, blank=True)
    stripe_payment_intent_id = models.CharField(max_length=255, blank=True, db_index=True)
    # Set by whoever claimed the capture (or release) call; a claim older than a few minutes may be taken over.
    capture_started_at = models.DateTimeField(null=True, blank=True)
    needs_attention = models.BooleanField(default=False, db_index=True)
    attention_reason = models.TextField(blank=True)
    # Off-session charges (auto-renew) only: Stripe's code for a refused charge (card_declined,
    # authentication_required, ...), so the customer can be told what to do. Nothing was charged.
    failure_code = models.CharField(max_length=64, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)
    settled_at = models.DateTimeField(null=True, blank=True)
    # When staff were mailed that this payment's authorisation is about to expire (once per payment).
    expiry_alerted_at = models.DateTimeField(null=True, blank=True)
    # Stripe's deadline to capture the authorisation, read from its charge
    # (`payment_method_details.card.capture_before`); the hold lapses then.
    capture_before = models.DateTimeField(null=True, blank=True, db_index=True)
    # When the reconciler last asked Stripe about this payment (it asks less often as a payment ages).
    checked_at = models.DateTimeField(null=True, blank=True)
    # Registered, not paid: when the hold lapsed; the one attempt on the saved card; the Checkout Session of the
    # payment link (one open at a time) and the payment intent that collected it; a write-off by staff.
    unpaid_since = models.DateTimeField(null=True, blank=True)
    collection_card_tried_at = models.DateTimeField(null=True, blank=True)
    collection_failure_code = models.CharField(max_length=64, blank=True)
    collection_session_id = models.CharField(max_length=255, unique=True, null=True, blank=True)
    collection_intent_id = models.CharField(max_length=255, blank=True, db_index=True)
    written_off_at = models.DateTimeField(null=True, blank=True)
    written_off_by = models.CharField(max_length=150, blank=True)
    # Tax (pricing/tax.py), as it stood when the payment was made: the store's registration and the customer's VAT
    # number are printed on its receipt and credit notes. `amount` is the total charged, tax included.
    seller_tax_id = models.CharField(max_length=32, blank=True)
    seller_tax_name = models.CharField(max_length=255, blank=True)
    buyer_tax_number = models.CharField(max_length=32, blank=True)
    tax_country = models.CharField(max_length=2, blank=True, help_text="The customer's country tax was charged for.")
    # Whether the lines' prices held their tax (settings.PRICES_INCLUDE_TAX when the payment was made).
    tax_inclusive = models.BooleanField(default=False)
    # Charged VAT only because VIES could not confirm the buyer's VAT number (with it, the sale is reverse charged):
    # the VAT is refunded once the number is confirmed (staff: the "VAT to refund" filter).
    vat_refund_due = models.BooleanField("VAT to refund", default=False, db_index=True)

    objects = PaymentQuerySet.as_manager()

    class Meta:
        ordering = ["-created_at"]
        constraints = [
            models.CheckConstraint(
                condition=models.Q(amount_captured__lte=models.F("amount_authorised")),
                name="payment_captures_at_most_what_was_authorised",
            ),
            models.CheckConstraint(
                condition=models.Q(amount_refunded__lte=models.F("amount_captured")),
                name="payment_refunds_at_most_what_was_captured",
            ),
        ]

    def __str__(self) -> str:
        return f"Payment {self.pk} ({self.get_status_display()}, {self.amount} {self.currency})"

    @property
    def is_settled(self) -> bool:
        return self.status in self.SETTLED

    @property
    def charged_intent_id(self) -> str:
        """The payment intent that took the money: the payment link's when it collected a lapsed hold."""
        return self.collection_intent_id or self.stripe_payment_intent_id

    @property
    def unpaid_total(self) -> Money:
        """What a registered-unpaid payment still owes: its registered lines."""
        registered = self.lines.filter(status=PaymentLine.Status.REGISTERED)
        return Money(sum((line.gross_amount for line in registered), Decimal(0)), self.currency)

    @property
    def tax_total(self) -> Money:
        return Money(sum((line.tax_amount for line in self.lines.all()), Decimal(0)), self.currency)

    @property
    def reverse_charge(self) -> bool:
        return any(line.reverse_charge for line in self.lines.all())

    @property
    def refunded(self) -> Money:
        return Money(self.amount_refunded, self.currency)

    @property
    def receipt(self) -> Document | None:
        """The payment's receipt, once it was captured."""
        return self.documents.filter(kind=Document.Kind.RECEIPT).first()


class SaleCause(models.TextChoices):
    """Why a line was sold: what the ledger and the revenue report group money movements by."""

    REGISTRATION = "registration", "Registration"
    RENEWAL = "renewal", "Renewal"
    AUTO_RENEWAL = "auto_renewal", "Auto-renewal"
    PRIVACY = "privacy", "WHOIS privacy"


class PaymentLine(models.Model):
    class Status(models.TextChoices):
        PENDING = "pending", "Pending"
        REGISTERING = "registering", "Registering"
        REGISTERED = "registered", "Registered"
        FAILED = "failed", "Failed (not charged)"
        UNKNOWN = "unknown", "Unknown (held until reconciled)"
        REFUNDED = "refunded", "Refunded"

    payment = models.ForeignKey(Payment, on_delete=models.CASCADE, related_name="lines")
    position = models.PositiveSmallIntegerField()
    # What the registering side knows the line by (the domain name for a domain line).
    reference = models.CharField(max_length=255)
    description = models.CharField(max_length=255)
    amount = models.DecimalField(max_digits=12, decimal_places=2)
    details = models.JSONField(default=dict, blank=True)
    cause = models.CharField(max_length=16, choices=SaleCause.choices, default=SaleCause.REGISTRATION)
    tld = models.CharField(max_length=63, blank=True, help_text="The TLD sold, for the revenue report.")
    # What the line costs us (the provider's price, in the payment's currency), as the delivering side recorded it
    # when it registered or renewed; the quote's cost until then. Empty when unknown.
    cost = models.DecimalField(max_digits=12, decimal_places=2, null=True, blank=True)
    # A promotion's part (pricing.promotions): the price before it and what it took off; `amount` is what is
    # charged, after it. Empty for a line bought without a code.
    list_amount = models.DecimalField(max_digits=12, decimal_places=2, null=True, blank=True)
    discount = models.DecimalField(max_digits=12, decimal_places=2, null=True, blank=True)
    promotion = models.ForeignKey(
        "pricing.Promotion", on_delete=models.PROTECT, null=True, blank=True, related_name="payment_lines"
    )
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.PENDING, db_index=True)
    # Set when a door claimed the line for registration; a claim older than a few minutes may be taken over.
    claimed_at = models.DateTimeField(null=True, blank=True)
    # What the registering side answered with (e.g. its registration's id), for staff.
    registration_ref = models.CharField(max_length=255, blank=True)
    stripe_refund_id = models.CharField(max_length=255, blank=True)
    refunded_at = models.DateTimeField(null=True, blank=True)
    # Tax charged on `amount` (which is before tax), computed by pricing/tax.py when the payment was made; the
    # customer pays `gross_amount`. Reverse-charged lines carry 0 and the flag.
    tax_amount = models.DecimalField(max_digits=12, decimal_places=2, default=0)
    tax_rate = models.DecimalField(max_digits=6, decimal_places=3, default=0, help_text="Percent.")
    tax_label = models.CharField(max_length=32, blank=True)
    reverse_charge = models.BooleanField(default=False)

    class Meta:
        ordering = ["payment", "position"]
        constraints = [
            models.UniqueConstraint(fields=["payment", "reference"], name="one_line_per_payment_reference"),
        ]

    def __str__(self) -> str:
        return f"{self.description} ({self.amount})"

    @property
    def price(self) -> Money:
        return Money(self.amount, self.payment.currency)

    @property
    def list_price(self) -> Money | None:
        return Money(self.list_amount, self.payment.currency) if self.list_amount is not None else None

    @property
    def discount_money(self) -> Money | None:
        return Money(self.discount, self.payment.currency) if self.discount else None

    @property
    def gross_amount(self) -> Decimal:
        """What the customer is charged for the line: its amount and its tax."""
        return self.amount + self.tax_amount

    @property
    def tax(self) -> Money:
        return Money(self.tax_amount, self.payment.currency)

    @property
    def gross(self) -> Money:
        return Money(self.gross_amount, self.payment.currency)


class LedgerEntry(models.Model):
    """One money movement of one paid line, as the payment service made it: the store's books.

    `amount` is signed, in `currency`: money received is positive (a capture, a dispute's funds reinstated),
    money given back is negative (a refund, a dispute's funds withdrawn). A refund that fails after it was booked
    is booked back as a positive refund row. A write-off moves no money (`amount` 0): `written_off` is what will
    not be collected. `cost` is what the line cost us, booked once with its capture (or its write-off); empty when
    unknown. `source_id` is the payment service's object (charge, refund, dispute) or, for a write-off, ours:
    with the kind and the line it is unique, so a replayed event never books twice. Written in the same
    transaction as the state change it records; read by billing.ledger.books (the revenue report, issues 31 and 32).
    """

    class Kind(models.TextChoices):
        CAPTURE = "capture", "Capture"
        REFUND = "refund", "Refund"
        DISPUTE_WITHDRAWAL = "dispute_withdrawal", "Dispute: funds withdrawn"
        DISPUTE_REINSTATEMENT = "dispute_reinstatement", "Dispute: funds reinstated"
        WRITE_OFF = "write_off", "Write-off"
        FEE = "fee", "Payment service's fee"

    kind = models.CharField(max_length=24, choices=Kind.choices)
    cause = models.CharField(max_length=16, choices=SaleCause.choices)
    amount = models.DecimalField(max_digits=12, decimal_places=2)
    currency = models.CharField(max_length=3)
    written_off = models.DecimalField(max_digits=12, decimal_places=2, default=0)
    cost = models.DecimalField(max_digits=12, decimal_places=2, null=True, blank=True)
    tld = models.CharField(max_length=63, blank=True)
    # The part of `amount` (or of `written_off`) that is tax collected for the state, not revenue (signed as amount).
    tax = models.DecimalField(max_digits=12, decimal_places=2, default=0)
    # A fee entry (kind FEE, `amount` 0: the customer's money is not moved by it) holds what the payment service kept
    # of one balance transaction (its `source_id`) in `fee`: positive when it took a fee, negative when it gave one
    # back. Every other kind leaves it 0.
    fee = models.DecimalField(max_digits=12, decimal_places=2, default=0)
    payment = models.ForeignKey(Payment, on_delete=models.PROTECT, related_name="ledger_entries")
    line = models.ForeignKey(PaymentLine, on_delete=models.PROTECT, related_name="ledger_entries")
    source_id = models.CharField(max_length=255)
    occurred_at = models.DateTimeField(db_index=True, help_text="When the payment service made the movement.")
    recorded_at = models.DateTimeField(auto_now_add=True)
    note = models.CharField(max_length=255, blank=True)

    class Meta:
        ordering = ["occurred_at", "pk"]
        verbose_name_plural = "ledger entries"
        constraints = [
            models.UniqueConstraint(fields=["kind", "source_id", "line"], name="one_ledger_entry_per_source_and_line"),
        ]

    def __str__(self) -> str:
        return f"{self.get_kind_display()} {self.amount} {self.currency} ({self.source_id})"


class LedgerMonthTotal(models.Model):
    """The ledger's sums kept per calendar month (in TIME_ZONE), currency, payment rate, TLD and cause, added to in the
    same transaction as the entries they sum (billing.ledger.books): the revenue report and the dashboard read these few
    rows, never the whole ledger. Signed as the entries are (a refund's sum is negative). `rate` 0: not known.
    `manage.py ledger_month_totals --rebuild` writes them again from the entries (after TIME_ZONE changes)."""

    month = models.DateField()  # its first day
    currency = models.CharField(max_length=3)
    rate = models.DecimalField(max_digits=18, decimal_places=6, default=Decimal(0))
    tld = models.CharField(max_length=63, blank=True)
    cause = models.CharField(max_length=16, choices=SaleCause.choices)
    captured = models.DecimalField(max_digits=14, decimal_places=2, default=0)
    refunded = models.DecimalField(max_digits=14, decimal_places=2, default=0)
    disputed = models.DecimalField(max_digits=14, decimal_places=2, default=0)
    written_off = models.DecimalField(max_digits=14, decimal_places=2, default=0)
    cost = models.DecimalField(max_digits=14, decimal_places=2, default=0)
    unknown_cost = models.PositiveIntegerField(default=0)
    entries = models.PositiveIntegerField(default=0)
    tax_captured = models.DecimalField(max_digits=14, decimal_places=2, default=0)
    tax_refunded = models.DecimalField(max_digits=14, decimal_places=2, default=0)
    tax_disputed = models.DecimalField(max_digits=14, decimal_places=2, default=0)
    fees = models.DecimalField(max_digits=14, decimal_places=2, default=0)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["month", "currency", "rate", "tld", "cause"], name="one_ledger_total_per_month_and_group"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.month:%Y-%m} {self.currency} {self.tld} {self.cause}"


class Dispute(models.Model):
    """A cardholder's dispute of a captured payment (a chargeback, or an inquiry that moves no money unless lost), as
    Stripe last reported it. Its money movements are ledger entries; while it is open the payment and its domains are
    flagged and the customer's auto-renewals wait."""

    OPEN_STATUSES = ("warning_needs_response", "warning_under_review", "needs_response", "under_review")

    stripe_dispute_id = models.CharField(max_length=255, unique=True)
    payment = models.ForeignKey(Payment, on_delete=models.PROTECT, related_name="disputes")
    amount = models.DecimalField(max_digits=12, decimal_places=2)
    currency = models.CharField(max_length=3)
    reason = models.CharField(max_length=64, blank=True)
    status = models.CharField(max_length=32, db_index=True)
    evidence_due_by = models.DateTimeField(null=True, blank=True)
    opened_at = models.DateTimeField()
    closed_at = models.DateTimeField(null=True, blank=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["-opened_at"]

    def __str__(self) -> str:
        return f"Dispute {self.stripe_dispute_id} ({self.status})"

    @property
    def is_open(self) -> bool:
        return self.status in self.OPEN_STATUSES


class WebhookEvent(models.Model):
    """A Stripe event as received (signature verified, or read from Stripe's events list by the reconciler); processed
    once by the worker, whatever the number of deliveries. Events that move no money of ours are kept and ignored."""

    class Outcome(models.TextChoices):
        PENDING = "", "Not processed yet"
        PROCESSED = "processed", "Processed"
        IGNORED = "ignored", "Ignored (moves no money of ours)"
        NOT_OURS = "not_ours", "Not one of our payments"

    event_id = models.CharField(max_length=255, unique=True)
    type = models.CharField(max_length=100, db_index=True)
    payload = models.JSONField()
    # Stripe's time of the event (seconds since the epoch).
    created = models.BigIntegerField(null=True, blank=True)
    received_at = models.DateTimeField(auto_now_add=True)
    deliveries = models.PositiveIntegerField(default=1)
    processed_at = models.DateTimeField(null=True, blank=True, db_index=True)
    # Set by the worker processing it (a lease: one older than a few minutes was abandoned and may be taken over).
    claimed_at = models.DateTimeField(null=True, blank=True)
    outcome = models.CharField(max_length=16, choices=Outcome.choices, blank=True)
    attempts = models.PositiveIntegerField(default=0)
    error = models.TextField(blank=True)

    class Meta:
        ordering = ["-received_at"]

    def __str__(self) -> str:
        return f"{self.event_id} {self.type}"


class Document(models.Model):
    """A numbered billing document of the customer's: the receipt of a payment (issued with its capture), or a credit
    note for one refund of it (issued with the refund, ours or one made in Stripe's dashboard). Each kind has its own
    gap-free series per store (`DocumentSeries`, moved in the issuing transaction). What a credit note refunds,
    line by line, is the ledger's refund entries of its refund."""

    class Kind(models.TextChoices):
        RECEIPT = "receipt", "Receipt"
        CREDIT_NOTE = "credit_note", "Credit note"

    kind = models.CharField(max_length=16, choices=Kind.choices)
    store = models.CharField(max_length=100)
    number = models.PositiveIntegerField()
    payment = models.ForeignKey(Payment, on_delete=models.PROTECT, related_name="documents")
    # A credit note's receipt (the document it corrects); empty on a receipt.
    receipt = models.ForeignKey("self", on_delete=models.PROTECT, null=True, blank=True, related_name="credit_notes")
    amount = models.DecimalField(max_digits=12, decimal_places=2)
    currency = models.CharField(max_length=3)
    # A credit note's refund at the payment service (the ledger's source of its entries).
    refund_id = models.CharField(max_length=255, blank=True)
    # The buyer's reference (a purchase order number…) their tax details held when the document was issued: what its
    # e-invoice carries (BT-10), however often they change it since. A credit note carries its receipt's.
    buyer_reference = models.CharField(max_length=100, blank=True)
    issued_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["store", "kind", "number"]
        constraints = [
            models.UniqueConstraint(fields=["kind", "store", "number"], name="one_document_number_per_kind_and_store"),
            models.UniqueConstraint(
                fields=["payment"], condition=models.Q(kind="receipt"), name="one_receipt_per_payment"
            ),
            models.UniqueConstraint(
                fields=["refund_id"],
                condition=models.Q(kind="credit_note") & ~models.Q(refund_id=""),
                name="one_credit_note_per_refund",
            ),
            models.CheckConstraint(condition=models.Q(amount__gt=0), name="document_amount_positive"),
            models.CheckConstraint(
                condition=models.Q(kind="receipt", receipt__isnull=True)
                | models.Q(kind="credit_note", receipt__isnull=False),
                name="credit_notes_name_their_receipt",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.get_kind_display()} {self.number}"

    @property
    def total(self) -> Money:
        return Money(self.amount, self.currency)

    @property
    def is_credit_note(self) -> bool:
        return self.kind == self.Kind.CREDIT_NOTE


class DocumentSeries(models.Model):
    """The last number issued of one kind of document in one store, moved under its row lock in the transaction that
    issues the next one (a rolled-back document takes its number back with it)."""

    kind = models.CharField(max_length=16, choices=Document.Kind.choices)
    store = models.CharField(max_length=100)
    last_number = models.PositiveIntegerField(default=0)

    class Meta:
        verbose_name_plural = "document series"
        constraints = [models.UniqueConstraint(fields=["kind", "store"], name="one_series_per_kind_and_store")]

    def __str__(self) -> str:
        return f"{self.store}: {self.kind} {self.last_number}"


class SavedCard(models.Model):
    """The customer's Stripe Customer and the card saved on it for off-session payments (auto-renew).

    The Stripe Customer is created once per storefront customer (its id kept here); the card is the payment
    method of the customer's last Checkout payment, read back from its PaymentIntent. Only what is shown is kept:
    brand, last four digits and expiry, never the number.
    """

    customer = models.OneToOneField(Customer, on_delete=models.CASCADE, related_name="saved_card")
    stripe_customer_id = models.CharField(max_length=255, unique=True)
    payment_method_id = models.CharField(max_length=255, blank=True)
    brand = models.CharField(max_length=32, blank=True)
    last4 = models.CharField(max_length=4, blank=True)
    exp_month = models.PositiveSmallIntegerField(null=True, blank=True)
    exp_year = models.PositiveSmallIntegerField(null=True, blank=True)
    saved_at = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    def __str__(self) -> str:
        return f"{self.brand} •••• {self.last4}" if self.has_card else self.stripe_customer_id

    @property
    def has_card(self) -> bool:
        return bool(self.payment_method_id)
