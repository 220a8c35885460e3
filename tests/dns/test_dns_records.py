"""GET /orders/<order_id>/dns/ (?type=A, ?page=2): the zone in one list (or one type of it), a page at a time; one
provider call per type listed, since the provider lists one type per call."""

import pytest
from django.urls import reverse

from dns import services
from storefront.gateway import Unavailable
from tests.dns.conftest import url
from tests.fakes.gateway import DNS_METHODS

pytestmark = pytest.mark.django_db


ALL_TYPES = ["A", "AAAA", "CNAME", "MX", "TXT", "NS", "SRV", "SOA"]


def test_it_lists_every_type_in_one_list_by_default(signed_in, active_order, add_record, provider_calls):
    add_record("A", "www", "203.0.113.10", ttl=3600)
    add_record("MX", "@", "mx1.example.net", priority=10)
    add_record("TXT", "@", "v=spf1 include:_spf.google.com ~all")
    provider_calls.clear()
    response = signed_in.get(url("dns", active_order))
    assert response.status_code == 200
    body = response.content.decode()
    assert "All records" in body
    rows = body.split("<tbody>")[1].split("</tbody>")[0]
    for value in ("203.0.113.10", "mx1.example.net", "v=spf1 include:_spf.google.com ~all", "ns1.sandbox-dns.test"):
        assert value in rows
    assert f"www.{active_order.domain_name}" in body
    assert "1 hour" in body
    assert "Active" in body
    assert "Priority" in body
    # The apex first, by type within a host; then the other hosts.
    assert (
        rows.index("mx1.example.net")
        < rows.index("v=spf1")
        < rows.index("ns1.sandbox-dns.test")
        < rows.index("203.0.113.10")
    )
    # One provider call per type (it lists one type at a time), the nameservers read from the same list.
    assert provider_calls.record_types_read() == ALL_TYPES


def test_a_type_filter_lists_that_type_only(signed_in, active_order, add_record, provider_calls):
    add_record("MX", "@", "mx1.example.net", priority=10)
    add_record("A", "@", "203.0.113.10")
    provider_calls.clear()
    response = signed_in.get(url("dns", active_order, "type=MX"))
    body = response.content.decode()
    assert "MX records" in body
    assert "mx1.example.net" in body
    assert "Priority" in body
    assert "203.0.113.10" not in body
    assert '<option value="MX" selected>MX</option>' in body
    assert provider_calls.record_types_read() == ["MX", "NS"]  # the type, and the nameservers


def test_the_filter_is_a_plain_get_form_that_htmx_loads_in_place(signed_in, active_order, provider_calls):
    body = signed_in.get(url("dns", active_order)).content.decode()
    form = (
        body.split('class="dns-filter"')[0].rsplit("<form", 1)[1]
        + body.split('class="dns-filter"')[1].split("</form>")[0]
    )
    assert 'method="get"' in form and f'action="{url("dns", active_order)}"' in form
    assert f'hx-get="{url("dns", active_order)}"' in form and 'hx-push-url="true"' in form
    assert '<label for="dns-filter-type">Record type</label>' in form
    assert '<option value="" selected>All types</option>' in form
    for record_type in ALL_TYPES:
        assert f'<option value="{record_type}">{record_type}</option>' in form
    assert 'class="dns-tab' not in body  # no tab per type any more


def test_an_htmx_request_gets_the_editor_fragment_only(htmx, active_order, add_record, provider_calls):
    add_record("TXT", "@", "v=spf1 include:_spf.google.com ~all")
    provider_calls.clear()
    response = htmx.get(url("dns", active_order, "type=TXT"))
    body = response.content.decode()
    assert response.status_code == 200
    assert "<html" not in body
    assert 'id="dns-editor"' in body
    assert "v=spf1 include:_spf.google.com ~all" in body
    assert provider_calls.record_types_read() == ["TXT", "NS"]


def test_the_list_is_paged(signed_in, active_order, add_record, provider_calls):
    for n in range(1, 61):
        add_record("A", f"host{n:02d}", f"203.0.113.{n}")
    first = signed_in.get(url("dns", active_order)).content.decode()
    # 60 A records and the zone's 2 NS and 1 SOA: 63, 50 a page.
    assert "All records" in first and "(63)" in first
    assert "Page 1 of 2" in first
    assert first.count('<td class="dns-type"') == 50
    assert f'href="{url("dns", active_order, "page=2")}"' in first
    second = signed_in.get(url("dns", active_order, "page=2")).content.decode()
    assert second.count('<td class="dns-type"') == 13
    assert "Page 2 of 2" in second and "203.0.113.60" in second and "203.0.113.60<" not in first
    # The filter keeps the type across pages.
    filtered = signed_in.get(url("dns", active_order, "type=A&page=2")).content.decode()
    assert filtered.count('<td class="dns-type"') == 10
    assert f'href="{url("dns", active_order, "type=A&amp;page=1")}"' in filtered
    # A page past the end shows the last one; a page that is not a number, the first.
    assert "Page 2 of 2" in signed_in.get(url("dns", active_order, "page=99")).content.decode()
    assert "Page 1 of 2" in signed_in.get(url("dns", active_order, "page=x")).content.decode()


def test_read_only_types_have_no_edit_controls(signed_in, active_order, provider_calls):
    response = signed_in.get(url("dns", active_order, "type=NS"))
    body = response.content.decode()
    assert response.status_code == 200
    assert "NS records" in body
    assert "Add a record" not in body
    assert ">Edit<" not in body
    assert "can't be changed" in body
    assert provider_calls.record_types_read() == ["NS"]


def test_an_unknown_type_shows_every_record(signed_in, active_order, provider_calls):
    response = signed_in.get(url("dns", active_order, "type=PTR"))
    assert response.status_code == 200
    assert b"All records" in response.content
    assert provider_calls.record_types_read() == ALL_TYPES


def test_an_empty_type_says_so(signed_in, active_order, provider_calls):
    response = signed_in.get(url("dns", active_order, "type=AAAA"))
    assert b"No AAAA records yet." in response.content


def test_editable_records_offer_edit_and_delete(signed_in, active_order, add_record):
    add_record("A", "www", "203.0.113.10")
    body = signed_in.get(url("dns", active_order)).content.decode()
    assert url("dns_change", active_order, "type=A&amp;host=www&amp;value=203.0.113.10") in body
    assert url("dns_delete", active_order, "type=A&amp;host=www&amp;value=203.0.113.10") in body


def test_a_provider_outage_is_shown_on_the_page(signed_in, active_order, provider_calls, fake_gateway):
    with fake_gateway.outage(*DNS_METHODS):
        response = signed_in.get(url("dns", active_order))
    assert response.status_code == 503
    assert b"notice-error" in response.content
    assert b"Add a record" in response.content  # the rest of the editor is still there


def test_the_page_shows_the_presets(signed_in, active_order):
    body = signed_in.get(url("dns", active_order)).content.decode()
    assert "Quick setups" in body
    assert "Point the domain at a server" in body


def _nameservers_section(body: str) -> str:
    return body.split('id="nameservers"')[1].split("</section>")[0]


def test_the_nameservers_are_named_and_how_to_point_the_domain_elsewhere_is_explained(signed_in, active_order):
    section = _nameservers_section(signed_in.get(url("dns", active_order, "type=A")).content.decode())

    assert "<code>ns1.sandbox-dns.test</code>" in section and "<code>ns2.sandbox-dns.test</code>" in section
    assert "can't be changed through our provider yet" in section
    assert "at the domain itself (host @): an A record" in section
    assert "at www: a CNAME record" in section
    assert f'href="{reverse("dns_preset", args=[active_order.order_id, "server"])}"' in section


def test_when_the_nameservers_cannot_be_read_the_list_still_shows(signed_in, active_order, add_record, monkeypatch):
    add_record("A", "www", "203.0.113.10")
    listed = services.records_list

    def ns_unavailable(*, order, record_type):
        if record_type == "NS":
            raise Unavailable("The provider did not answer.")
        return listed(order=order, record_type=record_type)

    monkeypatch.setattr(services, "records_list", ns_unavailable)
    response = signed_in.get(url("dns", active_order, "type=A"))

    assert response.status_code == 200
    assert "203.0.113.10" in response.content.decode()
    assert "couldn't read the nameservers" in _nameservers_section(response.content.decode())


def test_the_nameservers_are_explained_in_spanish(signed_in, active_order):
    signed_in.cookies["django_language"] = "es"
    body = signed_in.get(url("dns", active_order), headers={"Accept-Language": "es"}).content.decode()
    section = _nameservers_section(body)
    assert "Servidores de nombres" in section and "ns1.sandbox-dns.test" in section
    assert "Todos los registros" in body and "Tipo de registro" in body


def test_the_zone_read_is_kept_briefly_and_a_change_made_here_shows_at_once(
    signed_in, active_order, add_record, provider_calls
):
    # Eight calls for the whole zone, against the provider's rate limit that every customer shares: kept a moment.
    signed_in.get(url("dns", active_order))
    provider_calls.clear()
    again = signed_in.get(url("dns", active_order))
    assert again.status_code == 200 and provider_calls.record_types_read() == []

    response = signed_in.post(url("dns_add", active_order), {"type": "A", "host": "shop", "value": "203.0.113.44"})
    assert response.status_code == 302

    assert "203.0.113.44" in signed_in.get(url("dns", active_order)).content.decode()
    # The CNAME rule's check before adding, then the whole zone read afresh.
    assert provider_calls.record_types_read() == ["CNAME", *ALL_TYPES]


def test_a_read_past_the_providers_rate_limit_waits_for_it_once_instead_of_failing_the_page(
    signed_in, active_order, add_record, monkeypatch
):
    """The whole zone is eight reads against a limit every customer shares: one answered 429 waits out its
    Retry-After (when short) and is read again, and the page lists every record."""
    from storefront.gateway import RateLimited

    add_record("A", "@", "203.0.113.10")
    listed = services.records_list
    refused: list[str] = []
    waited: list[float] = []

    def busy_once(*, order, record_type):
        if record_type == "A" and not refused:
            refused.append(record_type)
            raise RateLimited(retry_after=0.4)
        return listed(order=order, record_type=record_type)

    monkeypatch.setattr(services, "records_list", busy_once)
    monkeypatch.setattr(services.time, "sleep", waited.append)
    response = signed_in.get(url("dns", active_order))

    assert response.status_code == 200
    assert "203.0.113.10" in response.content.decode()
    assert (refused, waited) == (["A"], [0.4])


def test_a_long_rate_limit_is_said_not_waited_for(signed_in, active_order, monkeypatch):
    from storefront.gateway import RateLimited

    def busy(*, order, record_type):
        raise RateLimited(retry_after=30)

    monkeypatch.setattr(services, "records_list", busy)
    monkeypatch.setattr(services.time, "sleep", lambda seconds: pytest.fail("waited for a long limit"))
    response = signed_in.get(url("dns", active_order))
    assert "The domain service is busy right now." in response.content.decode()


def test_the_nameservers_section_links_to_asking_for_what_the_provider_lacks(signed_in, active_order):
    body = signed_in.get(url("dns", active_order)).content.decode()
    for feature in ("nameservers", "dnssec", "email_forwarding", "url_forwarding"):
        assert f'href="/wanted/{feature}/?order={active_order.order_id}"' in body
