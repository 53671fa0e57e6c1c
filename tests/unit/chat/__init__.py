"""Unit tests of claim_evidence.chat."""
