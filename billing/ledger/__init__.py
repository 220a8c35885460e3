"""The books: every money movement (books.py), the figures a customer is shown, the lines of a payment, tax, and the
revenue and tax reports computed from the ledger."""
