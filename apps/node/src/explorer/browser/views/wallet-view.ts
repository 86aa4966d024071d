/**
 * One wallet: balance and state, its token balances, its pending operations and those of recent
 * blocks (scanned back). No method lists a wallet's tokens: the tokens are those of the wallet's
 * operations found so far, each balance read from the token's holders.
 */
import {
  type BatchCall,
  batch,
  failed,
  type NestedResult,
  type NodePart,
  type OperationObject,
  type Outcome,
  resultOf,
  type TokenHolder,
  tokenBook,
  tokenHolding,
} from '../chain-data';
import {
  amount,
  coinAmount,
  label,
  nodeStateText,
  operationsTable,
  roleOf,
  type TokenBook,
  tokenLink,
  tokenOf,
} from '../chain-format';
import { type Child, facts, h, heading, link, mono, notice, replace, section, table } from '../dom';
import { isOperatorPage, showProblem, view } from '../page-frame';
import type { ViewContext } from './view-context';

const WALLET_SCAN_BLOCKS = 100;
const COIN_FIELDS = new Set(['balance', 'volume_lock', 'volume_timelock']);
/** getWalletInfo's extra field: the wallet in this node's key store (DESIGN §2). */
const KEY_STATE = 'key_state';
const KEY_STATE_TEXTS: Record<string, string> = {
  unlocked: "in this node's key store, unlocked: its key signs when given its passphrase",
  locked: "in this node's key store, locked: every use of its key is refused",
  'not in key store': "not in this node's key store",
};

function keyStateText(state: string): string {
  return KEY_STATE_TEXTS[state] ?? state;
}

function involves(op: OperationObject, wallet: string): boolean {
  return (
    op.signer_account === wallet ||
    (op.senders ?? []).some((s) => s.account === wallet) ||
    (op.receivers ?? []).some((r) => r.account === wallet)
  );
}

export async function walletView(context: ViewContext, wallet: string): Promise<void> {
  const [info, count, pending, part] = await batch([
    { method: 'getWalletInfo', params: { wallet } },
    { method: 'getBlockCount' },
    { method: 'getPendingOperation' },
    { method: 'getNodePart', params: { wallet } },
  ]);
  if (context.stale()) return;
  if (failed(info)) {
    replace(view, heading('Wallet'), notice(info.message));
    return;
  }
  const height = resultOf(count);
  const found: OperationObject[] = resultOf(pending).filter((op) => involves(op, wallet));
  const fields: Array<[Child, Child]> = Object.entries(info).flatMap(
    ([key, value]): Array<[Child, Child]> => {
      if (key === 'wallet') return [[label(key), mono(String(value))]];
      if (COIN_FIELDS.has(key)) return [[label(key), coinAmount(String(value))]];
      if (key === KEY_STATE) {
        return isOperatorPage ? [[label(key), keyStateText(String(value))]] : [];
      }
      return [[label(key), String(value)]];
    },
  );
  const opsPart = h('div');
  const tokensPart = h('div');
  const more = h('button', { type: 'button' }, `Look ${WALLET_SCAN_BLOCKS} blocks further back`);
  let scannedFrom = height;
  replace(
    view,
    heading('Wallet', ' ', mono(wallet)),
    section(
      'Balance and state',
      'wallet-heading',
      facts(fields),
      isOperatorPage || !(KEY_STATE in info)
        ? ''
        : notice(
            "Whether this wallet is in the node's key store is shown to the node's operator only.",
          ),
    ),
    section('Token balances', 'wallet-tokens-heading', tokensPart),
    section('Participation', 'wallet-part-heading', participationPart(wallet, part)),
    section('Operations', 'wallet-ops-heading', opsPart, more),
  );

  async function scanBack(): Promise<void> {
    const to = scannedFrom - 1;
    const from = Math.max(0, scannedFrom - WALLET_SCAN_BLOCKS);
    const calls: BatchCall[] = [];
    for (let block = to; block >= from; block--) {
      calls.push({ method: 'getBlockOperations', params: { block } });
    }
    const outcomes = calls.length === 0 ? [] : await batch(calls);
    if (context.stale()) return;
    for (const outcome of outcomes) {
      found.push(
        ...resultOf(outcome as Outcome<OperationObject[]>)
          .filter((op) => involves(op, wallet))
          .reverse(),
      );
    }
    scannedFrom = from;
    more.hidden = from === 0;
    const range = `blocks ${from} to ${height - 1}`;
    const tokens = await tokenBook(found.flatMap((op) => tokenOf(op) ?? []));
    const holdings = await Promise.all(
      [...tokens.keys()].map(async (token) => [token, await tokenHolding(token, wallet)] as const),
    );
    if (context.stale()) return;
    replace(
      opsPart,
      found.length === 0
        ? notice(`No operations of this wallet in ${range} or pending.`)
        : operationsTable(`Operations of this wallet (pending and ${range})`, found, {
            tokens,
            wallet,
          }),
    );
    replace(tokensPart, tokenBalances(tokens, holdings, range));
  }
  more.addEventListener('click', () => {
    scanBack().catch(showProblem);
  });
  await scanBack();
}

/** The wallet's holding of each token its operations found so far are about. */
function tokenBalances(
  tokens: TokenBook,
  holdings: ReadonlyArray<readonly [string, TokenHolder | null | undefined]>,
  range: string,
): HTMLElement {
  const rows = holdings.filter(([, holding]) => holding !== null);
  if (rows.length === 0) {
    return notice(`This wallet holds none of the tokens of its operations in ${range}.`);
  }
  return h(
    'div',
    null,
    table(
      'Token balances',
      ['Token', 'Balance', 'Locked', 'Time-locked', 'Can send'],
      rows.map(([token, holding]) => {
        const meta = tokens.get(token)!;
        const of = (base: string) => amount(base, meta.decimals, meta.symbol);
        return !holding
          ? [tokenLink(token, tokens), 'not found among its first holders', '', '', '']
          : [
              tokenLink(token, tokens),
              of(String(holding.balance)),
              of(String(holding.volumeLock)),
              of(String(holding.volumeTimeLock)),
              holding.transfer ? 'yes' : 'no',
            ];
      }),
    ),
    notice(`Tokens of this wallet's operations in ${range}; look further back for older ones.`),
  );
}

/** Whether the wallet takes part in a participation tree (or mines for one), and a link to it. */
function participationPart(wallet: string, part: Outcome<NestedResult<NodePart>>): HTMLElement {
  if (failed(part)) {
    return notice(
      part.reason === 'NOT_PARTICIPATING'
        ? 'This wallet does not take part in a participation tree.'
        : part.message,
    );
  }
  const { state, nodeWallet } = part.result;
  const role = roleOf(state) ?? 'participating';
  const as = nodeWallet === wallet ? `${role} node` : `miner wallet of ${role} node ${nodeWallet}`;
  return h(
    'p',
    null,
    `This wallet is a ${as}, state ${nodeStateText(state)}. `,
    link(`#/participation/${wallet}`, 'Participation tree'),
  );
}
