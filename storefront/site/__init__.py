"""What the site is: the reseller's brand, the legal pages, countries, domain names and look-alikes, the provider's
capabilities."""
