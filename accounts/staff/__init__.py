"""What staff do to a customer's account: acting as the customer, and the activity log of who did what."""
