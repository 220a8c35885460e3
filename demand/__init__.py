"""What customers reach for that the provider cannot do yet (docs/webhooks.md "Demand"): counted per customer, TLD,
feature and month for the provider, and each customer who asks is emailed once when it arrives.

A Django app of its own, not part of reseller_webhooks: it is a customer-facing page with its own rows and email,
reading the customer's domains (an ownership check), so it sits above accounts and domains, where the webhooks sit
below them; the two share nothing but the admin.
"""
