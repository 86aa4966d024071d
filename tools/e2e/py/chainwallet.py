"""An independent chain-node wallet, written from docs/wire-format.md alone.

Standard library only (Python 3.11): SHA-256, RIPEMD-160 (hashlib's, or a pure fallback when OpenSSL 3
disables it), secp256k1 in pure Python (RFC 6979 deterministic nonces, low-S), addresses, PascalCoin
key encodings, the operation layouts, the signing hash, raw blobs, digest/ophash, message signing,
and verification. The node session (JSON-RPC over urllib) is in node_session.py.

Every amount is a Python int in base units (never a float). Not constant-time: a test and reference
tool, not a wallet for keys that guard real money.
"""

from __future__ import annotations

import hashlib
import re
import struct
from dataclasses import dataclass

from ripemd160 import ripemd160_pure
# Re-exported: the wallet's whole API is importable from this module.
from secp256k1 import (
    HALF_N,
    N,
    Signature,
    check_scalar,
    compress,
    decompress,
    is_on_curve,
    public_key,
    random_private_key,
    recover_public_key,
    sign_digest,
    verify_digest,
)

# ---------------------------------------------------------------------------------------------------
# Hashes
# ---------------------------------------------------------------------------------------------------


def sha256(data: bytes) -> bytes:
    return hashlib.sha256(data).digest()


def _hashlib_ripemd160() -> bool:
    try:
        hashlib.new("ripemd160", b"")
        return True
    except (ValueError, TypeError):
        return False


HASHLIB_HAS_RIPEMD160 = _hashlib_ripemd160()


def ripemd160(data: bytes) -> bytes:
    if HASHLIB_HAS_RIPEMD160:
        return hashlib.new("ripemd160", data).digest()
    return ripemd160_pure(data)


def hash160(data: bytes) -> bytes:
    return ripemd160(sha256(data))


# ---------------------------------------------------------------------------------------------------
# Hex and key encodings (PascalCoin's raw forms)
# ---------------------------------------------------------------------------------------------------

_HEX = re.compile(r"^(0x)?([0-9a-fA-F]*)$")
SECP256K1_CURVE_ID = 714


def from_hex(text: str, allow_prefix: bool = True) -> bytes:
    """Hex of either case; `0x` (lowercase, as the node reads it) only where allowed."""
    match = _HEX.match(text)
    if not match or len(match.group(2)) % 2 or (match.group(1) and not allow_prefix):
        raise ValueError(f"not hex: {text!r}")
    return bytes.fromhex(match.group(2))


def encode_private_key(private_key: int) -> str:
    check_scalar(private_key)
    return (struct.pack("<HH", SECP256K1_CURVE_ID, 32) + private_key.to_bytes(32, "big")).hex()


def decode_private_key(text: str) -> int:
    """`ca022000` + 64 hex, a bare 64-hex scalar, `0x`, or a length field below 32 (left-padded)."""
    try:
        data = from_hex(text.strip())
    except ValueError:
        raise ValueError("an encoded private key is hex") from None  # never echo key material
    if len(data) == 32:
        scalar = data
    else:
        if len(data) < 4:
            raise ValueError("encoded private key too short")
        curve, length = struct.unpack("<HH", data[:4])
        if curve != SECP256K1_CURVE_ID or length > 32 or len(data) != 4 + length:
            raise ValueError("not an encoded secp256k1 private key")
        scalar = data[4:].rjust(32, b"\x00")
    d = int.from_bytes(scalar, "big")
    check_scalar(d)
    return d


def encode_public_key(public: bytes) -> str:
    """`enc`: u16le 714 || u16le 32 || X || u16le 32 || Y, hex (140 characters)."""
    x, y = decompress(public)
    return (
        struct.pack("<HH", SECP256K1_CURVE_ID, 32)
        + x.to_bytes(32, "big")
        + struct.pack("<H", 32)
        + y.to_bytes(32, "big")
    ).hex()


def decode_public_key(text: str) -> bytes:
    """The compressed key of an `enc` (no `0x`, as verifyMessage reads it); ValueError when it is
    not a valid secp256k1 point."""
    data = from_hex(text, allow_prefix=False)
    if len(data) != 70:
        raise ValueError("an encoded public key is 70 bytes")
    curve, x_len = struct.unpack("<HH", data[:4])
    (y_len,) = struct.unpack("<H", data[36:38])
    if curve != SECP256K1_CURVE_ID or x_len != 32 or y_len != 32:
        raise ValueError("not an encoded secp256k1 public key")
    point = (int.from_bytes(data[4:36], "big"), int.from_bytes(data[38:70], "big"))
    if not is_on_curve(point):
        raise ValueError("encoded public key is not on secp256k1")
    return compress(point)


# ---------------------------------------------------------------------------------------------------
# Addresses
# ---------------------------------------------------------------------------------------------------


def address_from_hash(prefix: str, hash20: bytes) -> str:
    if len(prefix) != 2 or len(hash20) != 20:
        raise ValueError("a 2-character prefix and a 20-byte hash")
    checksum = sha256(prefix.encode("ascii") + hash20)[:3]
    return prefix + (hash20 + checksum).hex()


def address_from_public_key(prefix: str, public: bytes) -> str:
    return address_from_hash(prefix, hash160(public))


def token_hash(creator_account: int, n_operation: int) -> bytes:
    return hash160(b"token" + struct.pack("<II", creator_account, n_operation))


def parse_address(address: str, prefix: str | None = None) -> bytes:
    """The 20-byte hash of an address, after checking length, prefix, hex and checksum."""
    if len(address) != 48:
        raise ValueError("an address is 48 characters")
    if prefix is not None and address[:2] != prefix:
        raise ValueError(f"address of another network (prefix {address[:2]!r}, not {prefix!r})")
    if not re.fullmatch(r"[0-9a-fA-F]{46}", address[2:]):
        raise ValueError("an address ends with 46 hex characters")
    raw = bytes.fromhex(address[2:])
    if sha256(address[:2].encode("ascii") + raw[:20])[:3] != raw[20:]:
        raise ValueError("wrong address checksum")
    return raw[:20]


# ---------------------------------------------------------------------------------------------------
# Amounts
# ---------------------------------------------------------------------------------------------------

COIN_DECIMALS = 18


def to_base_units(text: str, decimals: int = COIN_DECIMALS) -> int:
    """"1.5" coins -> 1500000000000000000, exactly (no float)."""
    match = re.fullmatch(r"(\d+)(?:\.(\d+))?", text)
    if not match or len(match.group(2) or "") > decimals:
        raise ValueError(f"not an amount with at most {decimals} decimals: {text!r}")
    fraction = (match.group(2) or "").ljust(decimals, "0")
    return int(match.group(1)) * 10**decimals + int(fraction or "0")


def encode_amount(value: int) -> bytes:
    """u8 L || L bytes big-endian, the fewest bytes (0 is 00), L at most 32."""
    if not isinstance(value, int) or value < 0:
        raise ValueError("an amount is a non-negative integer")
    length = (value.bit_length() + 7) // 8
    if length > 32:
        raise ValueError("an amount fits 32 bytes")
    return bytes([length]) + value.to_bytes(length, "big")


def decode_amount(data: bytes, offset: int) -> tuple[int, int]:
    length = data[offset]
    body = data[offset + 1 : offset + 1 + length]
    if length > 32 or len(body) != length or (length and body[0] == 0):
        raise ValueError("malformed amount")
    return int.from_bytes(body, "big"), offset + 1 + length


# ---------------------------------------------------------------------------------------------------
# Operations
# ---------------------------------------------------------------------------------------------------

NEW_ACCOUNT_SIGNER = 0xFFFFFFFF
OPTYPE_TRANSFER, OPTYPE_ACTIVATION, OPTYPE_CREATE_TOKEN, OPTYPE_TOKEN = 2, 5, 6, 7
ADMIN_SUBTYPES = {
    "transferEnabled": 1,
    "transferWalletEnabled": 2,
    "lockWalletVolume": 3,
    "burnWalletVolume": 4,
    "mintWalletVolume": 5,
    "ownershipWallet": 6,
}
# The fields each adminToken method carries after the token, in the body's order.
_ADMIN_FIELDS = {
    1: ("select",),
    2: ("receiver", "select"),
    3: ("receiver", "amount", "lock_blocks"),
    4: ("receiver", "amount"),
    5: ("receiver", "amount"),
    6: ("receiver",),
}


def u8(v: int) -> bytes:
    return struct.pack("<B", v)


def u16le(v: int) -> bytes:
    return struct.pack("<H", v)


def u32le(v: int) -> bytes:
    return struct.pack("<I", v)


def var16(data: bytes) -> bytes:
    return u16le(len(data)) + data


def str16(text: str) -> bytes:
    return var16(text.encode("utf-8"))


def _bytes20(value: bytes) -> bytes:
    if len(value) != 20:
        raise ValueError("an address hash is 20 bytes")
    return value


def unsigned_operation(
    optype: int, signer: int, n_operation: int, fee: int, subtype: int, body: bytes
) -> bytes:
    """u16le optype || u32le signer || u32le n_operation || amount fee || u8 subtype || body."""
    return u16le(optype) + u32le(signer) + u32le(n_operation) + encode_amount(fee) + u8(subtype) + body


def transfer_body(
    receiver: int | bytes, amount: int, payload: bytes = b"", payload_type: int = 0
) -> bytes:
    """receiver: an account number (tag 0) or a 20-byte address hash (tag 1)."""
    if len(payload) > 255:
        raise ValueError("a payload is at most 255 bytes")
    target = u8(0) + u32le(receiver) if isinstance(receiver, int) else u8(1) + _bytes20(receiver)
    return target + encode_amount(amount) + u8(payload_type) + var16(payload)


def activation_body(public: bytes) -> bytes:
    decompress(public)
    return public


def create_token_body(
    advanced: bool, decimal: int, supply: int, name: str, symbol: str, summary: str
) -> bytes:
    """supply in base units (totalAmount * 10^decimal)."""
    return (
        u8(int(advanced))
        + u8(decimal)
        + encode_amount(supply)
        + str16(name)
        + str16(symbol)
        + str16(summary)
    )


def send_token_body(
    token: bytes, receiver: bytes, amount: int, payload: bytes = b"", payload_type: int = 0
) -> bytes:
    if len(payload) > 255:
        raise ValueError("a payload is at most 255 bytes")
    return (
        _bytes20(token)
        + _bytes20(receiver)
        + encode_amount(amount)
        + u8(payload_type)
        + var16(payload)
    )


def admin_token_fields(subtype: int) -> tuple[str, ...]:
    return _ADMIN_FIELDS[subtype]


def admin_token_body(subtype: int, token: bytes, **fields) -> bytes:
    """fields among receiver (20-byte hash), amount (int), select (bool), lock_blocks (int)."""
    wanted = _ADMIN_FIELDS[subtype]
    if set(fields) != set(wanted) or any(fields[name] is None for name in wanted):
        raise ValueError(f"adminToken subtype {subtype} carries {', '.join(wanted)}")
    encoders = {
        "receiver": _bytes20,
        "amount": encode_amount,
        "select": lambda v: u8(int(bool(v))),
        "lock_blocks": u32le,
    }
    return _bytes20(token) + b"".join(encoders[name](fields[name]) for name in wanted)


# Participation steps: (optype, subtype, the body's fields in order). Field kinds: code (8 bytes),
# hash (20-byte wallet hash), amount, flag (u8 0/1), percent (u8 0-100), text (str16), sig64.
PARTICIPATION_STEPS = {
    "nodeStep1": (8, 0, ("stake:amount", "miner:hash", "penalty:percent", "extension:flag")),
    "nodeStep2": (9, 0, ("code:code", "CPU:text", "RAM:text", "GPU:text", "DISK:text")),
    "nodeStep3_1": (
        14,
        0,
        ("code:code", "stake:amount", "miner:hash", "confirmer:hash", "extension:flag"),
    ),
    "nodeStep3_2": (15, 0, ("code:code", "target:hash", "select:flag")),
    "nodeStep4_1": (
        16,
        0,
        ("code:code", "confirmer:hash", "CPU:text", "RAM:text", "GPU:text", "DISK:text"),
    ),
    "nodeStep4_2": (17, 0, ("code:code", "target:hash", "select:flag")),
    "nodeStep5_1": (
        18,
        0,
        (
            "code:code",
            "stake:amount",
            "miner:hash",
            "main:hash",
            "confirmer:hash",
            "extension:flag",
        ),
    ),
    "nodeStep5_2": (19, 0, ("code:code", "main:hash", "target:hash", "select:flag")),
    "blockchainStart": (
        19,
        1,
        ("code:code", "mine:hash", "share:hash", "nodes:text", "mineConsent:sig64"),
    ),
    "nodeCancel": (19, 2, ("code:code",)),
}


def _encode_field(kind: str, value) -> bytes:
    if kind == "code":
        if len(value) != 8:
            raise ValueError("a node code is 8 bytes")
        return bytes(value)
    if kind == "hash":
        return _bytes20(value)
    if kind == "amount":
        return encode_amount(value)
    if kind == "flag":
        return u8(int(bool(value)))
    if kind == "percent":
        if not 0 <= value <= 100:
            raise ValueError("a penalty is 0 to 100")
        return u8(value)
    if kind == "text":
        return str16(value)
    if kind == "sig64":
        if len(value) != 64:
            raise ValueError("a signature is 64 bytes")
        return bytes(value)
    raise AssertionError(kind)


def participation_operation(step: str, signer: int, n_operation: int, fee: int, **fields) -> bytes:
    """The unsigned operation of a participation step; fields named as in PARTICIPATION_STEPS."""
    optype, subtype, layout = PARTICIPATION_STEPS[step]
    names = [spec.split(":")[0] for spec in layout]
    if set(fields) != set(names):
        raise ValueError(f"{step} carries {names}")
    body = b"".join(
        _encode_field(spec.split(":")[1], fields[spec.split(":")[0]]) for spec in layout
    )
    return unsigned_operation(optype, signer, n_operation, fee, subtype, body)


def node_code(top_account: int, n_operation: int) -> bytes:
    """A TOP node's code: known once its nodeStep1 (account, n_operation) is signed."""
    return sha256(b"chain-node-code" + u32le(top_account) + u32le(n_operation))[:8]


def mine_consent(mine_private_key: int, genesis: bytes, code: bytes) -> bytes:
    """The mine wallet's 64-byte signature over SHA256("chain-mine-consent" || genesis || code)."""
    consent = sha256(b"chain-mine-consent" + genesis + code)
    return sign_digest(mine_private_key, consent).compact()


def signing_hash(genesis: bytes, unsigned: bytes) -> bytes:
    if len(genesis) != 32:
        raise ValueError("the genesis hash is 32 bytes")
    return sha256(b"chain-op" + genesis + unsigned)


def sign_operation(private_key: int, genesis: bytes, unsigned: bytes) -> bytes:
    """unsigned || r || s."""
    return unsigned + sign_digest(private_key, signing_hash(genesis, unsigned)).compact()


def raw_blob(signed_operations: list[bytes]) -> bytes:
    if not signed_operations:
        raise ValueError("a raw blob holds at least one operation")
    return u32le(len(signed_operations)) + b"".join(signed_operations)


def digest(signed_operation: bytes) -> bytes:
    return hash160(signed_operation)


def ophash(signed_operation: bytes, block: int = 0) -> str:
    signer, n_operation = struct.unpack_from("<II", signed_operation, 2)
    return (u32le(block) + u32le(signer) + u32le(n_operation) + digest(signed_operation)).hex()


@dataclass(frozen=True)
class Transfer:
    """A decoded transfer (2/0), for reading blobs made elsewhere (rawSendTo)."""

    signer: int
    n_operation: int
    fee: int
    receiver: int | bytes
    amount: int
    payload_type: int
    payload: bytes
    unsigned: bytes
    signature: bytes


def decode_transfer(data: bytes, offset: int = 0) -> tuple[Transfer, int]:
    """One signed transfer at offset; returns it and the offset after it."""
    start = offset
    optype, signer, n_operation = struct.unpack_from("<HII", data, offset)
    if optype != OPTYPE_TRANSFER:
        raise ValueError(f"optype {optype} is not a transfer")
    fee, offset = decode_amount(data, offset + 10)
    subtype, tag = data[offset], data[offset + 1]
    if subtype != 0 or tag not in (0, 1):
        raise ValueError("malformed transfer")
    if tag == 0:
        (receiver,) = struct.unpack_from("<I", data, offset + 2)
        offset += 6
    else:
        receiver = bytes(data[offset + 2 : offset + 22])
        offset += 22
    amount, offset = decode_amount(data, offset)
    payload_type = data[offset]
    (length,) = struct.unpack_from("<H", data, offset + 1)
    payload = bytes(data[offset + 3 : offset + 3 + length])
    offset += 3 + length
    unsigned = bytes(data[start:offset])
    signature = bytes(data[offset : offset + 64])
    if len(signature) != 64:
        raise ValueError("truncated signature")
    transfer = Transfer(
        signer, n_operation, fee, receiver, amount, payload_type, payload, unsigned, signature
    )
    return transfer, offset + 64


def verify_operation(public: bytes, genesis: bytes, unsigned: bytes, signature: bytes) -> bool:
    r, s = int.from_bytes(signature[:32], "big"), int.from_bytes(signature[32:], "big")
    return verify_digest(public, signing_hash(genesis, unsigned), r, s)


# ---------------------------------------------------------------------------------------------------
# Message signing (signMessage / verifyMessage)
# ---------------------------------------------------------------------------------------------------

MESSAGE_PREFIX = b"Chain Signed Message:\n"


def compact_size(length: int) -> bytes:
    if length < 0xFD:
        return u8(length)
    if length <= 0xFFFF:
        return b"\xfd" + u16le(length)
    if length <= 0xFFFFFFFF:
        return b"\xfe" + u32le(length)
    return b"\xff" + struct.pack("<Q", length)


def message_hash(message: str) -> bytes:
    data = message.encode("utf-8")
    return sha256(sha256(MESSAGE_PREFIX + compact_size(len(data)) + data))


def sign_message(private_key: int, prefix: str, message: str) -> dict:
    public = public_key(private_key)
    signature = sign_digest(private_key, message_hash(message))
    return {
        "wallet": address_from_public_key(prefix, public),
        "msg": message,
        "enc": encode_public_key(public),
        "sig": signature.recoverable().hex(),
        "version": 1,
    }


def _recovery_id(header: int) -> int | None:
    for base in (0, 27, 31):
        if base <= header <= base + 3:
            return header - base
    return None


def verify_message(signed: dict, prefix: str) -> bool:
    """True when `enc` is a valid key hashing to `wallet` and `sig` recovers to it; never raises."""
    try:
        public = decode_public_key(signed["enc"])
        if hash160(public) != parse_address(signed["wallet"], prefix):
            return False
        sig = from_hex(signed["sig"], allow_prefix=False)  # verifyMessage: false with `0x`
        if len(sig) != 65 or not isinstance(signed["msg"], str):
            return False
        recovery = _recovery_id(sig[0])
        r, s = int.from_bytes(sig[1:33], "big"), int.from_bytes(sig[33:], "big")
        if recovery is None or s > HALF_N:
            return False
        return recover_public_key(message_hash(signed["msg"]), r, s, recovery) == public
    except (KeyError, TypeError, ValueError):
        return False
