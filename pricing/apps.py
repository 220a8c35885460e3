from django.apps import AppConfig


class PricingConfig(AppConfig):
    name = "pricing"
    verbose_name = "Prices"

    def ready(self) -> None:
        from django.db.models.signals import post_delete, post_save

        from pricing import checks, tasks  # noqa: F401  (registers its deploy check; schedules the daily price sync)
        from pricing.models import TaxRate, TaxRegistration
        from pricing.tax import tax_rules_forget

        # The pages' kept copy of the tax rules is forgotten whenever staff change them.
        for model in (TaxRate, TaxRegistration):
            post_save.connect(tax_rules_forget, sender=model, dispatch_uid=f"tax-rules-forget-save-{model.__name__}")
            post_delete.connect(tax_rules_forget, sender=model, dispatch_uid=f"tax-rules-forget-del-{model.__name__}")
