"""Each request's provider work is bounded: a number of calls and a deadline below 30 s."""

from __future__ import annotations

import time

import pytest

from storefront.requests import request_stats
from storefront.requests.request_stats import BudgetSpent, before_call, serving


def test_outside_a_request_nothing_is_bounded():
    assert before_call((3.0, 10.0)) == (3.0, 10.0)


def test_calls_past_the_maximum_are_refused():
    with serving(max_calls=2):
        request_stats.add_provider_call(0.1)
        before_call((3.0, 10.0))
        request_stats.add_provider_call(0.1)
        with pytest.raises(BudgetSpent):
            before_call((3.0, 10.0))


def test_the_read_timeout_is_cut_to_the_time_left_and_then_refused():
    with serving(deadline=5.0) as calls:
        connect, read = before_call((1.0, 10.0))
        assert connect == 1.0 and read <= 4.0
        calls.started = time.monotonic() - 4.5  # 4.5 s into the request
        with pytest.raises(BudgetSpent):
            before_call((1.0, 10.0))


def test_the_bound_ends_with_the_request():
    with serving(max_calls=1):
        request_stats.add_provider_call(0.1)
    assert before_call((3.0, 10.0)) == (3.0, 10.0)
