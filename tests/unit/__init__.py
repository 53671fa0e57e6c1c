"""Unit tests, one folder per package of the code: tests/unit/<package>/ tests that package."""
