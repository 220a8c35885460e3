"""The DNS editor's URLs, under the domain they edit: `/orders/<order_id>/dns/...`."""

from django.urls import path

from dns import views

urlpatterns = [
    path("orders/<int:order_id>/dns/", views.dns_records, name="dns"),
    path("orders/<int:order_id>/dns/activate/", views.dns_activate, name="dns_activate"),
    path("orders/<int:order_id>/dns/add/", views.dns_add, name="dns_add"),
    path("orders/<int:order_id>/dns/change/", views.dns_change, name="dns_change"),
    path("orders/<int:order_id>/dns/delete/", views.dns_delete, name="dns_delete"),
    path("orders/<int:order_id>/dns/presets/<slug:preset>/", views.dns_preset, name="dns_preset"),
]
