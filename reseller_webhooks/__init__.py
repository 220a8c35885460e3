"""Outgoing webhooks: the store tells the reseller's other systems what happened (docs/webhooks.md).

`events` (what can happen, and `webhook_event_emit`, the one call the store's services make where each thing is
recorded), `signing` (the `Storefront-Signature` header and its check), `addresses` (where a delivery may go),
`sending` (one attempt, the backoff, giving up, disabling an endpoint), `tasks` (the worker's side).

It sits just above `storefront` and imports no other app: the services of accounts, billing and domains call it
with plain facts (as they call the activity log), so it never needs their models.
"""
