"""Keeping accounts safe: sign-in limits, the provider's password rules, security notices, staff's two-factor
requirement."""
