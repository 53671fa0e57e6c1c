"""Unit tests of claim_evidence.news."""
