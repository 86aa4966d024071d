"""The state root (docs/wire-format.md, "State root"), from the document alone: standard library only
(BLAKE3, which hashlib lacks, from blake3.py beside this file).

The state at a height is a set of entries (every account, every state-space entry, the producer
set). Each entry's canonical encoding is hashed with BLAKE3 to 2048 bytes, read as 1024 u16 lanes
(little-endian); the state's vector is the lane-wise sum of its entries mod 2^16 (LtHash16), and the
header's state root (`four_hash`) is SHA-256 of a tag and the vector.

Run: python3 state_root.py < entries.json   prints {"vector_sha256": ..., "state_root": ...}
entries.json: {"accounts": [[number, "hex"]], "spaces": [["space", "key", "hex"]],
               "producers": [number, ...]}
"""

from __future__ import annotations

import hashlib
import json
import struct
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from blake3 import blake3  # noqa: E402

ENTRY_TAG = b"chain-node/state-entry/1"
ROOT_TAG = b"chain-node/state-root/1"
LANES = 1024


def account_entry(number: int, value: bytes) -> bytes:
    return ENTRY_TAG + b"\x01" + struct.pack(">I", number) + value


def space_entry(space: str, key: str, value: bytes) -> bytes:
    name = space.encode("utf-8")
    key_bytes = key.encode("utf-8")
    return (
        ENTRY_TAG
        + b"\x02"
        + struct.pack(">H", len(name))
        + name
        + struct.pack(">H", len(key_bytes))
        + key_bytes
        + value
    )


def producers_entry(numbers: list[int]) -> bytes:
    return ENTRY_TAG + b"\x03" + struct.pack(f"<I{len(numbers)}I", len(numbers), *numbers)


def element(entry: bytes) -> list[int]:
    return list(struct.unpack(f"<{LANES}H", blake3(entry, 2 * LANES)))


class LtHash:
    def __init__(self) -> None:
        self.lanes = [0] * LANES

    def add(self, entry: bytes) -> LtHash:
        self.lanes = [(a + b) & 0xFFFF for a, b in zip(self.lanes, element(entry))]
        return self

    def remove(self, entry: bytes) -> LtHash:
        self.lanes = [(a - b) & 0xFFFF for a, b in zip(self.lanes, element(entry))]
        return self

    def to_bytes(self) -> bytes:
        return struct.pack(f"<{LANES}H", *self.lanes)

    def state_root(self) -> bytes:
        return hashlib.sha256(ROOT_TAG + self.to_bytes()).digest()


def vector_of(entries: dict) -> LtHash:
    vector = LtHash()
    for number, value in entries.get("accounts", []):
        vector.add(account_entry(number, bytes.fromhex(value)))
    for space, key, value in entries.get("spaces", []):
        vector.add(space_entry(space, key, bytes.fromhex(value)))
    vector.add(producers_entry(entries["producers"]))
    return vector


def main() -> None:
    vector = vector_of(json.load(sys.stdin))
    print(
        json.dumps(
            {
                "vector_sha256": hashlib.sha256(vector.to_bytes()).hexdigest(),
                "state_root": vector.state_root().hex(),
            }
        )
    )


if __name__ == "__main__":
    main()
