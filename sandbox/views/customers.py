"""Customer signup, auto-login tokens, and a customer's details (read and changed)."""

from __future__ import annotations

import datetime as dt
import secrets

from django.contrib.auth.hashers import make_password
from django.db import IntegrityError, transaction
from django.http import HttpRequest, JsonResponse
from django.utils import timezone

from sandbox.api import Context, endpoint, error, json_body, plain, success
from sandbox.models import AutoLoginToken, Customer, hash_secret
from sandbox.signup import clean_details, clean_signup
from sandbox.views.domains import INVALID_CUSTOMER, owned_customer

SIGNUP_FAILED = "Signup Failed, please ensure that all the fields are valid and in English"
USER_EXISTS = "User already exists"
TOKEN_LIFETIME = dt.timedelta(minutes=5)


@endpoint(methods=("POST",), groups=("customers",))
def signup(request: HttpRequest, ctx: Context) -> JsonResponse:
    cleaned = clean_signup(json_body(request))
    if cleaned is None:
        # The OpenAPI documents this refusal as a 500, odd as that is; only a duplicate email is a 422.
        return error(SIGNUP_FAILED, 500)
    if Customer.objects.filter(environment=ctx.environment, email__iexact=cleaned["email"]).exists():
        return plain(USER_EXISTS, 422)
    password = make_password(cleaned.pop("password"))
    for _ in range(5):
        customer = Customer(partner=ctx.partner, environment=ctx.environment, password=password, **cleaned)
        try:
            with transaction.atomic():
                customer.save()
        except IntegrityError:
            if Customer.objects.filter(environment=ctx.environment, email__iexact=cleaned["email"]).exists():
                return plain(USER_EXISTS, 422)
            continue  # a customer id collided; draw another
        return JsonResponse({"message": "Customer created", "customer_id": customer.customer_id}, status=201)
    return error("Signup failed (unexpected registrar response)", 502)


@endpoint(methods=("POST",), groups=("customers",))
def auto_login(request: HttpRequest, ctx: Context) -> JsonResponse:
    email = json_body(request).get("email")
    customer = None
    if isinstance(email, str) and email.strip():
        customer = Customer.objects.filter(
            partner=ctx.partner, environment=ctx.environment, email__iexact=email.strip()
        ).first()
    if customer is None:
        return error("Invalid customer email")
    token = secrets.token_hex(32)
    expires_at = (timezone.now() + TOKEN_LIFETIME).replace(microsecond=0)
    AutoLoginToken.objects.create(customer=customer, token_hash=hash_secret(token), expires_at=expires_at)
    return JsonResponse(
        {
            "status": "SUCCESS",
            "email": customer.email,
            "token": token,
            "expires_at": expires_at.astimezone(dt.UTC).strftime("%Y-%m-%d %H:%M:%S"),
        }
    )


def customer_body(customer: Customer) -> dict[str, object]:
    return {"customer_id": customer.customer_id, **customer.details()}


@endpoint(methods=("GET", "PUT"), groups=("customers",))
def details(request: HttpRequest, ctx: Context) -> JsonResponse:
    """`GET` and `PUT /api/v1/customers/details` ("coming soon" at the provider; shapes are the sandbox's own).

    PUT replaces every contact field of signup (the password is not a detail) by signup's own rules, and is
    refused with signup's own sentences: the same rules, so the same documented refusals.
    """
    if request.method == "GET":
        customer = owned_customer(ctx, request.GET.get("customer_id"))
        if customer is None:
            return error(INVALID_CUSTOMER)
        return JsonResponse(customer_body(customer))
    data = json_body(request)
    customer = owned_customer(ctx, data.get("customer_id"))
    if customer is None:
        return error(INVALID_CUSTOMER)
    cleaned = clean_details(data)
    if cleaned is None:
        return error(SIGNUP_FAILED)
    same_email = Customer.objects.filter(environment=ctx.environment, email__iexact=cleaned["email"])
    if same_email.exclude(pk=customer.pk).exists():
        return plain(USER_EXISTS, 422)
    for field, value in cleaned.items():
        setattr(customer, field, value)
    try:
        with transaction.atomic():
            customer.save(update_fields=list(cleaned))
    except IntegrityError:
        return plain(USER_EXISTS, 422)  # another customer took the email a moment earlier
    return success("Customer details updated", **customer_body(customer))
