"""``review record --sign``, ``review sign`` and ``validate --config`` on signed reviews: exact output, with
real keys made for the test (HOME in the test's folder: no key of the user is read)."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest

from claim_evidence._site.config import load_config
from claim_evidence.news import CorrectionRegistryError, load_corrections

from ...news_support import URL, registry_value, write_registry
from ...signing_support import Keys, keys, site, write_json

__all__ = ["keys"]
REVIEW = ("--claim", "fictional-rate", "--method", "human_document_review", "--checked-at", "2026-10-01")
TODAY = ("--today", "2026-12-01")
CE905 = (
    "b.json:21:7: CE905 [fictional-rate] statement has numbers but no quoted passage to check them against "
    "(add quote.exact to a source_ref): 72.6 (warning)\n"
)


@pytest.fixture
def signed_site(keys: Keys, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, bundle: dict[str, Any]) -> Path:
    key = keys.make("reviewer")
    folder = tmp_path / "site"
    site(folder, keys.line("編集部", key), 'require_signature = "error"\n')
    write_json(folder / "b.json", bundle)
    monkeypatch.chdir(folder)
    return key


def _signature(path: str = "b.json") -> dict[str, Any]:
    value: dict[str, Any] = json.loads(Path(path).read_text(encoding="utf-8"))["claims"][0]["verification"]
    return value.get("signature", {})


def test_review_record_sign_writes_and_names_the_signer(run: Any, signed_site: Path) -> None:
    code, out, err = run("review", "record", "b.json", *REVIEW, *TODAY, "--sign", "--key", str(signed_site))
    assert (code, err) == (0, "")
    assert out.endswith(
        "b.json: review of fictional-rate recorded, signed by 編集部\n"
        + CE905.replace("21:7", "$.claims[0].source_refs")
    )
    assert _signature()["signer"] == "編集部"
    assert run("validate", "--config", "claim-evidence.toml", *TODAY, "b.json") == (
        0,
        "PASS b.json\n" + CE905 + "1 file: 1 passed, 0 failed\n",
        "",
    )


def test_review_record_signs_again_unless_no_sign(run: Any, signed_site: Path) -> None:
    run("review", "record", "b.json", *REVIEW, *TODAY, "--sign", "--key", str(signed_site))
    first = _signature()["sig"]
    code, out, _ = run("review", "record", "b.json", *REVIEW[:-1], "2026-10-02", *TODAY, "--key", str(signed_site))
    assert code == 0 and "b.json: review of fictional-rate recorded, signed by 編集部\n" in out
    assert _signature()["sig"] != first
    assert run("validate", "--config", "claim-evidence.toml", *TODAY, "b.json")[0] == 0
    code, out, _ = run("review", "record", "b.json", *REVIEW[:-1], "2026-10-03", *TODAY, "--no-sign")
    assert code == 0 and "b.json: review of fictional-rate recorded\n" in out
    assert _signature() == {}
    code, out, _ = run("validate", "--config", "claim-evidence.toml", *TODAY, "b.json")
    assert code == 1
    assert (
        "b.json:34:7: CE414 [fictional-rate] the review of claim fictional-rate is not signed: nobody vouches for its "
        "status, checked_at and method; sign it with claim-evidence review sign b.json --claim fictional-rate (the "
        "reviewer's SSH key; --key PATH)\n"
    ) in out


def test_review_sign_then_a_status_edit_is_caught(run: Any, signed_site: Path) -> None:
    assert run("review", "sign", "b.json", "--claim", "fictional-rate", "--key", str(signed_site)) == (
        0,
        "b.json: review of fictional-rate signed by 編集部\n",
        "",
    )
    text = Path("b.json").read_text(encoding="utf-8")
    Path("b.json").write_text(text.replace('"status": "matched"', '"status": "partial"'), encoding="utf-8")
    code, out, _ = run("validate", "--config", "claim-evidence.toml", *TODAY, "b.json")
    assert code == 1
    assert (
        "b.json:38:9: CE411 [fictional-rate] the signature of 編集部 does not match this review (claim id, fingerprint, "
        "status, checked_at, method, review_by, signer): a value was changed after signing, or the signature was "
        "copied from another claim; read the sources again and record the review with claim-evidence review record "
        "b.json --claim fictional-rate --method … --checked-at … --sign\n"
    ) in out
    code, out, _ = run(
        "validate", *TODAY, "b.json"
    )  # without the site's allowed_signers: a note, never a pass by silence
    assert code == 0 and "CE415 [fictional-rate] the signature of 編集部 was not verified" in out


def test_review_sign_refuses_a_claim_without_review(run: Any, signed_site: Path, bundle: dict[str, Any]) -> None:
    del bundle["claims"][0]["verification"]
    bundle["claims"][0]["status"] = "unverified"
    before = write_json(Path("b.json"), bundle)
    assert run("review", "sign", "b.json", "--claim", "fictional-rate", "--key", str(signed_site)) == (
        1,
        "",
        "claim-evidence: review of fictional-rate not signed: it has no review to sign; record one with "
        "claim-evidence review record b.json --claim fictional-rate --method … --checked-at … --sign; b.json is unchanged\n",
    )
    assert Path("b.json").read_text(encoding="utf-8") == before


def test_review_sign_refuses_a_review_that_no_longer_covers(run: Any, signed_site: Path) -> None:
    text = Path("b.json").read_text(encoding="utf-8").replace("72.6%", "72.7%")
    Path("b.json").write_text(text, encoding="utf-8")
    code, out, err = run("review", "sign", "b.json", "--claim", "fictional-rate", "--key", str(signed_site))
    assert (code, out) == (1, "")
    assert err.startswith("claim-evidence: b.json:")
    assert " CE403 [fictional-rate] review fingerprint does not match current statement/conditions/sources" in err
    assert err.endswith(
        "claim-evidence: review of fictional-rate not signed: fix the errors above first (review record re-records a "
        "review); b.json is unchanged\n"
    )
    assert Path("b.json").read_text(encoding="utf-8") == text


def test_review_sign_refuses_a_key_the_site_does_not_list(run: Any, signed_site: Path, keys: Keys) -> None:
    stranger = keys.make("stranger")
    before = Path("b.json").read_text(encoding="utf-8")
    code, out, err = run("review", "sign", "b.json", "--claim", "fictional-rate", "--key", str(stranger))
    assert (code, out) == (2, "")
    assert err == (
        f"claim-evidence: error: allowed_signers does not list the key {stranger} for the claim-evidence namespace: "
        f'add the line PRINCIPAL namespaces="claim-evidence" {keys.public(stranger)} to it, or give --signer PRINCIPAL\n'
    )
    code, out, err = run(
        "review", "sign", "b.json", "--claim", "fictional-rate", "--key", str(stranger), "--signer", "編集部"
    )
    assert (code, out) == (1, "")
    assert err.startswith(
        "claim-evidence: b.json:$.claims[0].verification.signature: CE412 [fictional-rate] signer 編集部 is not allowed by allowed_signers"
    )
    assert err.endswith(
        "claim-evidence: review of fictional-rate not signed: this key cannot sign reviews of this site; b.json is unchanged\n"
    )
    assert Path("b.json").read_text(encoding="utf-8") == before


def test_review_sign_uses_gits_signing_key(run: Any, signed_site: Path, keys: Keys) -> None:
    subprocess.run(["git", "config", "--global", "gpg.format", "ssh"], check=True)
    subprocess.run(["git", "config", "--global", "user.signingkey", str(signed_site)], check=True)
    assert run("review", "sign", "b.json", "--claim", "fictional-rate")[0:2] == (
        0,
        "b.json: review of fictional-rate signed by 編集部\n",
    )


def test_review_sign_default_key_is_id_ed25519(run: Any, signed_site: Path) -> None:
    code, _, err = run("review", "sign", "b.json", "--claim", "fictional-rate")
    assert code == 2
    assert err.startswith("claim-evidence: error: cannot read the public key of ")
    assert err.endswith("/home/.ssh/id_ed25519: give the key file with --key PATH (KEY.pub beside it)\n")


def test_without_ssh_keygen_signing_and_verifying_say_so(
    run: Any, signed_site: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert run("review", "sign", "b.json", "--claim", "fictional-rate", "--key", str(signed_site))[0] == 0
    before = Path("b.json").read_text(encoding="utf-8")
    monkeypatch.setenv("CLAIM_EVIDENCE_SSH_KEYGEN", str(tmp_path / "no-ssh-keygen"))
    assert run("review", "sign", "b.json", "--claim", "fictional-rate", "--key", str(signed_site)) == (
        2,
        "",
        f"claim-evidence: error: cannot sign with {signed_site}: ssh-keygen not found on PATH (it comes with OpenSSH, "
        "as git's SSH signing needs)\n",
    )
    assert Path("b.json").read_text(encoding="utf-8") == before
    code, out, _ = run("validate", "--config", "claim-evidence.toml", *TODAY, "b.json")
    assert code == 1
    assert (
        "b.json:38:9: CE415 [fictional-rate] the signature of 編集部 cannot be verified: ssh-keygen not found on PATH; "
        "install OpenSSH's ssh-keygen (git's SSH signing uses the same), or set CLAIM_EVIDENCE_SSH_KEYGEN to its path\n"
    ) in out


# --- the news correction registry: one article's bundle among others, named by the claim id ---------------


@pytest.fixture
def registry_site(keys: Keys, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    key = keys.make("reviewer")
    folder = tmp_path / "site"
    site(folder, keys.line("編集部", key))  # require_signature: false, so an unsigned review is a note
    write_registry(folder, registry_value())
    monkeypatch.chdir(folder)
    return key


def _registry_findings() -> list[Any]:
    policy = load_config(Path("claim-evidence.toml")).options.policy
    try:
        return list(load_corrections("corrections.json", policy=policy).diagnostics)
    except CorrectionRegistryError as exc:
        return list(exc.diagnostics)


def test_review_sign_on_the_registry_signs_the_command_ce414_names(run: Any, registry_site: Path) -> None:
    before = registry_value()
    (unsigned, *_) = [d for d in _registry_findings() if d.code == "CE414"]
    assert (unsigned.file, unsigned.line, unsigned.path, unsigned.message) == (
        "corrections.json",
        46,  # the line of its "verification"
        f'$["{URL}"].claim_evidence.claims[0].verification',
        "the review of claim nornbay-valuation is not signed: nobody vouches for its status, checked_at and "
        "method; sign it with claim-evidence review sign corrections.json --claim nornbay-valuation (the "
        "reviewer's SSH key; --key PATH)",
    )
    command = ("review", "sign", "corrections.json", "--claim", "nornbay-valuation", "--key", str(registry_site))
    assert run(*command) == (0, "corrections.json: review of nornbay-valuation signed by 編集部\n", "")
    after = json.loads(Path("corrections.json").read_text(encoding="utf-8"))
    signature = after[URL]["claim_evidence"]["claims"][0]["verification"].pop("signature")
    assert signature["signer"] == "編集部" and after == before  # only the signature was added
    assert [d.path for d in _registry_findings() if d.code == "CE414"] == [
        f'$["{URL}"].claim_evidence.claims[{i}].verification' for i in (1, 2)
    ]
    text = Path("corrections.json").read_text(encoding="utf-8")
    Path("corrections.json").write_text(text.replace('"status": "matched"', '"status": "partial"', 1), "utf-8")
    (tampered,) = [d for d in _registry_findings() if d.is_error]
    assert (tampered.code, tampered.path) == ("CE411", f'$["{URL}"].claim_evidence.claims[0].verification.signature')
    assert tampered.message.endswith(
        "record the review with claim-evidence review record corrections.json --claim nornbay-valuation "
        "--method … --checked-at … --sign"
    )


def test_review_record_sign_on_the_registry(run: Any, registry_site: Path) -> None:
    args = ("--claim", "nornbay-raise", "--method", "human_document_review", "--checked-at", "2026-09-05")
    code, out, err = run("review", "record", "corrections.json", *args, *TODAY, "--sign", "--key", str(registry_site))
    assert (code, err) == (0, "")
    assert out.endswith("corrections.json: review of nornbay-raise recorded, signed by 編集部\n")
    claims = json.loads(Path("corrections.json").read_text(encoding="utf-8"))[URL]["claim_evidence"]["claims"]
    assert (claims[1]["verification"]["checked_at"], claims[1]["verification"]["signature"]["signer"]) == (
        "2026-09-05",
        "編集部",
    )
    assert [d.code for d in _registry_findings() if d.path.startswith(f'$["{URL}"].claim_evidence.claims[1]')] == []


def test_review_sign_on_the_registry_refuses_a_claim_id_two_articles_have(run: Any, registry_site: Path) -> None:
    value = registry_value()
    other = "https://example.com/news/nornbay-compute-funding-2"
    value[other] = value[URL]
    write_registry(Path.cwd(), value)
    text = Path("corrections.json").read_bytes()
    code, out, err = run("review", "sign", "corrections.json", "--claim", "nornbay-raise", "--key", str(registry_site))
    assert (code, out) == (2, "")
    assert err == (
        f"claim-evidence: error: corrections.json: the articles {URL}, {other} each have a claim 'nornbay-raise'; "
        "give each its own id\n"
    )
    assert Path("corrections.json").read_bytes() == text
    for command, *more in (("sign",), ("record", *REVIEW[2:], *TODAY)):
        code, out, err = run("review", command, "corrections.json", "--claim", "kumo-speed", *more)
        assert (code, out) == (2, "")
        assert err.endswith(
            "Error: Invalid value for '--claim': corrections.json has no claim with id 'kumo-speed'; its claims: "
            "nornbay-valuation, nornbay-raise, nornbay-contract\n"
        )
    assert Path("corrections.json").read_bytes() == text
