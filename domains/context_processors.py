"""The header's cart count, on every page."""

from django.http import HttpRequest

from domains.cart.basket import Cart


def cart(request: HttpRequest) -> dict[str, int]:
    """The header's cart count, on every page: the lines the cart page shows."""
    return {"cart_count": len(Cart(request.session)) if hasattr(request, "session") else 0}
