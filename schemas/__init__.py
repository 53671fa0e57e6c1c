"""Data files of claim-evidence (JSON Schema, fingerprint vectors), shipped in the wheel."""
