"""The default rule comes from the environment; a setting that would misprice everything stops the start."""

import pytest
from django.core.exceptions import ImproperlyConfigured

from tests.settings_env import settings_with


def _rule(**env: str) -> list[str]:
    s = settings_with(DJANGO_DEBUG="true", **env)
    return [str(s["PRICE_MARKUP_PERCENT"]), str(s["PRICE_MARKUP_FIXED"]), s["PRICE_ROUNDING"], s["STORE_CURRENCY"]]


def test_defaults_sell_at_cost_in_usd():
    assert _rule() == ["0", "0", "none", "USD"]


def test_values_from_the_environment():
    rule = _rule(PRICE_MARKUP_PERCENT="12.5", PRICE_MARKUP_FIXED="1.00", PRICE_ROUNDING="99", STORE_CURRENCY="eur")
    assert rule == ["12.5", "1.00", "99", "EUR"]


@pytest.mark.parametrize(
    ("env", "message"),
    [
        ({"PRICE_ROUNDING": "nearest"}, 'PRICE_ROUNDING must be "none" or "99".'),
        ({"PRICE_MARKUP_PERCENT": "-10"}, "must be 0 or more"),
        ({"PRICE_MARKUP_FIXED": "two"}, "must be numbers"),
    ],
)
def test_bad_values_refuse_to_start(env, message):
    with pytest.raises(ImproperlyConfigured) as refused:
        _rule(**env)
    assert message in str(refused.value)
