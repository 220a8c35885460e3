"""The DNS editor: `/orders/<order_id>/dns/`. Every view checks ownership before any provider call."""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any
from urllib.parse import urlencode

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.paginator import Paginator
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _
from django.views.decorators.http import require_GET, require_http_methods, require_POST
from django.views.decorators.vary import vary_on_headers
from django_htmx.http import reswap, retarget

from dns import services
from dns.forms import ALL_RECORD_TYPES, ChangeRecordForm, DeleteRecordForm, RecordForm
from dns.presets import PRESETS, Plan, Preset
from dns.services import DnsNotActive, RecordData
from domains.models import Order
from domains.orders.ownership import get_order_for_user
from storefront.errors import error_status
from storefront.gateway import (
    EDITABLE_RECORD_TYPES,
    DnsRecord,
    GatewayError,
    RecordType,
)
from storefront.requests.acting_rules import acting_allowed
from storefront.requests.provider_errors import ProviderError, provider_error
from storefront.requests.request_helpers import is_fragment

if TYPE_CHECKING:  # types only: django_stubs_ext is a development dependency
    from django_stubs_ext import StrOrPromise

# A zone of 500 records was a 580 KB page (issue 29): the list is paged.
RECORDS_PER_PAGE = 50
# `str.isdigit()` accepts '²', which `int()` refuses: only ASCII digits are a priority.
_ASCII_NUMBER = re.compile(r"[0-9]{1,5}")


def _record_type(raw: str | None) -> RecordType:
    value = (raw or "").strip().upper()
    return next((known for known in ALL_RECORD_TYPES if known == value), "A")


def _type_filter(raw: str | None) -> RecordType | None:
    """`?type=MX` lists one type; no type (or one we do not know) lists them all."""
    value = (raw or "").strip().upper()
    return next((known for known in ALL_RECORD_TYPES if known == value), None)


def _error_status(request: HttpRequest, err: GatewayError) -> int:
    return error_status(err, fragment=is_fragment(request))


def _provider_message(err: GatewayError, record: RecordData) -> str:
    # "Duplicate record found" names no record: say which one is already there.
    exact = services.refusal_message(err=err, record=record)
    if exact:
        return exact
    # An unknown outcome says to check first: sending a change again blindly could duplicate it.
    return str(provider_error(err, check=_("the list of records")))


def _editor_url(order: Order, record_type: str | None) -> str:
    base = reverse("dns", args=[order.order_id])
    return f"{base}?type={record_type}" if record_type else base


def _lookup(order: Order):
    """The zone's records of one type, read at most once per request (for the CNAME rules)."""
    seen: dict[str, list[DnsRecord]] = {}

    def existing(record_type: RecordType) -> list[DnsRecord]:
        if record_type not in seen:
            seen[record_type] = services.records_list(order=order, record_type=record_type)
        return seen[record_type]

    return existing


def _record(data: dict[str, Any]) -> RecordData:
    return RecordData(
        type=data["type"], host=data["host"], value=data["value"], ttl=data.get("ttl"), priority=data.get("priority")
    )


def _blank_add_form(order: Order, record_type: str) -> RecordForm:
    initial_type = record_type if record_type in EDITABLE_RECORD_TYPES else "A"
    return RecordForm(domain_name=order.domain_name, initial={"type": initial_type, "host": "@"})


def _editor(
    request: HttpRequest,
    order: Order,
    record_type: RecordType | None,
    *,
    add_form: RecordForm | None = None,
    notice: str = "",
    error: str | ProviderError = "",
    status: int = 200,
) -> HttpResponse:
    """The editor: the zone's records in one list (or one type's), a page at a time, and its nameservers. One
    provider call per type listed (none while DNS is not active)."""
    context: dict[str, Any] = {
        "order": order,
        "record_type": record_type or "",
        "record_types": ALL_RECORD_TYPES,
        "editable_types": EDITABLE_RECORD_TYPES,
        "editable": record_type is None or record_type in EDITABLE_RECORD_TYPES,
        "add_form": add_form or _blank_add_form(order, record_type or "A"),
        "notice": notice,
        "error": error,
        "presets": PRESETS.values(),
    }
    if order.dns_active:
        try:
            context.update(_zone(request, order, record_type))
        except DnsNotActive:
            pass  # the flag is now off: the activate button shows again
        except GatewayError as err:
            context["records_error"] = provider_error(err, what=_("read the records"))
            status = max(status, _error_status(request, err))
    template = "dns/_editor.html" if is_fragment(request) else "dns/records.html"
    return render(request, template, context, status=status)


def _zone(request: HttpRequest, order: Order, record_type: RecordType | None) -> dict[str, Any]:
    """One page of the list, and the nameservers: from the list when it holds the NS records, else read apart
    (if that read fails, the list still shows and the nameservers are said to be unknown)."""
    records = services.zone_records(order=order, record_types=[record_type] if record_type else ALL_RECORD_TYPES)
    page = Paginator(records, RECORDS_PER_PAGE).get_page(request.GET.get("page"))
    nameservers: list[str] | None = None
    if record_type in (None, "NS"):
        nameservers = services.nameservers(records)
    else:
        try:
            nameservers = services.nameservers(services.zone_records(order=order, record_types=["NS"]))
        except GatewayError:
            nameservers = None
    return {
        "records": page.object_list,
        "page": page,
        "total": len(records),
        "priority_column": any(r.priority is not None for r in page.object_list) or record_type in ("MX", "SRV"),
        "nameservers": nameservers,
    }


def _done(request: HttpRequest, order: Order, record_type: RecordType | None, notice: str) -> HttpResponse:
    """After a change: htmx gets the refreshed editor in place; a plain form gets redirected to it."""
    if is_fragment(request):
        response = _editor(request, order, record_type, notice=notice)
        return reswap(retarget(response, "#dns-editor"), "outerHTML")
    messages.success(request, notice)
    return redirect(_editor_url(order, record_type))


def _not_active(request: HttpRequest, order: Order, record_type: RecordType | None) -> HttpResponse:
    message = gettext("DNS is not active for this domain yet. Activate it first.")
    if is_fragment(request):
        response = _editor(request, order, record_type, error=message)
        return reswap(retarget(response, "#dns-editor"), "outerHTML")
    messages.error(request, message)
    return redirect(_editor_url(order, record_type))


@acting_allowed
@login_required
@require_GET
@vary_on_headers("HX-Request")
def dns_records(request: HttpRequest, order_id: int) -> HttpResponse:
    order = get_order_for_user(request.user, order_id)
    record_type = _type_filter(request.GET.get("type"))
    if order.dns_active:
        return _editor(request, order, record_type)
    # A new domain's DNS is off at the provider, and the customer opened the editor to add records: turn it on
    # now rather than make them press a button first. One provider call, however often the page is opened
    # (services.dns_activate claims the flag first); if it fails, the editor offers the button with the reason.
    try:
        activated = services.dns_activate(order=order)
    except GatewayError as err:
        # Whatever went wrong (down, busy, an answer lost), activating again is harmless: offer the button.
        error = replace(
            provider_error(err),
            message=gettext(
                "We could not turn on DNS for %(domain)s just now. Please try the button below in a moment."
            )
            % {"domain": order.domain_name},
            tone="warn",
        )
        return _editor(request, order, record_type, error=error, status=_error_status(request, err))
    notice = (
        gettext("DNS is on for %(domain)s. You can add records now.") % {"domain": order.domain_name}
        if activated
        else ""
    )
    return _editor(request, order, record_type, notice=notice)


@acting_allowed
@login_required
@require_POST
def dns_activate(request: HttpRequest, order_id: int) -> HttpResponse:
    order = get_order_for_user(request.user, order_id)
    try:
        activated = services.dns_activate(order=order)
    except GatewayError as err:
        return _editor(
            request, order, None, error=provider_error(err, what=_("activate DNS")), status=_error_status(request, err)
        )
    notice = gettext("DNS is active. You can add records now.") if activated else gettext("DNS was already active.")
    return _done(request, order, None, notice)


@acting_allowed
@login_required
@require_POST
def dns_add(request: HttpRequest, order_id: int) -> HttpResponse:
    order = get_order_for_user(request.user, order_id)
    record_type = _record_type(request.POST.get("type"))
    if not order.dns_active:
        return _not_active(request, order, record_type)
    form = RecordForm(request.POST, domain_name=order.domain_name, existing=_lookup(order))
    status = 200
    if form.is_valid():
        record = _record(form.cleaned_data)
        try:
            services.record_add(order=order, record=record)
        except DnsNotActive:
            return _not_active(request, order, record.type)
        except GatewayError as err:
            form.add_error(None, _provider_message(err, record))
            status = _error_status(request, err)
        else:
            return _done(request, order, record.type, gettext("Added %(record)s.") % {"record": record.describe()})
    elif not order.dns_active:
        return _not_active(request, order, record_type)  # a listing for the CNAME rules found DNS off
    if is_fragment(request):
        return render(request, "dns/_add_form.html", {"order": order, "add_form": form})
    return _editor(request, order, record_type, add_form=form, status=status)


def _change_response(request: HttpRequest, order: Order, form: ChangeRecordForm, status: int = 200) -> HttpResponse:
    template = "dns/_change_row.html" if is_fragment(request) else "dns/change.html"
    return render(request, template, {"order": order, "form": form}, status=200 if is_fragment(request) else status)


@acting_allowed
@login_required
@require_http_methods(["GET", "POST"])
def dns_change(request: HttpRequest, order_id: int) -> HttpResponse:
    """GET: the form for one record (in place of its row, or as a page). POST: change it."""
    order = get_order_for_user(request.user, order_id)
    if request.method == "GET":
        identify = DeleteRecordForm(request.GET, domain_name=order.domain_name)
        if not identify.is_valid():
            return _bad_record(request, order, identify)
        data = identify.cleaned_data
        initial = {
            "type": data["type"],
            "host": data["host"],
            "current_value": data["value"],
            "value": data["value"],
            "ttl": request.GET.get("ttl") or None,
            "priority": request.GET.get("priority") or None,
        }
        return _change_response(request, order, ChangeRecordForm(domain_name=order.domain_name, initial=initial))

    record_type = _record_type(request.POST.get("type"))
    if not order.dns_active:
        return _not_active(request, order, record_type)
    form = ChangeRecordForm(request.POST, domain_name=order.domain_name)
    if not form.is_valid():
        return _change_response(request, order, form)
    record = _record(form.cleaned_data)
    try:
        services.record_change(order=order, record=record, current_value=form.cleaned_data["current_value"])
    except DnsNotActive:
        return _not_active(request, order, record.type)
    except GatewayError as err:
        form.add_error(None, _provider_message(err, record))
        return _change_response(request, order, form, status=_error_status(request, err))
    return _done(
        request,
        order,
        record.type,
        gettext("Changed the %(type)s record %(host)s to %(value)s.")
        % {"type": record.type, "host": record.host, "value": record.value},
    )


def _delete_response(request: HttpRequest, order: Order, form: DeleteRecordForm, status: int = 200) -> HttpResponse:
    data = form.cleaned_data
    priority = (request.POST if request.method == "POST" else request.GET).get("priority", "")
    record = RecordData(
        type=data["type"],
        host=data["host"],
        value=data["value"],
        priority=int(priority) if _ASCII_NUMBER.fullmatch(priority) else None,
    )
    context = {
        "order": order,
        "form": form,
        "record": record,
        "error": "; ".join(str(error) for error in form.non_field_errors()),
    }
    template = "dns/_delete_row.html" if is_fragment(request) else "dns/delete.html"
    return render(request, template, context, status=200 if is_fragment(request) else status)


def _bad_record(request: HttpRequest, order: Order, form: DeleteRecordForm) -> HttpResponse:
    """A link that does not name an editable record (hand-edited, or a read-only type)."""
    context = {"order": order, "errors": [e for errors in form.errors.values() for e in errors]}
    template = "dns/_bad_record.html" if is_fragment(request) else "dns/bad_record.html"
    return render(request, template, context, status=200 if is_fragment(request) else 400)


@acting_allowed
@login_required
@require_http_methods(["GET", "POST"])
def dns_delete(request: HttpRequest, order_id: int) -> HttpResponse:
    """GET: "Delete A record www → 203.0.113.10?" with the button. POST: delete it."""
    order = get_order_for_user(request.user, order_id)
    form = DeleteRecordForm(request.POST if request.method == "POST" else request.GET, domain_name=order.domain_name)
    if not form.is_valid():
        return _bad_record(request, order, form)
    if request.method == "GET":
        return _delete_response(request, order, form)
    data = form.cleaned_data
    if not order.dns_active:
        return _not_active(request, order, data["type"])
    try:
        services.record_delete(order=order, record_type=data["type"], host=data["host"], value=data["value"])
    except DnsNotActive:
        return _not_active(request, order, data["type"])
    except GatewayError as err:
        record = RecordData(type=data["type"], host=data["host"], value=data["value"])
        form.add_error(None, _provider_message(err, record))
        return _delete_response(request, order, form, status=_error_status(request, err))
    record = RecordData(type=data["type"], host=data["host"], value=data["value"])
    return _done(request, order, record.type, gettext("Deleted the %(record)s.") % {"record": record.describe()})


@dataclass(frozen=True)
class PreviewRow:
    """One line of a preset's preview: what will happen to one record."""

    action: str  # add, skip, change, remove, present
    record: RecordData
    problems: list[str]
    note: str = ""


@acting_allowed
@login_required
@require_http_methods(["GET", "POST"])
def dns_preset(request: HttpRequest, order_id: int, preset: str) -> HttpResponse:
    """GET: the preset's questions, then (with answers) a preview of exactly what changes in the zone, including
    records in the way (replace, keep or merge them). POST: make those changes."""
    order = get_order_for_user(request.user, order_id)
    chosen = PRESETS.get(preset)
    if chosen is None:
        raise Http404
    if not order.dns_active:
        return _not_active(request, order, None)
    data = request.POST if request.method == "POST" else (request.GET or None)
    form = chosen.form_class(data)
    context: dict[str, Any] = {"order": order, "preset": chosen, "form": form}
    if data is not None and form.is_valid():
        try:
            context.update(_preset_step(order, chosen, form, data, apply=request.method == "POST"))
        except DnsNotActive:
            return _not_active(request, order, None)
    template = "dns/_preset.html" if is_fragment(request) else "dns/preset.html"
    response = render(request, template, context)
    if "outcomes" in context and is_fragment(request):
        response["HX-Trigger"] = "dns-changed"
    return response


def _preset_step(order: Order, chosen: Preset, form: Any, data: Any, *, apply: bool) -> dict[str, Any]:
    """The preview of a preset's answered form (and, when `apply`, its changes made): what the page adds."""
    try:
        plan = chosen.plan(
            data=form.cleaned_data,
            domain_name=order.domain_name,
            existing=_lookup(order),
            choice=data.get("existing", ""),
        )
    except DnsNotActive:
        raise  # the view shows how to switch DNS on
    except GatewayError as err:
        reason = gettext("We couldn't read the domain's current records to check them: %(reason)s")
        form.add_error(None, reason % {"reason": err.message})
        return {}
    checks = _check_records(order, plan.add)
    step: dict[str, Any] = {
        "plan": plan,
        "rows": _preview_rows(plan, checks),
        "choice_links": _choice_links(order, chosen, form, plan),
    }
    if apply:
        if plan.conflicts and data.get("seen") != plan.fingerprint:
            # What would be removed or merged is not what the customer was shown: show it again.
            step["changed_since_preview"] = True
        else:
            step["outcomes"] = _apply(order, plan, checks)
    return step


def _preview_rows(plan: Plan, checks: list[tuple[RecordData, list[str]]]) -> list[PreviewRow]:
    rows = [PreviewRow("remove", record, []) for record in plan.remove]
    rows += [
        PreviewRow("change", new, [], note=gettext("now: %(value)s") % {"value": current.value})
        for current, new in plan.change
    ]
    rows += [PreviewRow("skip" if problems else "add", record, problems) for record, problems in checks]
    rows += [PreviewRow("present", record, []) for record in plan.present]
    return rows


def _choice_links(order: Order, preset: Preset, form: Any, plan: Plan) -> list[tuple[str, StrOrPromise, str]]:
    """(value, label, preview URL) for each way of handling the records in the way; links work without JS."""
    answers = {name: form.data.get(name, "") for name in form.fields}
    base = reverse("dns_preset", args=[order.order_id, preset.slug])
    return [(value, label, f"{base}?{urlencode({**answers, 'existing': value})}") for value, label in plan.choices]


def _apply(order: Order, plan: Plan, checks: list[tuple[RecordData, list[str]]]) -> list[services.Outcome]:
    sendable = [record for record, problems in checks if not problems]
    results = services.records_replace(order=order, add=sendable, change=plan.change, remove=plan.remove)
    added = {id(o.record): o for o in results[: len(sendable)]}
    outcomes = [
        added.get(id(record))
        or services.Outcome(
            record=record, ok=False, message=gettext("Not sent: %(problems)s") % {"problems": " ".join(problems)}
        )
        for record, problems in checks
    ]
    outcomes += results[len(sendable) :]
    outcomes += [
        services.Outcome(record=r, ok=True, message=gettext("Already there."), action="present") for r in plan.present
    ]
    return outcomes


def _check_records(order: Order, records: list[RecordData]) -> list[tuple[RecordData, list[str]]]:
    """Each preset record through the same form rules as a typed one; problems listed per record."""
    existing = _lookup(order)
    checks: list[tuple[RecordData, list[str]]] = []
    for record in records:
        form = RecordForm(
            {
                "type": record.type,
                "host": record.host,
                "value": record.value,
                "ttl": record.ttl or "",
                "priority": "" if record.priority is None else record.priority,
            },
            domain_name=order.domain_name,
            existing=existing,
        )
        if form.is_valid():
            checks.append((_record(form.cleaned_data), []))
        else:
            checks.append((record, [str(e) for errors in form.errors.values() for e in errors]))
    return checks
