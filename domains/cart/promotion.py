"""The promotion code entered in the cart: kept in the session for the checkout, and its discount on each line.

The discount on each line is a preview written onto the cart lines (`CartLine.discount`), so the review shows it and
its digest covers it; Buy works it out again and takes the uses (`pricing.promotions.redemptions_take`).
"""

from __future__ import annotations

import uuid
from dataclasses import replace

from django.contrib.sessions.backends.base import SessionBase

from domains.cart.basket import Cart, CartLine
from pricing.models import Operation, Promotion
from pricing.promotions import (
    LineDiscount,
    PromotionRefused,
    line_asks_priced,
    normal_code,
    promotion_discounts,
    promotion_find,
)

SESSION_KEY = "promotion_code"


def cart_code(session: SessionBase) -> str:
    code = session.get(SESSION_KEY)
    return code if isinstance(code, str) else ""


def cart_code_remove(session: SessionBase) -> None:
    session.pop(SESSION_KEY, None)
    _clear(Cart(session))


def cart_code_enter(session: SessionBase, code: str, *, customer_id: int | None) -> list[LineDiscount]:
    """Keep the code for this cart and discount its lines; PromotionRefused (with why) leaves the cart as it was."""
    code = normal_code(code)
    basket = Cart(session)
    promotion = promotion_find(code)
    discounts = _discounts(promotion, basket.lines(), customer_id=customer_id, exclude_checkout=None)
    session[SESSION_KEY] = promotion.code
    _write(basket, promotion, discounts)
    return discounts


def cart_promotion_apply(
    session: SessionBase, *, customer_id: int | None, exclude_checkout: uuid.UUID | None = None
) -> tuple[Promotion | None, list[LineDiscount], str]:
    """Work the kept code's discount out again on every line (prices, terms or uses may have changed).

    Returns the promotion (None when no code is kept or it cannot be used now), each line's discount, and, when the
    code cannot be used, why: it is then taken off the cart and its lines are at full price again. No code kept: no
    query.
    """
    basket = Cart(session)
    code = cart_code(session)
    if not code:
        _clear(basket)
        return None, [], ""
    try:
        promotion = promotion_find(code)
        discounts = _discounts(promotion, basket.lines(), customer_id=customer_id, exclude_checkout=exclude_checkout)
    except PromotionRefused as refused:
        session.pop(SESSION_KEY, None)
        _clear(basket)
        return None, [], refused.message
    _write(basket, promotion, discounts)
    return promotion, discounts, ""


def _discounts(
    promotion: Promotion, lines: list[CartLine], *, customer_id: int | None, exclude_checkout: uuid.UUID | None
) -> list[LineDiscount]:
    asks = line_asks_priced(
        [(line.domain_name, line.tld, line.duration, line.total) for line in lines], operation=Operation.REGISTER
    )
    return promotion_discounts(promotion, asks, customer_id=customer_id, exclude_checkout=exclude_checkout)


def _write(basket: Cart, promotion: Promotion, discounts: list[LineDiscount]) -> None:
    by_name = {d.reference: d for d in discounts}
    for line in basket.lines():
        found = by_name.get(line.domain_name)
        if found is None or found.discount.is_zero:
            fresh = replace(line, discount=None, promotion="")
        else:
            fresh = replace(line, discount=found.discount.amount, promotion=promotion.code)
        if fresh != line:
            basket.put(fresh)


def _clear(basket: Cart) -> None:
    for line in basket.lines():
        if line.discount is not None or line.promotion:
            basket.put(replace(line, discount=None, promotion=""))
