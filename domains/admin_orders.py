"""Admin for local order copies (issue 7)."""
