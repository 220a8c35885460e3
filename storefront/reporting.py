"""Error reports that can never carry the provider key.

Django's safe filter already hides settings whose names look secret. A traceback through `requests`, though,
has frames whose local variables hold the prepared request, Authorization header included; those locals
would land in an error report. This filter replaces any frame variable whose text contains the key.
"""

from typing import Any

from django.conf import settings
from django.views.debug import SafeExceptionReporterFilter


class KeyScrubbingExceptionReporterFilter(SafeExceptionReporterFilter):
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
