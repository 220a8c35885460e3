"""Merging SPF records: every sender kept once, the existing policy kept, one record out."""

import pytest

from dns import spf


@pytest.mark.parametrize(
    ("existing", "new", "merged"),
    [
        (["v=spf1 include:zohomail.com ~all"], "v=spf1 include:_spf.google.com ~all",
         "v=spf1 include:zohomail.com include:_spf.google.com ~all"),
        # The customer's stricter policy stays.
        (["v=spf1 mx -all"], "v=spf1 include:_spf.google.com ~all", "v=spf1 mx include:_spf.google.com -all"),
        # Already listed: nothing doubled.
        (["v=spf1 include:_spf.google.com ~all"], "v=spf1 include:_spf.google.com ~all",
         "v=spf1 include:_spf.google.com ~all"),
        # Two records (already broken) become one.
        (["v=spf1 a ~all", "v=spf1 ip4:203.0.113.0/24 -all"], "v=spf1 include:zohomail.com ~all",
         "v=spf1 a ip4:203.0.113.0/24 include:zohomail.com ~all"),
        (["v=spf1 redirect=_spf.example.net"], "v=spf1 include:zohomail.com ~all",
         "v=spf1 include:_spf.example.net include:zohomail.com ~all"),
    ],
)  # fmt: skip
def test_merge(existing, new, merged):
    assert spf.merge(existing=existing, new=new) == merged


def test_is_spf():
    assert spf.is_spf("v=spf1 -all") and spf.is_spf("V=SPF1 include:x ~all")
    assert not spf.is_spf("v=spf10 -all") and not spf.is_spf("google-site-verification=v=spf1")
