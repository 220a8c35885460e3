from django.urls import path

from domains import views

urlpatterns = [
    path("search/", views.search, name="search"),
    path("cart/", views.cart, name="cart"),
    path("orders/", views.orders, name="orders"),
]
