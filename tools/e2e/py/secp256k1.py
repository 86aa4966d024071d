"""secp256k1 in pure Python: point arithmetic, RFC 6979 deterministic nonces, low-S ECDSA signing,
verification and public key recovery. Not constant-time: for tests and reference tools."""

from __future__ import annotations

import hashlib
import hmac
import secrets
from dataclasses import dataclass


P = 2**256 - 2**32 - 977
N = 0xFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFEBAAEDCE6AF48A03BBFD25E8CD0364141
HALF_N = N // 2
G = (
    0x79BE667EF9DCBBAC55A06295CE870B07029BFCDB2DCE28D959F2815B16F81798,
    0x483ADA7726A3C4655DA4FBFC0E1108A8FD17B448A68554199C47D08FFB10D4B8,
)

Point = tuple[int, int] | None  # None: the point at infinity


def _jacobian_double(p: tuple[int, int, int]) -> tuple[int, int, int]:
    x, y, z = p
    if y == 0 or z == 0:
        return (0, 1, 0)
    ysq = y * y % P
    s = 4 * x * ysq % P
    m = 3 * x * x % P  # a = 0 on secp256k1
    nx = (m * m - 2 * s) % P
    ny = (m * (s - nx) - 8 * ysq * ysq) % P
    return (nx, ny, 2 * y * z % P)


def _jacobian_add(p: tuple[int, int, int], q: tuple[int, int, int]) -> tuple[int, int, int]:
    if p[2] == 0:
        return q
    if q[2] == 0:
        return p
    x1, y1, z1 = p
    x2, y2, z2 = q
    z1s, z2s = z1 * z1 % P, z2 * z2 % P
    u1, u2 = x1 * z2s % P, x2 * z1s % P
    s1, s2 = y1 * z2s * z2 % P, y2 * z1s * z1 % P
    if u1 == u2:
        return _jacobian_double(p) if s1 == s2 else (0, 1, 0)
    h, r = (u2 - u1) % P, (s2 - s1) % P
    hs = h * h % P
    hc = hs * h % P
    nx = (r * r - hc - 2 * u1 * hs) % P
    ny = (r * (u1 * hs - nx) - s1 * hc) % P
    return (nx, ny, h * z1 * z2 % P)


def _to_affine(p: tuple[int, int, int]) -> Point:
    x, y, z = p
    if z == 0:
        return None
    zi = pow(z, -1, P)
    return (x * zi * zi % P, y * zi * zi * zi % P)


def point_mul(k: int, point: Point = G) -> Point:
    if point is None or k % N == 0:
        return None
    result = (0, 1, 0)
    addend = (point[0], point[1], 1)
    k %= N
    while k:
        if k & 1:
            result = _jacobian_add(result, addend)
        addend = _jacobian_double(addend)
        k >>= 1
    return _to_affine(result)


def point_add(p: Point, q: Point) -> Point:
    if p is None:
        return q
    if q is None:
        return p
    return _to_affine(_jacobian_add((p[0], p[1], 1), (q[0], q[1], 1)))


def is_on_curve(point: Point) -> bool:
    if point is None:
        return False
    x, y = point
    return 0 <= x < P and 0 <= y < P and (y * y - x * x * x - 7) % P == 0


def lift_x(x: int, odd: bool) -> Point:
    """The curve point with this x and y of the given parity, or None."""
    if not 0 <= x < P:
        return None
    y_sq = (pow(x, 3, P) + 7) % P
    y = pow(y_sq, (P + 1) // 4, P)
    if y * y % P != y_sq:
        return None
    if (y & 1) != odd:
        y = P - y
    return (x, y)


def compress(point: Point) -> bytes:
    assert point is not None
    return bytes([2 + (point[1] & 1)]) + point[0].to_bytes(32, "big")


def decompress(public_key: bytes) -> Point:
    if len(public_key) != 33 or public_key[0] not in (2, 3):
        raise ValueError("a public key is 33 bytes, 02 or 03 first")
    point = lift_x(int.from_bytes(public_key[1:], "big"), public_key[0] == 3)
    if point is None:
        raise ValueError("public key is not on secp256k1")
    return point


def public_key(private_key: int) -> bytes:
    """The 33-byte compressed public key."""
    check_scalar(private_key)
    return compress(point_mul(private_key))


def check_scalar(private_key: int) -> None:
    if not 1 <= private_key < N:
        raise ValueError("a private key is a scalar 1 <= d < n")


def random_private_key() -> int:
    return secrets.randbelow(N - 1) + 1


def _rfc6979_nonces(private_key: int, digest: bytes):
    """RFC 6979 section 3.2 with HMAC-SHA256, qlen = hlen = 256."""
    x = private_key.to_bytes(32, "big")
    h1 = (int.from_bytes(digest, "big") % N).to_bytes(32, "big")
    v, k = b"\x01" * 32, b"\x00" * 32
    k = hmac.new(k, v + b"\x00" + x + h1, hashlib.sha256).digest()
    v = hmac.new(k, v, hashlib.sha256).digest()
    k = hmac.new(k, v + b"\x01" + x + h1, hashlib.sha256).digest()
    v = hmac.new(k, v, hashlib.sha256).digest()
    while True:
        v = hmac.new(k, v, hashlib.sha256).digest()
        candidate = int.from_bytes(v, "big")
        if 1 <= candidate < N:
            yield candidate
        k = hmac.new(k, v + b"\x00", hashlib.sha256).digest()
        v = hmac.new(k, v, hashlib.sha256).digest()


@dataclass(frozen=True)
class Signature:
    r: int
    s: int
    recovery: int  # 0-3: bit 0 the parity of the y of the R that verifies with (r, s); bit 1 R.x >= n

    def compact(self) -> bytes:
        """r || s, 64 bytes (operations)."""
        return self.r.to_bytes(32, "big") + self.s.to_bytes(32, "big")

    def recoverable(self) -> bytes:
        """recovery byte || r || s, 65 bytes (signed messages)."""
        return bytes([self.recovery]) + self.compact()


def sign_digest(private_key: int, digest: bytes) -> Signature:
    """ECDSA over a 32-byte digest used as is (prehashed), RFC 6979 nonce, low-S."""
    check_scalar(private_key)
    if len(digest) != 32:
        raise ValueError("the digest is 32 bytes")
    z = int.from_bytes(digest, "big") % N
    for k in _rfc6979_nonces(private_key, digest):
        big_r = point_mul(k)
        r = big_r[0] % N
        if r == 0:
            continue
        s = pow(k, -1, N) * (z + r * private_key) % N
        if s == 0:
            continue
        recovery = (big_r[1] & 1) | (2 if big_r[0] >= N else 0)
        if s > HALF_N:
            # (r, n - s) verifies with -R: same x, the other y parity.
            s = N - s
            recovery ^= 1
        return Signature(r, s, recovery)
    raise AssertionError("unreachable")


def verify_digest(public: bytes, digest: bytes, r: int, s: int) -> bool:
    """ECDSA verification with the chain's low-S rule."""
    if not (1 <= r < N and 1 <= s <= HALF_N):
        return False
    try:
        q = decompress(public)
    except ValueError:
        return False
    z = int.from_bytes(digest, "big") % N
    w = pow(s, -1, N)
    point = point_add(point_mul(z * w % N), point_mul(r * w % N, q))
    return point is not None and point[0] % N == r


def recover_public_key(digest: bytes, r: int, s: int, recovery: int) -> bytes | None:
    """The compressed key that made (r, s) over digest, from the recovery id 0-3; None if none."""
    if not (1 <= r < N and 1 <= s < N and 0 <= recovery <= 3):
        return None
    big_r = lift_x(r + (N if recovery & 2 else 0), bool(recovery & 1))
    if big_r is None:
        return None
    z = int.from_bytes(digest, "big") % N
    r_inv = pow(r, -1, N)
    q = point_add(point_mul(s * r_inv % N, big_r), point_mul((-z * r_inv) % N, G))
    return None if q is None else compress(q)
