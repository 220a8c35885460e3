"""`/account/`: the customer's own page (outside `/accounts/`, where Django's sign-in and password views live)."""

from django.urls import path

from accounts import views

urlpatterns = [
    path("", views.account, name="account"),
    path("contact/", views.account_contact, name="account_contact"),
    path("currency/", views.account_currency, name="account_currency"),
    path("tax/", views.account_tax, name="account_tax"),
]
