"""Signing up: our account at once, the provider's customer once the address is confirmed; allauth's hooks, signals and
wording, the account emails, whether a customer may buy yet."""
