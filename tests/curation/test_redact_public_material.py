"""Certificates, public keys and embedded media are kept byte for byte; a private key is redacted
whatever its block says it is (:mod:`trajectory_platform.curation.redact.public_material`)."""

from __future__ import annotations

import base64
import datetime as dt
import json
import random

import pytest
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID

from trajectory_platform.curation.redact import redact_text

SALT = b"public-material!"

PGP_PUBLIC = """-----BEGIN PGP PUBLIC KEY BLOCK-----

mDMEaxWO2BYJKwYBBAHaRw8BAQdAsrdfqhyRr1dCqDci39zIiK2WamHn9QOz6ZGZ
POBFaUu0G1Rlc3QgS2V5IDx0ZXN0QGV4YW1wbGUub3JnPoiQBBMWCAA4FiEEBZXD
yXOECKUoDCnRO8Jnj0XkdtUFAmsVjtgCGwMFCwkIBwIGFQoJCAsCBBYCAwECHgEC
F4AACgkQO8Jnj0XkdtVSLAEA5Mo+iU2sNfPPkNZ0YHgf165P3EgROW8g08lxRg/t
b9ABAJ0CeyGh3yv8XOCARflI69sFsBDPvEhG7kgEI625Vy0B
=GH8o
-----END PGP PUBLIC KEY BLOCK-----
"""
"""A real (throwaway) ed25519 OpenPGP public key: its first packet is a public key packet."""


@pytest.fixture(scope="module")
def key() -> ec.EllipticCurvePrivateKey:
    return ec.generate_private_key(ec.SECP256R1())


def _certificate(key: ec.EllipticCurvePrivateKey) -> str:
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "svc.example.com")])
    builder = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(key.public_key())
        .serial_number(4242)
        .not_valid_before(dt.datetime(2024, 1, 1))
        .not_valid_after(dt.datetime(2030, 1, 1))
    )
    return builder.sign(key, hashes.SHA256()).public_bytes(serialization.Encoding.PEM).decode()


def _public_texts(key: ec.EllipticCurvePrivateKey) -> dict[str, str]:
    certificate = _certificate(key)
    public_key = key.public_key().public_bytes(
        serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo
    )
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "svc.example.com")])
    csr = x509.CertificateSigningRequestBuilder().subject_name(name).sign(key, hashes.SHA256())
    noise = random.Random(7)
    png = base64.b64encode(b"\x89PNG\r\n\x1a\n" + bytes(noise.randrange(256) for _ in range(900))).decode()
    font = base64.b64encode(bytes(noise.randrange(256) for _ in range(300))).decode()
    der = "".join(certificate.splitlines()[1:-1])
    return {
        "certificate": f"$ cat tls/ca.crt\n{certificate}",
        "public_key": f"$ openssl pkey -in k.pem -pubout\n{public_key.decode()}",
        "csr": csr.public_bytes(serialization.Encoding.PEM).decode(),
        "pgp_public": PGP_PUBLIC,
        "notebook_png": json.dumps({"output_type": "display_data", "data": {"image/png": png}}),
        "css_font": f"src: url(data:font/woff2;base64,{font}) format('woff2');",
        "kubeconfig_ca": "    certificate-authority-data: " + base64.b64encode(certificate.encode()).decode(),
        "saml": f"<ds:X509Certificate>{der}</ds:X509Certificate>",
    }


@pytest.mark.parametrize(
    "case",
    ["certificate", "public_key", "csr", "pgp_public", "notebook_png", "css_font", "kubeconfig_ca", "saml"],
)
def test_public_material_is_kept(key: ec.EllipticCurvePrivateKey, case: str) -> None:
    text = _public_texts(key)[case]
    assert redact_text(text, SALT)[0] == text


def _body_lines(pem: str) -> list[str]:
    return [line for line in pem.splitlines() if line and not line.startswith("-----")]


@pytest.mark.parametrize("label", ["CERTIFICATE", "PUBLIC KEY", "PGP PUBLIC KEY BLOCK"])
def test_a_private_key_under_a_public_label_is_still_redacted(label: str) -> None:
    """The label proves nothing: the body must parse as public material to be kept."""
    private = (
        ec.generate_private_key(ec.SECP384R1())
        .private_bytes(
            serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
        )
        .decode()
    )
    mislabelled = private.replace("PRIVATE KEY", label)
    redacted = redact_text(mislabelled, SALT)[0]
    assert not any(line in redacted for line in _body_lines(private))
