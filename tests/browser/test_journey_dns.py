"""Journey 3: opening the DNS editor switches DNS on; the customer adds an A and a www CNAME, finds both in the one
list and each type through the filter, deletes the CNAME."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Page, expect

from tests.browser.steps import (
    assert_every_field_labelled,
    check_accessibility,
    customer_with_domains,
    unique_label,
    wait_for_htmx,
)

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

ADDRESS = "203.0.113.10"


def _add_record(page: Page, record_type: str, host: str, value: str) -> None:
    form = page.get_by_role("region", name="Add a record")
    form.get_by_label("Type").select_option(record_type)
    form.get_by_label("Host").fill(host)
    form.get_by_label("Value").fill(value)
    form.get_by_role("button", name="Add record").click()


def test_the_customer_opens_dns_adds_two_records_and_deletes_one(page: Page, screenshot):
    domain = f"{unique_label('orchard')}.com"
    customer_with_domains(page, domain)

    page.get_by_role("link", name=f"Manage {domain}").click()
    check_accessibility(page)
    # Opening the editor turns DNS on: no button to find first.
    page.get_by_role("link", name="Edit DNS records").click()
    expect(page.get_by_text(f"DNS is on for {domain}. You can add records now.")).to_be_visible()
    expect(page.get_by_role("button", name="Activate DNS")).to_have_count(0)

    editor = page.locator("#dns-editor")
    assert_every_field_labelled(page)
    check_accessibility(page)
    _add_record(page, "A", "@", ADDRESS)
    expect(editor.get_by_role("status")).to_contain_text("Added")
    expect(editor.get_by_role("heading", name=re.compile("^A records"))).to_be_visible()
    apex = editor.locator("tbody tr", has=page.locator("code", has_text=ADDRESS))
    expect(apex.locator(".dns-host strong")).to_have_text("@")

    # The same record again: the customer is told which record is already there, in the form they typed in.
    _add_record(page, "A", "@", ADDRESS)
    duplicate = f"An A record for the domain itself (@) pointing to {ADDRESS} already exists."
    expect(page.get_by_role("alert")).to_have_text(duplicate)
    expect(page.get_by_text("Duplicate record found")).to_have_count(0)

    _add_record(page, "CNAME", "www", domain)
    expect(editor.get_by_role("status")).to_contain_text("Added")
    expect(editor.get_by_role("heading", name=re.compile("^CNAME records"))).to_be_visible()
    www = editor.locator("tbody tr", has=page.locator(".dns-host strong", has_text=re.compile("^www$")))
    expect(www.locator("code")).to_have_text(re.compile(rf"^{re.escape(domain)}\.?$"))
    expect(www.locator(".dns-fqdn")).to_contain_text(f"www.{domain}")

    # Both are listed in the one list of every type; the filter shows one type.
    wait_for_htmx(page)
    editor.get_by_label("Record type").select_option("")
    expect(editor.get_by_role("heading", name=re.compile("^All records"))).to_be_visible()
    expect(editor.locator("code", has_text=ADDRESS)).to_be_visible()
    expect(www).to_be_visible()
    wait_for_htmx(page)
    editor.get_by_label("Record type").select_option("CNAME")
    expect(editor.get_by_role("heading", name=re.compile("^CNAME records"))).to_be_visible()

    # Delete asks first, in place of the row, then the record is gone.
    www.get_by_role("link", name="Delete").click()
    confirm = editor.locator(".dns-delete-form")
    expect(confirm).to_contain_text("Delete")
    confirm.get_by_role("button", name="Delete this record").click()
    expect(editor.get_by_role("status")).to_contain_text("Deleted")
    expect(editor.get_by_text("No CNAME records yet.")).to_be_visible()

    wait_for_htmx(page)
    editor.get_by_label("Record type").select_option("A")
    expect(editor.locator("code", has_text=ADDRESS)).to_be_visible()
    page.reload()
    expect(page.locator("#dns-editor code", has_text=ADDRESS)).to_be_visible()
    assert_every_field_labelled(page)
    check_accessibility(page)
    screenshot("dns")
