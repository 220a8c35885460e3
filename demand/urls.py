from django.urls import path

from demand import views

urlpatterns = [
    path("wanted/<slug:feature>/", views.wanted, name="demand_wanted"),
]
