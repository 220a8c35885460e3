from django.apps import AppConfig


class DnsConfig(AppConfig):
    name = "dns"
