"""The domain features' URLs, each to its feature's views: search, cart, checkout, orders."""

from django.urls import path

from domains.cart import views as cart_views
from domains.checkout import views as checkout_views
from domains.orders import views as order_views
from domains.search import views as search_views

urlpatterns = [
    path("search/", search_views.search, name="search"),
    path("search/suggestions/", search_views.search_suggestions, name="search_suggestions"),
    path("cart/", cart_views.cart, name="cart"),
    path("cart/add/", cart_views.cart_add, name="cart_add"),
    path("cart/remove/", cart_views.cart_remove, name="cart_remove"),
    path("cart/update/", cart_views.cart_update, name="cart_update"),
    path("cart/privacy/", cart_views.cart_privacy, name="cart_privacy"),
    path("cart/promotion/", cart_views.cart_promotion, name="cart_promotion"),
    path("checkout/", checkout_views.checkout, name="checkout"),
    path("checkout/<uuid:checkout_id>/", checkout_views.checkout_done, name="checkout_done"),
    path("orders/", order_views.orders, name="orders"),
    path("orders/renew/", order_views.orders_renew, name="orders_renew"),
    path("orders/renew/<uuid:checkout_id>/", order_views.orders_renewed, name="orders_renewed"),
    path("orders/<int:order_id>/", order_views.order_detail, name="order_detail"),
    path("orders/<int:order_id>/renew/", order_views.order_renew, name="order_renew"),
    path("orders/<int:order_id>/auto-renew/", order_views.order_auto_renew, name="order_auto_renew"),
    path("orders/<int:order_id>/privacy/", order_views.order_privacy, name="order_privacy"),
    path("orders/<int:order_id>/privacy/buy/", order_views.order_privacy_buy, name="order_privacy_buy"),
    path("orders/<int:order_id>/transfer-code/", order_views.order_transfer_code, name="order_transfer_code"),
    path(
        "orders/<int:order_id>/verification-confirmed/",
        order_views.order_verification_confirmed,
        name="order_verification_confirmed",
    ),
]
