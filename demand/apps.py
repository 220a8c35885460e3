from django.apps import AppConfig


class DemandConfig(AppConfig):
    name = "demand"
    verbose_name = "Demand for what the provider lacks"

    def ready(self) -> None:
        # The job that notices a capability switched on is scheduled when the tasks module is imported.
        import demand.tasks  # noqa: F401
