"""Fixtures for catalog tests (the helpers live in catalog_helpers so tests can import them)."""

from catalog_helpers import edit, resources_copy

__all__ = ["edit", "resources_copy"]
