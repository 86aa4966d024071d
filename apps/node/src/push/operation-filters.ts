/**
 * Which mined operations a walletOperations / tokenTransfers subscription hears, judged on the
 * operation object as getBlockOperations returns it (addresses in canonical form: the prefix, then
 * lowercase hex). Some types leave standard fields out (createToken has no `senders`, `receivers`
 * nor `amount`: SPEC, "Variants"), so every field but `signer_account`, `optype` and `optxt` may be
 * absent.
 */
import type { OperationObject } from '@chain/ledger';
import { CREATE_TOKEN_OPTYPE, TOKEN_OPTYPE } from '@chain/tokens';

interface Party {
  account?: unknown;
}

/** The wallet signed it, sends in it or receives in it. */
export function touchesWallet(operation: OperationObject, wallet: string): boolean {
  return (
    operation.signer_account === wallet ||
    names(operation.senders, wallet) ||
    names(operation.receivers, wallet)
  );
}

/** One of the parties (a sender or receiver list, when the operation has it) is the wallet. */
function names(parties: readonly Party[] | undefined, wallet: string): boolean {
  return Array.isArray(parties) && parties.some((party) => party.account === wallet);
}

/**
 * A token operation (create, send, admin) of this token. The operation object names the token in
 * `token` (createToken) or in its text only ("... of token CH..." / "Token CH ..."): every token
 * operation's text names its token's address, and an address is 48 characters no other word
 * matches.
 */
export function touchesToken(operation: OperationObject, token: string): boolean {
  if (operation.optype !== TOKEN_OPTYPE && operation.optype !== CREATE_TOKEN_OPTYPE) return false;
  const named = (operation as { token?: unknown }).token;
  return (
    named === token || (typeof operation.optxt === 'string' && operation.optxt.includes(token))
  );
}
