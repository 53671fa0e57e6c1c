"""Unit tests of claim_evidence.cli."""
