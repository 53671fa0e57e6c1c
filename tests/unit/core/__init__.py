"""Unit tests of claim_evidence._core."""
