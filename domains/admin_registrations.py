"""Admin for registrations (issue 6)."""
