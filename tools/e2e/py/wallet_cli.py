"""Command line of the Python wallet; every command prints one JSON document on stdout.

Private keys come from environment variables (encoded, `ca022000` + 64 hex, or a bare scalar), never
from the command line where other users of the machine could read them: CHAIN_WALLET_KEY for the
signer, CHAIN_MINE_KEY for blockchainStart's mine wallet.

  keygen [--prefix CH]                           a fresh key: encoded private key, public key, address
  build-transfer --genesis HEX --signer N --n-operation N --fee BASE --to ACCOUNT|ADDRESS
                 --amount COINS [--payload HEX]  an offline transfer blob (no node needed)
  activate --url URL                             activation of an address not on chain (signer ffffffff)
  send --url URL --to ACCOUNT|ADDRESS --amount COINS [--payload HEX]
                                                 a transfer (the activation first if the key is not on chain)
  create-token --url URL --name N --symbol S --summary T --total WHOLE --decimal D [--advanced]
  send-token --url URL --token ADDRESS --to ADDRESS --amount TOKENS --decimal D [--payload HEX]
  admin-token --url URL --token ADDRESS --method M [--to ADDRESS] [--amount TOKENS --decimal D]
              [--select true|false] [--lock-blocks N]
  participate --url URL --step STEP --fields JSON     a participation step (addresses, coins, hex code)
  sign-message --prefix CH --message TEXT        the signed message object
  verify-message --prefix CH                     reads a signed message object (or an array of them)
                                                 on stdin: true/false (or an array of verdicts)

--genesis HEX and --prefix override what the node tells (nodeStatus.genesis, block 0's address).
"""

from __future__ import annotations

import argparse
import json
import os
import sys

import chainwallet as cw
from node_session import NodeSession, RpcError, WalletError


def _key(variable: str = "CHAIN_WALLET_KEY") -> int:
    text = os.environ.get(variable)
    if not text:
        raise WalletError(f"set {variable} to the encoded private key")
    try:
        return cw.decode_private_key(text)
    except ValueError as error:
        # The message names the variable, never its value.
        raise WalletError(f"{variable} is not a valid private key ({error})") from None


def _receiver(text: str, prefix: str | None) -> int | bytes:
    return int(text) if text.isdigit() else cw.parse_address(text, prefix)


def _session(args) -> NodeSession:
    genesis = bytes.fromhex(args.genesis) if args.genesis else None
    return NodeSession(args.url, genesis=genesis, prefix=args.prefix)


def _report(session: NodeSession, signed: list[bytes], **extra) -> dict:
    """Submits; pairs each node reply with the ophash this wallet computed."""
    replies = session.submit(signed)
    return {
        **extra,
        "genesis": session.genesis.hex(),
        "rawoperation": cw.raw_blob(signed).hex(),
        "operations": [
            {"ophash": cw.ophash(op), "digest": cw.digest(op).hex(), "reply": reply}
            for op, reply in zip(signed, replies, strict=True)
        ],
    }


def cmd_keygen(args) -> dict:
    d = cw.random_private_key()
    public = cw.public_key(d)
    return {
        "private": cw.encode_private_key(d),
        "public": public.hex(),
        "enc": cw.encode_public_key(public),
        "address": cw.address_from_public_key(args.prefix or "CH", public),
    }


def cmd_build_transfer(args) -> dict:
    d = _key()
    body = cw.transfer_body(
        _receiver(args.to, None), cw.to_base_units(args.amount), cw.from_hex(args.payload)
    )
    unsigned = cw.unsigned_operation(2, args.signer, args.n_operation, args.fee, 0, body)
    signed = cw.sign_operation(d, bytes.fromhex(args.genesis), unsigned)
    return {"rawoperation": cw.raw_blob([signed]).hex(), "ophash": cw.ophash(signed)}


def cmd_activate(args) -> dict:
    session = _session(args)
    d = _key()
    return _report(session, [session.activation_of_new_address(d)], wallet=session.address(d))


def cmd_send(args) -> dict:
    session = _session(args)
    d = _key()
    body = cw.transfer_body(
        _receiver(args.to, session.prefix), cw.to_base_units(args.amount), cw.from_hex(args.payload)
    )
    signed = session.sign_sequence(
        d, [lambda a, n, fee: cw.unsigned_operation(2, a, n, fee, 0, body)]
    )
    return _report(session, signed, wallet=session.address(d))


def cmd_create_token(args) -> dict:
    session = _session(args)
    d = _key()
    body = cw.create_token_body(
        args.advanced,
        args.decimal,
        cw.to_base_units(args.total, args.decimal),
        args.name,
        args.symbol,
        args.summary,
    )
    created: dict = {}

    def build(account: int, n_operation: int, fee: int) -> bytes:
        # The token's address is known as soon as the operation is numbered.
        created["token"] = cw.address_from_hash(session.prefix, cw.token_hash(account, n_operation))
        return cw.unsigned_operation(6, account, n_operation, fee, 0, body)

    signed = session.sign_sequence(d, [build])
    return _report(session, signed, wallet=session.address(d), token=created["token"])


def cmd_send_token(args) -> dict:
    session = _session(args)
    d = _key()
    body = cw.send_token_body(
        cw.parse_address(args.token, session.prefix),
        cw.parse_address(args.to, session.prefix),
        cw.to_base_units(args.amount, args.decimal),
        cw.from_hex(args.payload),
    )
    signed = session.sign_sequence(
        d, [lambda a, n, fee: cw.unsigned_operation(7, a, n, fee, 0, body)]
    )
    return _report(session, signed, wallet=session.address(d))


def cmd_admin_token(args) -> dict:
    session = _session(args)
    d = _key()
    subtype = cw.ADMIN_SUBTYPES[args.method]
    given = {
        "receiver": cw.parse_address(args.to, session.prefix) if args.to else None,
        "amount": cw.to_base_units(args.amount, args.decimal) if args.amount else None,
        "select": None if args.select is None else args.select == "true",
        "lock_blocks": args.lock_blocks,
    }
    fields = {name: given[name] for name in cw.admin_token_fields(subtype)}
    body = cw.admin_token_body(subtype, cw.parse_address(args.token, session.prefix), **fields)
    signed = session.sign_sequence(
        d, [lambda a, n, fee: cw.unsigned_operation(7, a, n, fee, subtype, body)]
    )
    return _report(session, signed, wallet=session.address(d))


def _participation_fields(session: NodeSession, step: str, given: dict) -> dict:
    """JSON values (addresses, whole coins, hex code, booleans) to the layout's field values."""
    fields = {}
    for spec in cw.PARTICIPATION_STEPS[step][2]:
        name, kind = spec.split(":")
        if kind == "sig64":
            continue
        value = given[name]
        converters = {
            "code": cw.from_hex,
            "hash": lambda v: cw.parse_address(v, session.prefix),
            "amount": cw.to_base_units,
            "flag": bool,
            "percent": int,
            "text": str,
        }
        fields[name] = converters[kind](value)
    return fields


def cmd_participate(args) -> dict:
    session = _session(args)
    d = _key()
    fields = _participation_fields(session, args.step, json.loads(args.fields))
    if args.step == "blockchainStart":
        fields["mineConsent"] = cw.mine_consent(_key("CHAIN_MINE_KEY"), session.genesis, fields["code"])
    numbered: dict = {}

    def build(account: int, n_operation: int, fee: int) -> bytes:
        numbered.update(account=account, n_operation=n_operation)
        return cw.participation_operation(args.step, account, n_operation, fee, **fields)

    signed = session.sign_sequence(d, [build], activate=False)
    extra = {"wallet": session.address(d)}
    if args.step == "nodeStep1":
        extra["code"] = cw.node_code(numbered["account"], numbered["n_operation"]).hex()
    return _report(session, signed, **extra)


def cmd_sign_message(args) -> dict:
    return cw.sign_message(_key(), args.prefix, args.message)


def cmd_verify_message(args) -> bool | list[bool]:
    given = json.load(sys.stdin)
    if isinstance(given, list):
        return [cw.verify_message(signed, args.prefix) for signed in given]
    return cw.verify_message(given, args.prefix)


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    commands = parser.add_subparsers(dest="command", required=True)

    def command(name: str, handler, online: bool = True) -> argparse.ArgumentParser:
        sub = commands.add_parser(name)
        sub.set_defaults(handler=handler)
        sub.add_argument("--prefix")
        if online:
            sub.add_argument("--url", required=True)
            sub.add_argument("--genesis")
        return sub

    command("keygen", cmd_keygen, online=False)
    build = command("build-transfer", cmd_build_transfer, online=False)
    build.add_argument("--genesis", required=True)
    build.add_argument("--signer", type=int, required=True)
    build.add_argument("--n-operation", type=int, required=True)
    build.add_argument("--fee", type=int, required=True)
    command("activate", cmd_activate)
    for name, handler in (("send", cmd_send), ("send-token", cmd_send_token)):
        sub = command(name, handler)
        sub.add_argument("--to", required=True)
        sub.add_argument("--amount", required=True)
        sub.add_argument("--payload", default="")
    for sub in (build,):
        sub.add_argument("--to", required=True)
        sub.add_argument("--amount", required=True)
        sub.add_argument("--payload", default="")
    create = command("create-token", cmd_create_token)
    for option in ("--name", "--symbol", "--summary", "--total"):
        create.add_argument(option, required=True)
    create.add_argument("--decimal", type=int, required=True)
    create.add_argument("--advanced", action="store_true")
    commands.choices["send-token"].add_argument("--token", required=True)
    commands.choices["send-token"].add_argument("--decimal", type=int, required=True)
    admin = command("admin-token", cmd_admin_token)
    admin.add_argument("--token", required=True)
    admin.add_argument("--method", required=True, choices=sorted(cw.ADMIN_SUBTYPES))
    admin.add_argument("--to")
    admin.add_argument("--amount")
    admin.add_argument("--decimal", type=int, default=0)
    admin.add_argument("--select", choices=("true", "false"))
    admin.add_argument("--lock-blocks", type=int)
    participate = command("participate", cmd_participate)
    participate.add_argument("--step", required=True, choices=sorted(cw.PARTICIPATION_STEPS))
    participate.add_argument("--fields", required=True)
    sign = command("sign-message", cmd_sign_message, online=False)
    sign.add_argument("--message", required=True)
    command("verify-message", cmd_verify_message, online=False)
    return parser


def main(argv: list[str]) -> int:
    args = _parser().parse_args(argv)
    if args.command in ("sign-message", "verify-message") and not args.prefix:
        args.prefix = "CH"
    try:
        result = args.handler(args)
        print(json.dumps(result))
        # Exit 3 when the node refused an operation ({"valid": false, ...}); the JSON says which.
        refused = isinstance(result, dict) and any(
            op["reply"].get("valid") is False for op in result.get("operations", [])
        )
        return 3 if refused else 0
    except (WalletError, RpcError, ValueError, KeyError) as error:
        print(json.dumps({"error": f"{type(error).__name__}: {error}"}), file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
