/** docs/rpc.md's table of domain error codes: each code's notes and the reasons it carries. */
import { DOMAIN_ERROR_CODES, reasonsByCode } from '@chain/spec';

const ERROR_NOTES: Record<string, string> = {
  INVALID_ACCOUNT:
    'address malformed, bad checksum, other network, unknown account, self-transfer (`INVALID_ADDRESS_FORMAT`, `BAD_ADDRESS_CHECKSUM`, `WRONG_NETWORK_PREFIX`, `UNKNOWN_ACCOUNT`, `SELF_TRANSFER`, ...)',
  INVALID_BLOCK: 'no such block (`BLOCK_NOT_FOUND`)',
  INVALID_OPERATION:
    'an operation that cannot apply (`ALREADY_ACTIVE`, `UNKNOWN_OPTYPE`); activeWallet while an activation of the wallet is pending: `ACTIVATION_PENDING` naming `wallet` (it is active once that operation is in a block)',
  INVALID_KEY:
    "a key that is malformed or not the wallet's (`INVALID_PRIVATE_KEY`, `KEY_WALLET_MISMATCH`)",
  NOT_FOUND:
    'not found: a wallet not in the key store (`UNKNOWN_WALLET`), a token (`UNKNOWN_TOKEN`), a participation (`NOT_PARTICIPATING`)',
  WALLET_LOCKED: 'the wallet is locked (`WALLET_LOCKED`): unlockWallet first',
  INVALID_DATA:
    'bytes or text that do not decode (`TRUNCATED`, `INVALID_HEX`, `INVALID_OPHASH`, `BAD_OPTYPE`, `INVALID_SIGNED_MESSAGE`, `BAD_IP`, `BAD_PEER_ADDRESS`, ...)',
  SIGNATURE_MISMATCH:
    'a signature that does not verify (`SIGNATURE_MISMATCH`, `KEY_NOT_OF_ACCOUNT`); excuteRaw, see below',
  NOT_ALLOWED:
    'refused in this state: the node is shutting down (`CHAIN_CLOSED`, `KEYSTORE_CLOSED`)',
  WRONG_PASSPHRASE: 'wrong passphrase (`WRONG_PASSPHRASE`)',
  INSUFFICIENT_FUNDS: 'not enough spendable balance for amount and fee (`INSUFFICIENT_FUNDS`)',
  INVALID_N_OPERATION:
    'n_operation is not the next one of the account (`INVALID_N_OPERATION`); excuteRaw, see below',
  INACTIVE_ACCOUNT:
    "the signer is not an active wallet (`INACTIVE_ACCOUNT`), e.g. a new wallet's first spend: activate it first, the message says how (dumpPrivateKey answers the key as `priv`, activeWallet takes it as `private`: both names are the spec's)",
  INVALID_AMOUNT:
    'malformed or too precise amount (`INVALID_AMOUNT`, `TOO_PRECISE`, `AMOUNT_TOO_LARGE`)',
  DUPLICATE_OPERATION:
    'the same operation again (`DUPLICATE_OPERATION`), pending or on chain; excuteRaw, see below',
  FEE_TOO_LOW:
    'fee below the act price (`FEE_TOO_LOW`), or a second zero-fee operation of an account in a block (`ZERO_FEE_USED`); excuteRaw, see below',
  TOO_MANY_ATTEMPTS:
    'too many passphrase checks waiting from this address after its wrong passphrases (`TOO_MANY_ATTEMPTS`): retry later',
  MEMPOOL_FULL:
    'the mempool holds its most: 200,000 operations, or the bytes of heap `--mempool-mb` gives it (30 % of `--max-heap-mb` by default), or the heap is nearly full (`MEMPOOL_FULL`); or 32 new accounts already activate themselves in the next block (`NEW_ACCOUNTS_FULL`): retry after the next block',
  TOKEN_RULE:
    'a token rule: not the owner, transfers disabled, volume locked, ... (`NOT_TOKEN_OWNER`, `TOKEN_TRANSFER_DISABLED`, `TOKEN_VOLUME_LOCKED`, `NAME_EMPTY`, ...); createToken whose token address already holds native coins (`TOKEN_ADDRESS_HOLDS_COINS` naming `wallet`, the message gives the balance): any other operation of the wallet first moves the address',
  PARTICIPATION_RULE:
    'a rule of the participation procedure: stake too small, wrong order, sub-nodes still participating, ... (`STAKE_TOO_SMALL`, `STEP_OUT_OF_ORDER`, ...)',
  NETWORK:
    'the peer-to-peer layer refused (`CLOSED`: nodeStart while the node shuts down); a peer refused at its handshake is blacklisted with the reason `ERRCODE:1080 ...` instead',
};

/**
 * The domain codes' rows: each code with its notes and every reason @chain/spec's tables give it
 * (`reasonsByCode`), so a reason added to a table shows here at the next regeneration.
 */
export function domainErrorRows(): string[] {
  const byCode = reasonsByCode();
  return Object.entries(DOMAIN_ERROR_CODES).map(([name, code]) => {
    const reasons = (byCode.get(code) ?? []).map((reason) => `\`${reason}\``).join(', ');
    return `| ${code} | \`${name}\` | ${ERROR_NOTES[name] ?? ''} | ${reasons || '—'} |`;
  });
}
