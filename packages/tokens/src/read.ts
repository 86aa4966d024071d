import { addressFromHash160, decodeAddress } from '@chain/crypto';
import type { Chain, StateSpace } from '@chain/ledger';
import type {
  TokenHolder as TokenHolderEntry,
  TokenHolders,
  TokenInfo,
  WalletTokenBalance,
  WalletTokens,
} from '@chain/spec';
import { formatTokenAmount } from './amounts';
import { tokenNotFound, tokenRule } from './errors';
import { DEFAULT_HOLDER_PAGE, MAX_HOLDER_PAGE, MAX_WALLET_TOKENS } from './limits';
import {
  type HolderState,
  holderKey,
  holderSpace,
  liveTimeLock,
  NO_HOLDER,
  type TokenState,
  tokenKey,
  tokenSpace,
} from './state';

/** The result objects of tokenInfo and holderToken: the wire contract's (@chain/spec). */
export type { TokenHolderEntry, TokenHolders, TokenInfo };

/** What the token reads need of a chain. */
export type TokenChainView = Pick<
  Chain,
  'prefix' | 'stateEntry' | 'accountByNumber' | 'accountByAddress' | 'head'
>;

/** What walletTokens needs beside: the history index's wallet-token entries. */
export type WalletTokensView = TokenChainView &
  Pick<Chain, 'walletTokenHashes' | 'indexStart' | 'loadState'>;

export interface HolderPage {
  /** Continue after this holder's wallet (the last `wallet` of the previous page). */
  after?: string;
  /** Holders in the page: 1 to MAX_HOLDER_PAGE, default DEFAULT_HOLDER_PAGE. */
  max?: number;
}

/** A token of the committed state (or, with `pending`, of the mempool's state). */
export function readToken(
  chain: TokenChainView,
  address: string,
  param = 'wallet',
  options: { pending?: boolean } = {},
): { key: string; token: TokenState } {
  const key = tokenKey(decodeAddress(address, chain.prefix, param).hash160);
  const token = chain.stateEntry(tokenSpace, key, options);
  if (token === undefined) {
    throw tokenNotFound('UNKNOWN_TOKEN', `no token has the address in '${param}'`, param);
  }
  return { key, token };
}

/** Whether the address is a token's (committed state, or with `pending` the mempool's). */
/** What isTokenAddress reads, for Chain.loadState: a read of many wallets loads it with them. */
export function tokenAddressStateKey(hash160: Uint8Array): readonly [StateSpace<unknown>, string] {
  return [tokenSpace as StateSpace<unknown>, tokenKey(hash160)];
}

export function isTokenAddress(
  chain: TokenChainView,
  hash160: Uint8Array,
  options: { pending?: boolean } = {},
): boolean {
  return chain.stateEntry(tokenSpace, tokenKey(hash160), options) !== undefined;
}

function addressOfAccount(chain: TokenChainView, account: number): string {
  const view = chain.accountByNumber(account);
  return view === undefined ? `#${account}` : view.address;
}

/**
 * The spec encloses symbol, name and summary in single quotes; a quote or backslash inside is
 * escaped with a backslash, so the enclosed text always reads back unambiguously.
 */
export const quoted = (text: string): string => `'${text.replace(/[\\']/g, '\\$&')}'`;

export function tokenInfo(chain: TokenChainView, address: string, param = 'wallet'): TokenInfo {
  const { token } = readToken(chain, address, param);
  return {
    totalHolder: token.holders,
    advanced: token.advanced,
    symbol: quoted(token.symbol),
    name: quoted(token.name),
    summary: quoted(token.summary),
    issuer: addressOfAccount(chain, token.issuer),
    owner: addressOfAccount(chain, token.owner),
    decimal: token.decimal,
    totalAmount: formatTokenAmount(token.supply, token.decimal),
  };
}

function holderEntry(
  chain: TokenChainView,
  account: number,
  holder: HolderState,
  height: number,
): TokenHolderEntry {
  return {
    transfer: holder.transfer,
    balance: holder.balance.toString(),
    wallet: addressOfAccount(chain, account),
    volumeLock: holder.volumeLock.toString(),
    volumeTimeLock: liveTimeLock(holder, height).toString(),
  };
}

/**
 * One page of a token's holders, in the order they became holders. A holder is listed while it has
 * a balance, a lock or a disabled transfer. Reading a page costs the page, not the holder count.
 */
export function tokenHolders(
  chain: TokenChainView,
  address: string,
  page: HolderPage = {},
  params: { wallet: string; after: string; max: string } = {
    wallet: 'wallet',
    after: 'after',
    max: 'max',
  },
): TokenHolders {
  const max = page.max ?? DEFAULT_HOLDER_PAGE;
  if (!Number.isInteger(max) || max < 1 || max > MAX_HOLDER_PAGE) {
    throw tokenRule('BAD_PAGE_SIZE', `'${params.max}' must be 1 to ${MAX_HOLDER_PAGE}`, params.max);
  }
  const { key, token } = readToken(chain, address, params.wallet);
  let next = token.first;
  if (page.after !== undefined) {
    const afterHash = decodeAddress(page.after, chain.prefix, params.after).hash160;
    const account = chain.accountByAddress(addressFromHash160(chain.prefix, afterHash));
    const holder =
      account === undefined
        ? undefined
        : chain.stateEntry(holderSpace, holderKey(key, account.number));
    if (account === undefined || holder === undefined) {
      throw tokenNotFound(
        'HOLDER_NOT_FOUND',
        `the wallet in '${params.after}' is not a holder of this token (any more)`,
        params.after,
      );
    }
    next = holder.next;
  }
  const height = chain.head().height;
  const holder: TokenHolderEntry[] = [];
  while (next !== NO_HOLDER && holder.length < max) {
    const entry = chain.stateEntry(holderSpace, holderKey(key, next));
    if (entry === undefined) break; // unreachable: the list links listed entries only
    holder.push(holderEntry(chain, next, entry, height));
    next = entry.next;
  }
  return {
    transfer: token.transfer,
    advanced: token.advanced,
    totalHolder: token.holders,
    holder,
    more: next !== NO_HOLDER,
  };
}

/**
 * The tokens a wallet holds, with its balance in each (base units): the tokens its operations ever
 * moved (the history index's wallet-token entries), each read from the committed state, those it
 * no longer holds left out. The entries and the state are loaded in one batch each.
 */
export async function walletTokens(
  chain: WalletTokensView,
  address: string,
  param = 'wallet',
): Promise<WalletTokens> {
  const { hash160 } = decodeAddress(address, chain.prefix, param);
  const wallet = addressFromHash160(chain.prefix, hash160);
  const hashes = await chain.walletTokenHashes(wallet, MAX_WALLET_TOKENS);
  const account = chain.accountByAddress(wallet);
  const tokens: WalletTokenBalance[] = [];
  if (account !== undefined && hashes.length > 0) {
    const keys = hashes.map((h) => tokenKey(h));
    await chain.loadState({
      spaces: keys.flatMap((key) => [
        [tokenSpace as StateSpace<unknown>, key] as const,
        [holderSpace as StateSpace<unknown>, holderKey(key, account.number)] as const,
      ]),
    });
    const height = chain.head().height;
    keys.forEach((key, i) => {
      const holder = chain.stateEntry(holderSpace, holderKey(key, account.number));
      const token = chain.stateEntry(tokenSpace, key);
      if (holder === undefined || token === undefined) return;
      tokens.push({
        token: addressFromHash160(chain.prefix, hashes[i]!),
        symbol: quoted(token.symbol),
        decimal: token.decimal,
        balance: holder.balance.toString(),
        volumeLock: holder.volumeLock.toString(),
        volumeTimeLock: liveTimeLock(holder, height).toString(),
        transfer: holder.transfer,
      });
    });
  }
  return { wallet, tokens, indexFrom: chain.indexStart() };
}
