"""gym package."""
