"""Unit tests of static_helper."""
