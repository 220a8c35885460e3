"""Error reports that can never carry the provider key.

Django's safe filter already hides settings whose names look secret. A traceback through `requests`, though,
has frames whose local variables hold the prepared request, Authorization header included; those locals
would land in an error report. This filter replaces any frame variable whose text contains the key, and (as the
error tracker's scrubber, storefront/observability/error_reports.py) every request field and setting whose name is
secret or personal, and settings that may hold URLs with credentials.
"""

import re
from typing import Any

from django.conf import settings
from django.http import HttpRequest
from django.views.debug import SafeExceptionReporterFilter

from storefront.observability.error_reports import secret_key


class KeyScrubbingExceptionReporterFilter(SafeExceptionReporterFilter):
    hidden_settings = re.compile("API|AUTH|TOKEN|KEY|SECRET|PASS|SIGNATURE|HTTP_COOKIE|DSN|URL|LOCATION", flags=re.I)

    def get_post_parameters(self, request: HttpRequest | None) -> Any:
        """Django hides the POST fields of views marked sensitive; these are hidden on every view."""
        parameters = super().get_post_parameters(request)
        if request is None:
            return parameters
        cleansed = parameters.copy()
        for name in cleansed:
            if secret_key(name):
                cleansed[name] = self.cleansed_substitute
        return cleansed

    def get_traceback_frame_variables(self, request: Any, tb_frame: Any) -> Any:
        variables = super().get_traceback_frame_variables(request, tb_frame)
        key = settings.RESELLER_API_KEY
        if not key:
            return variables
        return [(name, self.cleansed_substitute if _mentions(value, key) else value) for name, value in variables]


def _mentions(value: Any, key: str) -> bool:
    try:
        return key in repr(value) or key in str(value)
    except Exception:  # noqa: BLE001 - a value that cannot be shown cannot leak either; hide it to be safe
        return True
