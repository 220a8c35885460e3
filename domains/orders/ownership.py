"""Whose order is this: answered from our copy of the listing, before any provider call."""

from django.contrib.auth.models import AnonymousUser, User
from django.http import Http404

from domains.models import Order


def get_order_for_user(user: User | AnonymousUser, order_id: int) -> Order:
    """The order with this provider id if it belongs to the signed-in customer; 404 otherwise.

    Answered from our own copy of the order listing, so no provider call happens before ownership is known.
    """
    if not user.is_authenticated:
        raise Http404
    order = Order.objects.filter(order_id=order_id, customer__user=user).select_related("customer").first()
    if order is None:
        raise Http404
    return order
