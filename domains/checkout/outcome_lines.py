"""A checkout's lines as its confirmation page and its email show them: each domain's outcome beside what it is
charged (billing.ledger.figures: after the promotion, tax included) and the WHOIS privacy paid with it, so that the
lines add up to the "Charged" total beneath them."""

from __future__ import annotations

import uuid
from dataclasses import dataclass

from billing.ledger.figures import LineFigure, PurchaseFigures, purchase_figures
from billing.models import Payment
from domains.models import Registration
from domains.orders.privacy_payments import REFERENCE_PREFIX
from domains.presentation import Outcome, registration_outcome
from pricing.money import Money


@dataclass(frozen=True)
class OutcomeLine:
    registration: Registration
    outcome: Outcome
    # What the domain is charged (None: nothing, it was not registered); without a payment (the store bills
    # offline), the price it was quoted.
    price: Money | None
    figure: LineFigure | None = None  # the payment's line: its promotion and tax
    privacy: LineFigure | None = None  # the WHOIS privacy paid with it, when it was


def outcome_lines(lines: list[Registration], *, payment: Payment | None) -> list[OutcomeLine]:
    figures = purchase_figures(payment) if payment is not None else None
    return [_outcome_line(line, figures) for line in lines]


def outcome_lines_of_checkout(lines: list[Registration], *, checkout_id: uuid.UUID) -> list[OutcomeLine]:
    return outcome_lines(lines, payment=Payment.objects.filter(checkout_id=checkout_id).first())


def _outcome_line(registration: Registration, figures: PurchaseFigures | None) -> OutcomeLine:
    outcome = registration_outcome(registration)
    if figures is None:
        return OutcomeLine(registration, outcome, price=registration.retail)
    figure = figures.line(registration.domain_name)
    privacy = figures.line(f"{REFERENCE_PREFIX}{registration.domain_name}")
    charged = figure is not None and figure.charged
    return OutcomeLine(
        registration,
        outcome,
        price=figure.amount if charged and figure is not None else None,
        figure=figure,
        privacy=privacy if privacy is not None and privacy.charged else None,
    )
