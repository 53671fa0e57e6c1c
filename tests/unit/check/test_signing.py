"""``_check.signing``: every review signature verified against the site's allowed_signers (CE410-CE415),
with real keys: tampered values, a removed signature, an unknown signer, an expired key, a key allowed
for another namespace, a signature moved to another claim."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import pytest

from claim_evidence._check.reviewsign import principal_for, sign_claim
from claim_evidence._check.signing import signing_diagnostics
from claim_evidence._core.diagnostics import Diagnostic
from claim_evidence._record.validation import iter_diagnostics
from claim_evidence._site.config import load_config

from ...signing_support import Keys, keys, site

__all__ = ["keys"]
AT = "$.claims[0].verification.signature"
REDO = (
    "read the sources again and record the review with claim-evidence review record b.json --claim fictional-rate "
    "--method … --checked-at … --sign"
)
TAMPERED = Diagnostic(
    "CE411",
    "the signature of 編集部 does not match this review (claim id, fingerprint, status, checked_at, method, "
    f"review_by, signer): a value was changed after signing, or the signature was copied from another claim; {REDO}",
    AT,
    subject="claim fictional-rate",
)


def _signed(bundle: dict[str, Any], keys: Keys, tmp_path: Path, kind: str = "ed25519", extra: str = "") -> Any:
    key = keys.make("reviewer", kind)
    reviews = load_config(site(tmp_path / "site", keys.line("編集部", key), extra)).options.policy.reviews
    signed = sign_claim(bundle, 0, str(key), principal_for(str(key), reviews), reviews, "b.json")
    return signed, reviews, key


@pytest.mark.parametrize("kind", ["ed25519", "rsa"])
def test_signing_a_signed_review_verifies(bundle: dict[str, Any], keys: Keys, tmp_path: Path, kind: str) -> None:
    signed, reviews, _ = _signed(bundle, keys, tmp_path, kind)
    assert signed["claims"][0]["verification"]["signature"]["signer"] == "編集部"
    assert signing_diagnostics(signed, reviews, "b.json") == []
    assert [d for d in iter_diagnostics(signed) if d.code.startswith("CE4") or d.code == "CE900"] == []
    assert "signature" not in bundle["claims"][0]["verification"]  # the input is not changed


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("status", "partial"),
        ("checked_at", "2026-09-06"),
        ("method", "human_document_review"),
        ("review_by", "2027-01-01"),
    ],
)
def test_signing_a_value_changed_after_signing(
    bundle: dict[str, Any], keys: Keys, tmp_path: Path, field: str, value: str
) -> None:
    signed, reviews, _ = _signed(bundle, keys, tmp_path)
    claim = signed["claims"][0]
    (claim if field == "status" else claim["verification"])[field] = value
    assert signing_diagnostics(signed, reviews, "b.json") == [TAMPERED]


def test_signing_a_signature_moved_to_another_claim(bundle: dict[str, Any], keys: Keys, tmp_path: Path) -> None:
    signed, reviews, _ = _signed(bundle, keys, tmp_path)
    other = copy.deepcopy(bundle["claims"][0])
    other["id"] = "other-rate"
    other["verification"]["signature"] = signed["claims"][0]["verification"]["signature"]
    signed["claims"].append(other)
    found = signing_diagnostics(signed, reviews, "b.json")
    assert [(d.code, d.path, d.subject) for d in found] == [
        ("CE411", "$.claims[1].verification.signature", "claim other-rate")
    ]


def test_signing_a_removed_signature_where_required(bundle: dict[str, Any], keys: Keys, tmp_path: Path) -> None:
    signed, reviews, _ = _signed(bundle, keys, tmp_path, extra='require_signature = "error"\n')
    del signed["claims"][0]["verification"]["signature"]
    assert signing_diagnostics(signed, reviews, "site/b.json") == [
        Diagnostic(
            "CE414",
            "the review of claim fictional-rate is not signed: nobody vouches for its status, checked_at and method; "
            "sign it with claim-evidence review sign site/b.json --claim fictional-rate (the reviewer's SSH key; "
            "--key PATH)",
            "$.claims[0].verification",
            "error",
            "claim fictional-rate",
        )
    ]


@pytest.mark.parametrize(
    ("setting", "severity"),
    [
        ("", "note"),
        ("require_signature = true\n", "warning"),
        ('[reviews.require_signature]\nvendor_claim = "error"\n', "error"),
        ('[reviews.require_signature]\nreporting = "error"\n', "note"),
    ],
)
def test_signing_unsigned_severity_per_basis(
    bundle: dict[str, Any], keys: Keys, tmp_path: Path, setting: str, severity: str
) -> None:
    reviews = load_config(site(tmp_path / "site", "", setting)).options.policy.reviews
    assert [(d.code, d.severity) for d in signing_diagnostics(bundle, reviews, "b.json")] == [("CE414", severity)]
    assert signing_diagnostics(bundle, None, "b.json") == []  # a site without [reviews] asks no signature


def test_signing_unknown_signer(bundle: dict[str, Any], keys: Keys, tmp_path: Path) -> None:
    signed, _, key = _signed(bundle, keys, tmp_path)
    stranger = keys.make("stranger")
    reviews = load_config(site(tmp_path / "other", keys.line("編集部", stranger))).options.policy.reviews
    assert signing_diagnostics(signed, reviews, "b.json") == [
        Diagnostic(
            "CE412",
            "signer 編集部 is not allowed by allowed_signers: no line there allows this key for 編集部 in the namespace "
            'claim-evidence; add `編集部 namespaces="claim-evidence" KEY` (the public key) to it if 編集部 is to be '
            "trusted, else sign again with claim-evidence review sign b.json --claim fictional-rate --key PATH",
            AT,
            subject="claim fictional-rate",
        )
    ]


def test_signing_key_allowed_for_another_namespace(bundle: dict[str, Any], keys: Keys, tmp_path: Path) -> None:
    signed, _, key = _signed(bundle, keys, tmp_path)
    line = keys.line("編集部", key, 'namespaces="git"')
    reviews = load_config(site(tmp_path / "other", line)).options.policy.reviews
    (found,) = signing_diagnostics(signed, reviews, "b.json")
    assert (found.code, found.severity) == ("CE412", "error")
    assert "in the namespace claim-evidence (line 1 allows the key for other namespaces only);" in found.message


def test_signing_expired_key(bundle: dict[str, Any], keys: Keys, tmp_path: Path) -> None:
    signed, _, key = _signed(bundle, keys, tmp_path, "rsa")
    line = keys.line("編集部", key, 'namespaces="claim-evidence",valid-before="20260901"')
    reviews = load_config(site(tmp_path / "other", "# retired 2026-09-01\n" + line)).options.policy.reviews
    assert signing_diagnostics(signed, reviews, "b.json") == [
        Diagnostic(
            "CE413",
            "the key 編集部 signed with was not valid on checked_at 2026-09-05 (allowed_signers line 2: "
            f"valid-before/valid-after): a retired or revoked key; {REDO} --key PATH (a current key)",
            AT,
            subject="claim fictional-rate",
        )
    ]
    signed["claims"][0]["verification"]["checked_at"] = "2026-08-31"  # and a review made before it: re-signed
    assert signing_diagnostics(signed, reviews, "b.json") == [TAMPERED]


def test_signing_not_verified(
    bundle: dict[str, Any], keys: Keys, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    signed, reviews, _ = _signed(bundle, keys, tmp_path)
    (note,) = signing_diagnostics(signed, None, "b.json")
    assert (note.code, note.severity, note.path) == ("CE415", "note", AT)
    monkeypatch.setenv("CLAIM_EVIDENCE_SSH_KEYGEN", str(tmp_path / "none"))
    assert signing_diagnostics(signed, reviews, "b.json") == [
        Diagnostic(
            "CE415",
            "the signature of 編集部 cannot be verified: ssh-keygen not found on PATH; install OpenSSH's ssh-keygen "
            "(git's SSH signing uses the same), or set CLAIM_EVIDENCE_SSH_KEYGEN to its path",
            AT,
            subject="claim fictional-rate",
        )
    ]


def test_signing_signature_schema(bundle: dict[str, Any]) -> None:
    bundle["claims"][0]["verification"]["signature"] = {"signer": "a b", "sig": "x"}
    found = [(d.path, d.message) for d in iter_diagnostics(bundle) if d.code == "CE410"]
    assert [path for path, _ in found] == [
        "$.claims[0].verification.signature.sig",
        "$.claims[0].verification.signature.signer",
    ]
    assert found[1][1].startswith("signature.signer must be a principal of allowed_signers")
    bundle["claims"][0]["verification"]["signature"] = "-----BEGIN SSH SIGNATURE-----"
    assert [d.code for d in iter_diagnostics(bundle) if d.path == AT] == ["CE410"]
    assert signing_diagnostics(bundle, None, "b.json") == []  # nothing to verify: the schema's finding says it
