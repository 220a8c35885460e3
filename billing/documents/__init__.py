"""Receipts and credit notes: what they show (contents.py), issuing them, their PDF and e-invoices, and their emails."""
