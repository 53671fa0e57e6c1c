"""Unit tests of claim_evidence._site."""
