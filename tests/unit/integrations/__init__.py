"""Unit tests of claim_evidence.integrations."""
