"""checks package."""
