"""Work outside requests: the worker, the scheduler, the email outbox (and the development mailbox), retries and claims.
The task functions themselves stay in storefront/tasks.py (their paths are stored with each queued task)."""
