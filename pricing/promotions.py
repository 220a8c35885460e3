"""Promotion codes: whether a code can be used, what it takes off each line, and its redemptions.

A discount is taken off a line's retail price (a registration's total for its term, or a renewal's) before tax:
a percentage of the price, or a fixed amount per line. It never takes a line below its cost (`pricing.quotes`'s
cost) unless the promotion is a loss leader with room left under its cap; otherwise the discount is capped at the
margin. Limits count lines: a total over every customer and one per customer.

The figures shown in the cart and the review are a preview (`promotion_discounts`); what counts is taken at Buy by
`redemptions_take`, under a row lock on the promotion, once per checkout line, so two tabs or two customers racing
for the last use get it once. A line that is not delivered gives its use back (`redemptions_release`).
"""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from decimal import Decimal

from django.db import IntegrityError, transaction
from django.db.models import F, Q
from django.utils import timezone
from django.utils.translation import gettext

from pricing.currencies import rate_for
from pricing.fees import cost_floor
from pricing.models import Operation, Promotion, PromotionKind, PromotionRedemption, PromotionScope
from pricing.money import Money, format_money
from pricing.quotes import price_book

_HUNDRED = Decimal(100)
_CENT = Decimal("0.01")


class PromotionRefused(Exception):
    """The code cannot be used: `message` says why, for the customer."""

    def __init__(self, message: str, *, code: str) -> None:
        super().__init__(message)
        self.message = message
        self.code = code


@dataclass(frozen=True)
class LineAsk:
    """A line a code may apply to: its price (a total for the term) and what it costs us (None: unknown)."""

    reference: str  # the domain name
    tld: str
    operation: str  # Operation.REGISTER or Operation.RENEW
    price: Money
    cost: Money | None


@dataclass(frozen=True)
class LineDiscount:
    reference: str
    operation: str
    list_price: Money
    discount: Money  # zero when the code does not touch the line
    below_cost: bool = False  # a loss leader's line sold below its cost
    capped: bool = False  # the discount was cut so the line is not sold below cost

    @property
    def charged(self) -> Money:
        return self.list_price - self.discount


def normal_code(code: str) -> str:
    return code.strip().upper()


def promotion_find(code: str, *, now: datetime | None = None) -> Promotion:
    """The active promotion with this code, valid now; PromotionRefused (unknown, expired, not yet valid)."""
    code = normal_code(code)
    promotion = Promotion.objects.filter(code=code, active=True).first() if code else None
    if promotion is None:
        raise PromotionRefused(gettext("We don't know the code %(code)s.") % {"code": code}, code="unknown")
    now = now or timezone.now()
    if now < promotion.starts_at:
        raise PromotionRefused(
            gettext("The code %(code)s is not valid yet: it starts on %(date)s.")
            % {"code": code, "date": timezone.localtime(promotion.starts_at).date().isoformat()},
            code="not_yet",
        )
    if promotion.ends_at is not None and now >= promotion.ends_at:
        raise PromotionRefused(gettext("The code %(code)s has expired.") % {"code": code}, code="expired")
    return promotion


def applies_to(promotion: Promotion, *, tld: str, operation: str) -> bool:
    tlds = promotion.tld_list
    if tlds and tld.lower().lstrip(".") not in tlds:
        return False
    scope = promotion.applies_to
    if operation == Operation.REGISTER:
        return scope in (PromotionScope.REGISTER, PromotionScope.BOTH)
    if operation == Operation.RENEW:
        return scope in (PromotionScope.RENEW, PromotionScope.BOTH)
    return False


def raw_discount(promotion: Promotion, price: Money) -> Money:
    """What the code takes off this price before the cost guard: never more than the price."""
    if promotion.kind == PromotionKind.PERCENT:
        amount = Money(price.amount * promotion.value / _HUNDRED, price.currency).rounded().amount
    else:
        # A fixed amount is set in the store's currency: a line in the customer's currency takes it at today's
        # rate (the rate the line's own price was converted at), none where that currency is no longer offered.
        rate = rate_for(price.currency)
        if rate is None:
            return Money.zero(price.currency)
        amount = Money(Decimal(promotion.value) * rate, price.currency).rounded().amount
    return Money(min(amount, price.amount), price.currency)


def guarded_discount(
    promotion: Promotion, *, price: Money, cost: Money | None, below_cost_left: int
) -> tuple[Money, bool, bool]:
    """(discount, below_cost, capped): the code's discount, cut to the line's margin unless the promotion is a loss
    leader with `below_cost_left` > 0. A line whose cost is unknown gets no discount (never sold blind)."""
    discount = raw_discount(promotion, price)
    if cost is None or cost.currency != price.currency:
        return Money.zero(price.currency), False, True
    floor = cost_floor(cost)  # the cost and the card fee on the price charged
    if price.amount - discount.amount >= floor.amount:
        return discount, False, False
    if promotion.loss_leader and below_cost_left > 0:
        return discount, True, False
    margin = max(price.amount - floor.amount, Decimal(0))
    return Money(margin, price.currency), False, True


def _counted(promotion: Promotion, *, exclude_checkout: uuid.UUID | None) -> Q:
    q = Q(promotion=promotion, released_at__isnull=True)
    return q & ~Q(checkout_id=exclude_checkout) if exclude_checkout is not None else q


def uses_left(
    promotion: Promotion, *, customer_id: int | None, exclude_checkout: uuid.UUID | None = None
) -> tuple[int | None, int]:
    """(lines the code may still be used on, None for no limit; loss-leader lines left), not counting the lines of
    `exclude_checkout` (the checkout being bought: its own uses are its own)."""
    taken = PromotionRedemption.objects.filter(_counted(promotion, exclude_checkout=exclude_checkout))
    left: int | None = None
    if promotion.max_redemptions is not None:
        left = max(promotion.max_redemptions - taken.count(), 0)
    if promotion.max_per_customer is not None and customer_id is not None:
        mine = max(promotion.max_per_customer - taken.filter(customer_id=customer_id).count(), 0)
        left = mine if left is None else min(left, mine)
    below = 0
    if promotion.loss_leader and promotion.loss_leader_cap:
        below = max(promotion.loss_leader_cap - taken.filter(below_cost=True).count(), 0)
    return left, below


def promotion_discounts(
    promotion: Promotion,
    lines: Sequence[LineAsk],
    *,
    customer_id: int | None,
    exclude_checkout: uuid.UUID | None = None,
) -> list[LineDiscount]:
    """Each line with what the code takes off it now (zero where it does not apply or the uses ran out).

    PromotionRefused when it applies to none of the lines (not for these domains) or no use is left (used up).
    """
    eligible = [line for line in lines if applies_to(promotion, tld=line.tld, operation=line.operation)]
    if not eligible:
        raise PromotionRefused(
            gettext("The code %(code)s is not for the domains in your order.") % {"code": promotion.code},
            code="not_these",
        )
    left, below_left = uses_left(promotion, customer_id=customer_id, exclude_checkout=exclude_checkout)
    if left == 0:
        raise PromotionRefused(
            gettext("The code %(code)s has been used up.") % {"code": promotion.code}, code="used_up"
        )
    answers = []
    for line in lines:
        if line not in eligible or (left is not None and left <= 0):
            answers.append(LineDiscount(line.reference, line.operation, line.price, Money.zero(line.price.currency)))
            continue
        discount, below, capped = guarded_discount(
            promotion, price=line.price, cost=line.cost, below_cost_left=below_left
        )
        if discount.is_zero:
            answers.append(LineDiscount(line.reference, line.operation, line.price, discount, capped=capped))
            continue
        below_left -= 1 if below else 0
        left = None if left is None else left - 1
        answers.append(LineDiscount(line.reference, line.operation, line.price, discount, below, capped))
    return answers


def redemptions_take(
    *,
    promotion_id: int,
    customer_id: int,
    checkout_id: uuid.UUID,
    lines: Sequence[LineDiscount],
    now: datetime | None = None,
) -> None:
    """Count the checkout's discounted lines against the promotion's limits, exactly once, under a row lock.

    Safe to repeat for the same checkout (its redemptions are found, not taken again). PromotionRefused when the
    code stopped being valid, ran out of uses, or of below-cost lines since the review: nothing is taken then.
    """
    wanted = [line for line in lines if not line.discount.is_zero]
    if not wanted:
        return
    with transaction.atomic():
        # A write first: every backend then serialises takers of this promotion (PostgreSQL's row lock; SQLite, whose
        # SELECT ... FOR UPDATE is a no-op, its write lock), so a count read below is never stale.
        Promotion.objects.filter(pk=promotion_id).update(active=F("active"))
        promotion = Promotion.objects.select_for_update().get(pk=promotion_id)
        own = PromotionRedemption.objects.filter(promotion=promotion, checkout_id=checkout_id, released_at=None)
        if own.exists():
            return  # this checkout's Buy again (a double click, the payment page reopened): taken already
        if not promotion.active:
            raise PromotionRefused(
                gettext("The code %(code)s is no longer valid.") % {"code": promotion.code}, code="inactive"
            )
        now = now or timezone.now()
        if now < promotion.starts_at or (promotion.ends_at is not None and now >= promotion.ends_at):
            raise PromotionRefused(gettext("The code %(code)s has expired.") % {"code": promotion.code}, code="expired")
        left, below_left = uses_left(promotion, customer_id=customer_id, exclude_checkout=checkout_id)
        below = sum(1 for line in wanted if line.below_cost)
        if (left is not None and left < len(wanted)) or below > below_left:
            raise PromotionRefused(
                gettext("The code %(code)s has been used up since you reviewed your order.") % {"code": promotion.code},
                code="used_up",
            )
        # A released use of this very line (an earlier attempt of the checkout) is taken again, not duplicated.
        PromotionRedemption.objects.filter(
            promotion=promotion, checkout_id=checkout_id, reference__in=[line.reference for line in wanted]
        ).delete()
        try:
            PromotionRedemption.objects.bulk_create(
                PromotionRedemption(
                    promotion=promotion,
                    customer_id=customer_id,
                    checkout_id=checkout_id,
                    reference=line.reference,
                    operation=line.operation,
                    list_amount=line.list_price.amount,
                    discount=line.discount.amount,
                    currency=line.list_price.currency,
                    below_cost=line.below_cost,
                )
                for line in wanted
            )
        except IntegrityError as err:  # pragma: no cover - the row lock serialises takers of one promotion
            raise PromotionRefused(
                gettext("The code %(code)s has been used up since you reviewed your order.") % {"code": promotion.code},
                code="used_up",
            ) from err


def redemptions_release(*, checkout_id: uuid.UUID, references: Sequence[str] | None = None) -> int:
    """The checkout's lines (all, or these) were not delivered: their uses count no more. Returns how many."""
    rows = PromotionRedemption.objects.filter(checkout_id=checkout_id, released_at__isnull=True)
    if references is not None:
        rows = rows.filter(reference__in=list(references))
    return rows.update(released_at=timezone.now())


def line_asks_priced(
    items: Sequence[tuple[str, str, int, Money]], *, operation: str = Operation.REGISTER
) -> list[LineAsk]:
    """(domain name, tld, years, price) lines with today's cost from the price book, as a code's lines."""
    book = price_book(tlds=[tld for _, tld, _, _ in items])
    asks = []
    for name, tld, years, price in items:
        quote = book.retail_price(tld=tld, operation=operation, years=years)
        asks.append(LineAsk(name, tld, str(operation), price, quote.cost if quote is not None else None))
    return asks


def promotion_below_cost(promotion: Promotion) -> list[str]:
    """For staff: each TLD and term where this promotion's discount would take today's price below cost and the card
    fee (pricing/fees.py), in words (where it is capped there, or, for a loss leader, where its capped lines are sold
    at a loss)."""
    tlds = promotion.tld_list or None
    book = price_book(tlds=tlds)
    operations = [
        op
        for op in (Operation.REGISTER, Operation.RENEW)
        if applies_to(promotion, tld=(tlds or ["x"])[0], operation=op) or not tlds
    ]
    found = []
    for tld in sorted(book.costs):
        for operation in operations:
            if not applies_to(promotion, tld=tld, operation=operation):
                continue
            for years in book.terms(tld=tld, operation=operation):
                quote = book.retail_price(tld=tld, operation=operation, years=years)
                if quote is None:
                    continue
                discounted = quote.retail - raw_discount(promotion, quote.retail)
                floor = cost_floor(quote.cost)
                if discounted < floor:
                    found.append(
                        f".{tld} {operation} {years}y at {format_money(discounted)}, under its cost and card fee "
                        f"{format_money(floor)}"
                    )
    return found
