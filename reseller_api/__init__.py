"""The reseller's own REST API for its staff systems (accounting, CRM, support desk) under /api/v1/ (docs/api.md).

Read-mostly: customers, domains, payments, ledger entries and the activity log, and one write (a domain's
auto-renew switch, through the same service as the customer's own switch). Callers present a key staff made in the
admin (`Authorization: Bearer …`); no session, no customer, ever. Built on django-ninja: the responses are pydantic
schemas mypy checks, and the OpenAPI description is generated from the same types (tests run schemathesis on it).

Nothing in the other apps imports this one (import-linter): it reads their models and calls one service.
"""
