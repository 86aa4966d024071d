"""The Python wallet against every worked example of docs/wire-format.md, byte for byte.

The expected values are read from the document itself (its ```text blocks, tables and JSON), so a
change to the document is checked too; the inputs are the ones its prose states. Also checks the
examples of docs/rpc.md that the formats fully determine (they are recorded from a real dev node).

Run: python3 tools/e2e/py/test_vectors.py   (standard library only)
"""

from __future__ import annotations

import hashlib
import json
import re
import struct
import sys
import unittest
from pathlib import Path
from unittest import mock

sys.path.insert(0, str(Path(__file__).resolve().parent))

import chainwallet as cw  # noqa: E402
import ripemd160  # noqa: E402
from blake3 import blake3  # noqa: E402
import state_root  # noqa: E402

DOCS = Path(__file__).resolve().parents[3] / "docs"
WIRE = (DOCS / "wire-format.md").read_text(encoding="utf-8")
RPC = (DOCS / "rpc.md").read_text(encoding="utf-8")

DEV_KEY = int.from_bytes(hashlib.sha256(b"chain-node dev wallet").digest(), "big")


def section(markdown: str, heading: str) -> str:
    """The text of a markdown section, up to the next heading of the same or a higher level."""
    match = re.search(rf"^(#+) {re.escape(heading)}\s*$", markdown, re.M)
    if not match:
        raise AssertionError(f"no section {heading!r} in the document")
    level = len(match.group(1))
    rest = markdown[match.end() :]
    end = re.search(rf"^#{{1,{level}}} ", rest, re.M)
    return rest[: end.start()] if end else rest


def labelled_values(text: str) -> dict[str, str]:
    """The `label   value` lines of the ```text blocks of a section (value: the last word)."""
    values: dict[str, str] = {}
    for block in re.findall(r"```text\n(.*?)```", text, re.S):
        for line in block.splitlines():
            match = re.fullmatch(r"(\S.*?)\s{2,}(\S+)", line.strip())
            if match:
                values[match.group(1)] = match.group(2)
    return values


def json_blocks(text: str) -> list:
    return [json.loads(block) for block in re.findall(r"```json\n(.*?)```", text, re.S)]


def rpc_example(method: str, index: int = 0) -> tuple[dict, dict]:
    """The request and reply of docs/rpc.md's example `method#index`."""
    marker = f"<!-- example {method}#{index} -->"
    start = RPC.index(marker)
    request, reply = json_blocks(RPC[start : RPC.index("<!-- example", start + len(marker))])[:2]
    return request, reply


class Conventions(unittest.TestCase):
    def test_curve_order_and_half(self):
        self.assertIn(f"{cw.N:064x}", section(WIRE, "Conventions"))
        self.assertIn(f"{cw.HALF_N:064x}", section(WIRE, "Signing"))

    def test_ripemd160_fallback_known_answers(self):
        # The published test vectors of RIPEMD-160.
        for message, expected in [
            (b"", "9c1185a5c5e9fc54612808977ee8f548b2258d31"),
            (b"abc", "8eb208f7e05d987a9b044a8e98c6b087f15a0bfc"),
            (b"message digest", "5d0689ef49d2fae572b881b123a85ffa21595f36"),
            (b"a" * 1_000_000, "52783243c1697bdbe16d37f97f68f08325dc1528"),
        ]:
            self.assertEqual(ripemd160.ripemd160_pure(message).hex(), expected)

    def test_rfc6979_known_answer(self):
        # d = 1, SHA256("Satoshi Nakamoto"): the widely published RFC 6979 secp256k1 vector.
        signature = cw.sign_digest(1, hashlib.sha256(b"Satoshi Nakamoto").digest())
        self.assertEqual(
            signature.compact().hex(),
            "934b1ea10a4b3c1757e2b0c017d0b6143ce3c9a7e6a4a49860d7a6ab210ee3d8"
            "2442ce9d2b916064108014783e923ec36b49743e2ffa1c4496f01a512aafd9e5",
        )


class Keys(unittest.TestCase):
    values = labelled_values(section(WIRE, "Keys"))

    def test_dev_key_and_its_encodings(self):
        v = self.values
        self.assertEqual(v["private key"], f"{DEV_KEY:064x}")
        self.assertEqual(v["encoded private key"], cw.encode_private_key(DEV_KEY))
        public = cw.public_key(DEV_KEY)
        self.assertEqual(v["public key"], public.hex())
        self.assertEqual(v["encoded public key"], cw.encode_public_key(public))
        self.assertEqual(cw.decode_public_key(v["encoded public key"]), public)

    def test_private_key_forms_read(self):
        encoded = self.values["encoded private key"]
        bare = self.values["private key"]
        for form in (encoded, encoded.upper(), "0x" + encoded, bare, "0x" + bare.upper()):
            self.assertEqual(cw.decode_private_key(form), DEV_KEY, form)
        # A length field below 32: the scalar left-padded with zeros.
        self.assertEqual(cw.decode_private_key("ca02010001"), 1)
        for bad in ("ca022000" + "00" * 32, "ca022000" + f"{cw.N:064x}", "ca021f00" + "11" * 32):
            with self.assertRaises(ValueError):
                cw.decode_private_key(bad)


class Addresses(unittest.TestCase):
    values = labelled_values(section(WIRE, "Addresses"))

    def test_address_derivation_step_by_step(self):
        v = self.values
        public = bytes.fromhex(v["public key"])
        self.assertEqual(v["SHA256(public key)"], cw.sha256(public).hex())
        self.assertEqual(v["hash20 = RIPEMD160(that)"], cw.hash160(public).hex())
        self.assertEqual(v['SHA256("CH" || hash20)'], cw.sha256(b"CH" + cw.hash160(public)).hex())
        self.assertEqual(v["address"], cw.address_from_public_key("CH", public))

    def test_addresses_are_checked(self):
        address = self.values["address"]
        hash20 = bytes.fromhex(self.values["hash20 = RIPEMD160(that)"])
        self.assertEqual(cw.parse_address(address, "CH"), hash20)
        self.assertEqual(cw.parse_address("CH" + address[2:].upper(), "CH"), hash20)
        wrong_checksum = address[:-1] + ("0" if address[-1] != "0" else "1")
        for bad, prefix in ((wrong_checksum, "CH"), (address, "XY"), (address[:-2], "CH")):
            with self.assertRaises(ValueError):
                cw.parse_address(bad, prefix)


class Amounts(unittest.TestCase):
    def test_the_table(self):
        rows = re.findall(r"^\| ([^|]+?) \| `([0-9a-f]+)` \|$", section(WIRE, "Amounts"), re.M)
        self.assertEqual(len(rows), 6)
        values = {"10^14": 10**14, "1.5 × 10^18": 15 * 10**17}
        for label, encoding in rows:
            value = values.get(label.split(" (")[0], None)
            value = int(label) if value is None else value
            self.assertEqual(cw.encode_amount(value).hex(), encoding, label)
            self.assertEqual(cw.decode_amount(bytes.fromhex(encoding), 0)[0], value)

    def test_limits(self):
        self.assertEqual(len(cw.encode_amount(2**256 - 1)), 33)
        with self.assertRaises(ValueError):
            cw.encode_amount(2**256)
        with self.assertRaises(ValueError):
            cw.decode_amount(bytes.fromhex("020001"), 0)  # a leading zero byte
        self.assertEqual(cw.to_base_units("1.5"), 15 * 10**17)
        self.assertEqual(cw.to_base_units("0.000000000000000001"), 1)
        with self.assertRaises(ValueError):
            cw.to_base_units("0.0000000000000000001")


class TransferExample(unittest.TestCase):
    text = section(WIRE, "Worked example: a transfer")
    v = labelled_values(text)

    def build(self) -> tuple[bytes, bytes, bytes]:
        genesis = bytes.fromhex(self.v["genesis hash"])
        receiver = cw.hash160(cw.public_key(1))
        body = cw.transfer_body(receiver, cw.to_base_units("1.5"), b"hi")
        unsigned = cw.unsigned_operation(2, 0, 0 + 1, 10**14, 0, body)
        return genesis, unsigned, cw.sign_operation(DEV_KEY, genesis, unsigned)

    def test_receiver_of_the_prose(self):
        receiver = cw.public_key(1)
        self.assertIn(cw.address_from_public_key("CH", receiver), self.text)
        self.assertIn(f"hash `{cw.hash160(receiver).hex()}`", self.text)

    def test_fields(self):
        v = self.v
        self.assertEqual(v["optype"], cw.u16le(2).hex())
        self.assertEqual(v["signer"], cw.u32le(0).hex())
        self.assertEqual(v["n_operation"], cw.u32le(1).hex())
        self.assertEqual(v["fee"], cw.encode_amount(10**14).hex())
        self.assertEqual(v["subtype"], "00")
        self.assertEqual(v["receiver"], "01" + cw.hash160(cw.public_key(1)).hex())
        self.assertEqual(v["amount"], cw.encode_amount(15 * 10**17).hex())
        self.assertEqual(v["payload_type"], "00")
        self.assertEqual(v["payload"], cw.var16(b"hi").hex())

    def test_bytes(self):
        genesis, unsigned, signed = self.build()
        v = self.v
        self.assertEqual(v["unsigned"], unsigned.hex())
        self.assertEqual(v["signing message"], (b"chain-op" + genesis + unsigned).hex())
        self.assertEqual(v["signing hash"], cw.signing_hash(genesis, unsigned).hex())
        self.assertEqual(v["signature"], signed[len(unsigned) :].hex())
        self.assertEqual(v["signed operation"], signed.hex())
        self.assertEqual(v["raw"], cw.raw_blob([signed]).hex())
        self.assertEqual(v["digest"], cw.digest(signed).hex())
        self.assertEqual(v["ophash"], cw.ophash(signed))

    def test_pure_ripemd160_gives_the_same_bytes(self):
        with mock.patch.object(cw, "HASHLIB_HAS_RIPEMD160", False):
            _, _, signed = self.build()
            self.assertEqual(self.v["ophash"], cw.ophash(signed))

    def test_signature_verifies_and_decodes(self):
        genesis, unsigned, signed = self.build()
        transfer, end = cw.decode_transfer(signed)
        self.assertEqual(end, len(signed))
        self.assertEqual(transfer.unsigned, unsigned)
        self.assertEqual((transfer.amount, transfer.payload), (15 * 10**17, b"hi"))
        public = cw.public_key(DEV_KEY)
        self.assertTrue(cw.verify_operation(public, genesis, unsigned, transfer.signature))
        # The same signature with s replaced by n - s (high S) is refused by the low-S rule.
        r, s = transfer.signature[:32], int.from_bytes(transfer.signature[32:], "big")
        high = r + (cw.N - s).to_bytes(32, "big")
        self.assertFalse(cw.verify_operation(public, genesis, unsigned, high))


class ActivationExample(unittest.TestCase):
    def test_bytes(self):
        text = section(WIRE, "Worked example: activation of a new address")
        v = labelled_values(text)
        genesis = bytes.fromhex(labelled_values(section(WIRE, "Worked example: a transfer"))["genesis hash"])
        public = cw.public_key(1)
        self.assertIn(f"`{public.hex()}`", text)
        unsigned = cw.unsigned_operation(5, 0xFFFFFFFF, 1, 0, 0, cw.activation_body(public))
        self.assertEqual(v["activation unsigned"], unsigned.hex())
        self.assertEqual(v["activation signed"], cw.sign_operation(1, genesis, unsigned).hex())


class MessageExample(unittest.TestCase):
    text = section(WIRE, "Message signing")
    v = labelled_values(text)
    signed = json_blocks(text)[0]

    def test_hashes_and_signature(self):
        message = b"hello"
        hashed = cw.MESSAGE_PREFIX + cw.compact_size(len(message)) + message
        self.assertEqual(len(cw.MESSAGE_PREFIX), 22)
        self.assertEqual(self.v["hashed bytes"], hashed.hex())
        self.assertEqual(self.v["inner SHA256"], cw.sha256(hashed).hex())
        self.assertEqual(self.v["message hash"], cw.message_hash("hello").hex())
        self.assertEqual(self.v["sig"], self.signed["sig"])
        self.assertEqual(cw.sign_message(DEV_KEY, "CH", "hello"), self.signed)

    def test_verification(self):
        self.assertTrue(cw.verify_message(self.signed, "CH"))
        sig = self.signed["sig"]
        for header, valid in (("1c", True), ("20", True), ("00", False), ("1b", False), ("23", False)):
            self.assertEqual(cw.verify_message({**self.signed, "sig": header + sig[2:]}, "CH"), valid)
        self.assertFalse(cw.verify_message({**self.signed, "msg": "hello!"}, "CH"))
        self.assertFalse(cw.verify_message({**self.signed, "wallet": cw.address_from_public_key("CH", cw.public_key(1))}, "CH"))
        self.assertFalse(cw.verify_message({**self.signed, "enc": "ca022000" + "00" * 66}, "CH"))
        self.assertFalse(cw.verify_message(self.signed, "XY"))
        # As the node's verifyMessage: either case, but no `0x` in enc or sig.
        self.assertTrue(cw.verify_message({**self.signed, "enc": self.signed["enc"].upper()}, "CH"))
        for field in ("enc", "sig"):
            self.assertFalse(cw.verify_message({**self.signed, field: "0x" + self.signed[field]}, "CH"))

    def test_compact_size(self):
        self.assertEqual(cw.compact_size(0xFC).hex(), "fc")
        self.assertEqual(cw.compact_size(0xFD).hex(), "fdfd00")
        self.assertEqual(cw.compact_size(0x10000).hex(), "fe00000100")
        self.assertEqual(cw.compact_size(2**32).hex(), "ff0000000001000000")

    def test_long_and_unicode_messages_round_trip(self):
        for message in ("ü" * 200, "x" * 70_000, ""):
            self.assertTrue(cw.verify_message(cw.sign_message(12345, "CH", message), "CH"))


class RpcDocExamples(unittest.TestCase):
    """docs/rpc.md's recorded examples that the wire format fully determines."""

    genesis = bytes.fromhex(labelled_values(section(WIRE, "Worked example: a transfer"))["genesis hash"])

    def test_raw_send_to_is_rebuilt_byte_for_byte(self):
        request, reply = rpc_example("rawSendTo")
        params = request["params"]
        dev = cw.address_from_public_key("CH", cw.public_key(DEV_KEY))
        self.assertEqual(params["senderWallet"], dev)
        body = cw.transfer_body(params["receiverAccount"], cw.to_base_units(params["amount"]))
        unsigned = cw.unsigned_operation(
            2, params["senderAccount"], params["senderNOperation"] + 1, int(reply["result"]["fee"]), 0, body
        )
        signed = cw.sign_operation(DEV_KEY, self.genesis, unsigned)
        self.assertEqual(reply["result"]["rawoperation"], cw.raw_blob([signed]).hex())
        _, info = rpc_example("InfoRaw")
        self.assertEqual(info["result"][0]["ophash"], cw.ophash(signed))

    def test_sign_message(self):
        request, reply = rpc_example("signMessage")
        self.assertEqual(cw.sign_message(DEV_KEY, "CH", request["params"]["message"]), reply["result"])

    def test_ophash_parts(self):
        request, reply = rpc_example("decodeOpHash")
        raw = bytes.fromhex(request["params"]["ophash"])
        block, account, n_operation = struct.unpack_from("<III", raw)
        self.assertEqual(reply["result"], [
            {"block": block, "account": account, "n_operation": n_operation, "mdhash": raw[12:].hex(), "ophash": raw[12:].hex()}
        ])

    def test_token_address(self):
        _, reply = rpc_example("createToken")
        _, account, n_operation = struct.unpack_from("<III", bytes.fromhex(reply["result"]["ophash"]))
        token = cw.address_from_hash("CH", cw.token_hash(account, n_operation))
        self.assertEqual(reply["result"]["token"], token)

    def test_node_code(self):
        _, reply = rpc_example("nodeStep1")
        _, account, n_operation = struct.unpack_from("<III", bytes.fromhex(reply["result"]["ophash"]))
        self.assertTrue(reply["result"]["optxt"].endswith(cw.node_code(account, n_operation).hex()))


class Layouts(unittest.TestCase):
    """The documented bodies of the types without a worked example."""

    def test_create_and_send_token(self):
        body = cw.create_token_body(True, 4, 10**10, "Näme", "S", "x")
        self.assertEqual(body.hex(), "0104" + "0502540be400" + "0500" + "4ec3a46d65" + "010053" + "010078")
        token, receiver = bytes(range(20)), bytes(range(20, 40))
        body = cw.send_token_body(token, receiver, 5, b"\xab")
        self.assertEqual(body, token + receiver + b"\x01\x05" + b"\x00" + b"\x01\x00\xab")

    def test_admin_token_fields_in_order(self):
        token, receiver = bytes(20), b"\x11" * 20
        body = cw.admin_token_body(3, token, receiver=receiver, amount=256, lock_blocks=7)
        self.assertEqual(body, token + receiver + b"\x02\x01\x00" + struct.pack("<I", 7))
        self.assertEqual(cw.admin_token_body(1, token, select=True), token + b"\x01")
        with self.assertRaises(ValueError):
            cw.admin_token_body(6, token, select=True)

    def test_participation(self):
        code = bytes.fromhex("1499b5661d2225ef")
        op = cw.participation_operation("nodeCancel", 7, 3, 0, code=code)
        self.assertEqual(op.hex(), "1300" + "07000000" + "03000000" + "00" + "02" + code.hex())
        op = cw.participation_operation(
            "nodeStep1", 1, 2, 0, stake=100, miner=b"\x22" * 20, penalty=10, extension=True
        )
        self.assertEqual(op[11:].hex(), "00" + "0164" + "22" * 20 + "0a" + "01")


# Official BLAKE3 test vectors (BLAKE3-team/BLAKE3, test_vectors/test_vectors.json, "hash"): the
# input of each length is bytes i % 251, the output extended to 131 bytes.
BLAKE3_VECTORS = {
    0: "af1349b9f5f9a1a6a0404dea36dcc9499bcb25c9adc112b7cc9a93cae41f3262e00f03e7b69af26b7faaf09fcd333050338ddfe085b8cc869ca98b206c08243a26f5487789e8f660afe6c99ef9e0c52b92e7393024a80459cf91f476f9ffdbda7001c22e159b402631f277ca96f2defdf1078282314e763699a31c5363165421cce14d",
    1: "2d3adedff11b61f14c886e35afa036736dcd87a74d27b5c1510225d0f592e213c3a6cb8bf623e20cdb535f8d1a5ffb86342d9c0b64aca3bce1d31f60adfa137b358ad4d79f97b47c3d5e79f179df87a3b9776ef8325f8329886ba42f07fb138bb502f4081cbcec3195c5871e6c23e2cc97d3c69a613eba131e5f1351f3f1da786545e5",
    1023: "10108970eeda3eb932baac1428c7a2163b0e924c9a9e25b35bba72b28f70bd11a182d27a591b05592b15607500e1e8dd56bc6c7fc063715b7a1d737df5bad3339c56778957d870eb9717b57ea3d9fb68d1b55127bba6a906a4a24bbd5acb2d123a37b28f9e9a81bbaae360d58f85e5fc9d75f7c370a0cc09b6522d9c8d822f2f28f485",
    1024: "42214739f095a406f3fc83deb889744ac00df831c10daa55189b5d121c855af71cf8107265ecdaf8505b95d8fcec83a98a6a96ea5109d2c179c47a387ffbb404756f6eeae7883b446b70ebb144527c2075ab8ab204c0086bb22b7c93d465efc57f8d917f0b385c6df265e77003b85102967486ed57db5c5ca170ba441427ed9afa684e",
    1025: "d00278ae47eb27b34faecf67b4fe263f82d5412916c1ffd97c8cb7fb814b8444f4c4a22b4b399155358a994e52bf255de60035742ec71bd08ac275a1b51cc6bfe332b0ef84b409108cda080e6269ed4b3e2c3f7d722aa4cdc98d16deb554e5627be8f955c98e1d5f9565a9194cad0c4285f93700062d9595adb992ae68ff12800ab67a",
    2048: "e776b6028c7cd22a4d0ba182a8bf62205d2ef576467e838ed6f2529b85fba24a9a60bf80001410ec9eea6698cd537939fad4749edd484cb541aced55cd9bf54764d063f23f6f1e32e12958ba5cfeb1bf618ad094266d4fc3c968c2088f677454c288c67ba0dba337b9d91c7e1ba586dc9a5bc2d5e90c14f53a8863ac75655461cea8f9",
    2049: "5f4d72f40d7a5f82b15ca2b2e44b1de3c2ef86c426c95c1af0b687952256303096de31d71d74103403822a2e0bc1eb193e7aecc9643a76b7bbc0c9f9c52e8783aae98764ca468962b5c2ec92f0c74eb5448d519713e09413719431c802f948dd5d90425a4ecdadece9eb178d80f26efccae630734dff63340285adec2aed3b51073ad3",
    3072: "b98cb0ff3623be03326b373de6b9095218513e64f1ee2edd2525c7ad1e5cffd29a3f6b0b978d6608335c09dc94ccf682f9951cdfc501bfe47b9c9189a6fc7b404d120258506341a6d802857322fbd20d3e5dae05b95c88793fa83db1cb08e7d8008d1599b6209d78336e24839724c191b2a52a80448306e0daa84a3fdb566661a37e11",
    3073: "7124b49501012f81cc7f11ca069ec9226cecb8a2c850cfe644e327d22d3e1cd39a27ae3b79d68d89da9bf25bc27139ae65a324918a5f9b7828181e52cf373c84f35b639b7fccbb985b6f2fa56aea0c18f531203497b8bbd3a07ceb5926f1cab74d14bd66486d9a91eba99059a98bd1cd25876b2af5a76c3e9eed554ed72ea952b603bf",
    4096: "015094013f57a5277b59d8475c0501042c0b642e531b0a1c8f58d2163229e9690289e9409ddb1b99768eafe1623da896faf7e1114bebeadc1be30829b6f8af707d85c298f4f0ff4d9438aef948335612ae921e76d411c3a9111df62d27eaf871959ae0062b5492a0feb98ef3ed4af277f5395172dbe5c311918ea0074ce0036454f620",
    4097: "9b4052b38f1c5fc8b1f9ff7ac7b27cd242487b3d890d15c96a1c25b8aa0fb99505f91b0b5600a11251652eacfa9497b31cd3c409ce2e45cfe6c0a016967316c426bd26f619eab5d70af9a418b845c608840390f361630bd497b1ab44019316357c61dbe091ce72fc16dc340ac3d6e009e050b3adac4b5b2c92e722cffdc46501531956",
    7169: "a003fc7a51754a9b3c7fae0367ab3d782dccf28855a03d435f8cfe74605e781798a8b20534be1ca9eb2ae2df3fae2ea60e48c6fb0b850b1385b5de0fe460dbe9d9f9b0d8db4435da75c601156df9d047f4ede008732eb17adc05d96180f8a73548522840779e6062d643b79478a6e8dbce68927f36ebf676ffa7d72d5f68f050b119c8",
}


class Blake3(unittest.TestCase):
    """blake3.py (the elements' hash, pure Python) against the official test vectors."""

    def test_official_vectors_extended_output_included(self):
        for length, expected in BLAKE3_VECTORS.items():
            data = bytes(i % 251 for i in range(length))
            self.assertEqual(blake3(data, 131).hex(), expected, length)
            self.assertEqual(blake3(data).hex(), expected[:64], length)


class StateRootExample(unittest.TestCase):
    """The worked state root of wire-format.md, from state_root.py (blake3.py, hashlib) alone."""

    def test_entries_elements_vector_and_root(self):
        values = labelled_values(section(WIRE, "Worked example: a state root"))
        account = bytes.fromhex(values["account 0 value"])
        entries = {
            "account": state_root.account_entry(0, account),
            "space": state_root.space_entry("memo", "h1", bytes.fromhex("00000007")),
            "producers": state_root.producers_entry([0]),
        }
        vector = state_root.LtHash()
        for name, entry in entries.items():
            self.assertEqual(entry.hex(), values[f"{name} entry"])
            element = struct.pack("<4H", *state_root.element(entry)[:4])
            self.assertEqual(element.hex(), values[f"{name} element, first 8 bytes"])
            vector.add(entry)
        self.assertEqual(vector.to_bytes()[:8].hex(), values["vector, first 8 bytes"])
        self.assertEqual(hashlib.sha256(vector.to_bytes()).hexdigest(), values["SHA-256 of the vector"])
        self.assertEqual(vector.state_root().hex(), values["state root"])
        vector.remove(entries["space"])
        self.assertEqual(vector.state_root().hex(), values["state root without the space entry"])

    def test_order_does_not_matter_and_removal_undoes(self):
        entries = [state_root.account_entry(n, bytes([n])) for n in range(4)]
        forward, backward = state_root.LtHash(), state_root.LtHash()
        for entry in entries:
            forward.add(entry)
        for entry in reversed(entries):
            backward.add(entry)
        self.assertEqual(forward.to_bytes(), backward.to_bytes())
        for entry in entries:
            forward.remove(entry)
        self.assertEqual(forward.to_bytes(), bytes(2048))


if __name__ == "__main__":
    unittest.main(verbosity=2)
