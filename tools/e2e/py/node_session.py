"""A wallet's session with a chain-node over plain HTTP JSON-RPC (urllib): reads the public inputs
(genesis hash, address prefix, act price, account state) and submits signed operations with
excuteRaw. Standard library only."""

from __future__ import annotations

import json
import re
import urllib.request

from chainwallet import (
    NEW_ACCOUNT_SIGNER,
    address_from_public_key,
    public_key,
    raw_blob,
    sign_operation,
    unsigned_operation,
)


# ---------------------------------------------------------------------------------------------------
# JSON-RPC over plain HTTP
# ---------------------------------------------------------------------------------------------------


class RpcError(Exception):
    def __init__(self, method: str, error: dict):
        data = error.get("data") or {}
        super().__init__(f"{method}: {error.get('code')} {data.get('reason')}: {error.get('message')}")
        self.code = error.get("code")
        self.reason = data.get("reason")
        self.param = data.get("param")


class RpcClient:
    def __init__(self, url: str, timeout: float = 30.0):
        self.url = url
        self.timeout = timeout
        self._id = 0

    def call(self, method: str, params: dict | None = None):
        self._id += 1
        body = {"jsonrpc": "2.0", "method": method, "id": self._id}
        if params is not None:
            body["params"] = params
        request = urllib.request.Request(
            self.url,
            data=json.dumps(body).encode("utf-8"),
            headers={"Content-Type": "application/json"},
            method="POST",
        )
        with urllib.request.urlopen(request, timeout=self.timeout) as response:
            reply = json.loads(response.read())
        if "error" in reply:
            raise RpcError(method, reply["error"])
        return reply["result"]


# ---------------------------------------------------------------------------------------------------
# A wallet's session with one node
# ---------------------------------------------------------------------------------------------------


class WalletError(Exception):
    """A refusal the wallet explains (never carries key material)."""


class NodeSession:
    """What a wallet reads from a node (genesis, address prefix, act price, account state), and
    submitting signed operations with excuteRaw. Everything else is computed here."""

    def __init__(self, url: str, genesis: bytes | None = None, prefix: str | None = None):
        self.rpc = RpcClient(url)
        self.genesis = genesis if genesis is not None else self._read_genesis()
        self.prefix = prefix if prefix is not None else self._read_prefix()

    def _read_genesis(self) -> bytes:
        status = self.rpc.call("nodeStatus")
        text = status.get("genesis")
        if not isinstance(text, str) or not re.fullmatch(r"[0-9a-f]{64}", text):
            raise WalletError(f"nodeStatus has no genesis hash (64 hex), got {text!r}")
        return bytes.fromhex(text)

    def _read_prefix(self) -> str:
        # No method states the network's address prefix; block 0's producer (`hmr`) is an address
        # of the network, so its first two characters are the prefix.
        return self.rpc.call("getBlockInfo", {"block": 0})["hmr"][:2]

    def act_price(self) -> int:
        price = self.rpc.call("getActPrice")
        if not isinstance(price, int):
            raise WalletError(f"getActPrice is not an integer: {price!r}")
        return price

    def wallet_info(self, address: str) -> dict:
        return self.rpc.call("getWalletInfo", {"wallet": address})

    def address(self, private_key: int) -> str:
        return address_from_public_key(self.prefix, public_key(private_key))

    def sign_sequence(
        self, private_key: int, operations: list, fee: int | None = None, activate: bool = True
    ) -> list[bytes]:
        """Signs operations of one account with consecutive n_operation values.

        operations: callables (signer account, n_operation, fee) -> unsigned bytes. An inactive
        wallet (on chain, key not yet) gets its activation first when `activate` is set.
        """
        info = self.wallet_info(self.address(private_key))
        fee = self.act_price() if fee is None else fee
        if info["state"] == "unknown wallet":
            raise WalletError("the address is not on chain: activate it first (activate command)")
        account, n_operation = info["account"], info["n_operation"]
        if info["state"] == "inactive wallet":
            if not activate:
                raise WalletError("the wallet is not active: its key is not on chain yet")
            key = public_key(private_key)
            operations = [lambda a, n, f: unsigned_operation(5, a, n, f, 0, key), *operations]
        signed = []
        for offset, build in enumerate(operations, start=1):
            unsigned = build(account, n_operation + offset, fee)
            signed.append(sign_operation(private_key, self.genesis, unsigned))
        return signed

    def activation_of_new_address(self, private_key: int) -> bytes:
        """The activation of an address not on chain: signer 0xFFFFFFFF, n_operation 1, fee 0."""
        unsigned = unsigned_operation(5, NEW_ACCOUNT_SIGNER, 1, 0, 0, public_key(private_key))
        return sign_operation(private_key, self.genesis, unsigned)

    def submit(self, signed_operations: list[bytes]) -> list[dict]:
        """excuteRaw of one blob; one reply per operation, in order."""
        reply = self.rpc.call("excuteRaw", {"rawoperation": raw_blob(signed_operations).hex()})
        return reply if isinstance(reply, list) else [reply]
