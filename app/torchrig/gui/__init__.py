"""The only package that imports PySide6 (a test enforces this)."""
