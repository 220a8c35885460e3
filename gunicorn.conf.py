"""Gunicorn's own settings, read from the working directory by every `gunicorn` the Procfile starts.

Gunicorn logs its own lines (booting, worker timeouts, crashes) through handlers of its own with a plain-text
format; these send them out as one JSON object per line, like the storefront's (settings.LOGGING).
"""

logconfig_dict = {
    "version": 1,
    "disable_existing_loggers": False,
    "formatters": {
        "json": {
            "()": "pythonjsonlogger.json.JsonFormatter",
            "fmt": "%(asctime)s %(levelname)s %(name)s %(message)s",
            "rename_fields": {"asctime": "time", "levelname": "level", "name": "logger"},
        }
    },
    "handlers": {
        "stdout": {"class": "logging.StreamHandler", "formatter": "json", "stream": "ext://sys.stdout"},
        "nowhere": {"class": "logging.NullHandler"},
    },
    "root": {"handlers": ["stdout"]},
    # No levels here: `--log-level` keeps deciding. Not propagated, or Django's root handler would write each
    # line a second time.
    "loggers": {
        "gunicorn.error": {"handlers": ["stdout"], "propagate": False},
        # A log config turns gunicorn's access log on; it stays off. The storefront writes its own request line
        # (storefront.middleware), with the route rather than the raw path, which can carry one-time secrets.
        "gunicorn.access": {"handlers": ["nowhere"], "propagate": False},
    },
}
