"""curation package."""
