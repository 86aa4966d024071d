/**
 * One wallet: balance and state, its token balances (getWalletTokens), its pending operations and
 * its mined ones, newest first, a page at a time by the history index (getWalletOperations).
 */
import {
  batch,
  failed,
  type NestedResult,
  type NodePart,
  type OperationObject,
  type Outcome,
  resultOf,
  rpc,
  tokenBook,
  type WalletTokenBalance,
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

/** Operations per page of the wallet's history ("further back" reads the next). */
const WALLET_PAGE = 100;
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
  const [info, pending, part] = await batch([
    { method: 'getWalletInfo', params: { wallet } },
    { method: 'getPendingOperation' },
    { method: 'getNodePart', params: { wallet } },
  ]);
  if (context.stale()) return;
  if (failed(info)) {
    replace(view, heading('Wallet'), notice(info.message));
    return;
  }
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
  const more = h('button', { type: 'button' }, `Look ${WALLET_PAGE} operations further back`);
  more.hidden = true;
  const firstPart = h('div');
  const first = h('button', { type: 'button' }, 'Show its first operations');
  first.hidden = true;
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
    section('Operations', 'wallet-ops-heading', opsPart, more, first, firstPart),
  );

  // The history index pages the wallet's operations newest first, by cursor: "further back" is
  // one read of the index whatever the chain's length, never a scan of blocks.
  let cursor: string | null = null;
  let indexFrom = 0;
  async function pageBack(): Promise<void> {
    const page = await rpc('getWalletOperations', {
      wallet,
      max: WALLET_PAGE,
      ...(cursor === null ? {} : { cursor }),
    });
    if (context.stale()) return;
    found.push(...page.operations);
    cursor = page.cursor;
    indexFrom = page.indexFrom;
    more.hidden = cursor === null;
    first.hidden = cursor === null;
    const tokens = await tokenBook(found.flatMap((op) => tokenOf(op) ?? []));
    if (context.stale()) return;
    const whole = cursor === null;
    const since = indexFrom > 0 ? ` (this node's history index starts at block ${indexFrom})` : '';
    replace(
      opsPart,
      found.length === 0
        ? notice(`No operations of this wallet, pending or mined${since}.`)
        : operationsTable(
            whole
              ? `Operations of this wallet: all of them, pending and mined${since}`
              : `Operations of this wallet: pending and the newest ${found.length - pendingCount} mined`,
            found,
            { tokens, wallet },
          ),
    );
  }
  const pendingCount = found.length;
  // The oldest end in one read of the index (from block 0 on), however long the history.
  async function showFirst(): Promise<void> {
    const page = await rpc('getWalletOperations', { wallet, max: WALLET_PAGE, fromBlock: 0 });
    const tokens = await tokenBook(page.operations.flatMap((op) => tokenOf(op) ?? []));
    if (context.stale()) return;
    first.hidden = true;
    replace(
      firstPart,
      operationsTable(
        `The first ${page.operations.length} operations of this wallet`,
        page.operations,
        {
          tokens,
          wallet,
        },
      ),
    );
  }
  first.addEventListener('click', () => {
    showFirst().catch(showProblem);
  });
  more.addEventListener('click', () => {
    pageBack().catch(showProblem);
  });
  await Promise.all([pageBack(), showTokens(context, wallet, tokensPart)]);
}

/** The wallet's token balances: every token it holds (getWalletTokens), in one call. */
async function showTokens(context: ViewContext, wallet: string, part: HTMLElement): Promise<void> {
  const listed = await rpc('getWalletTokens', { wallet });
  const tokens = await tokenBook(listed.tokens.map((t) => t.token));
  if (context.stale()) return;
  replace(part, tokenBalances(tokens, listed.tokens, listed.indexFrom));
}

function tokenBalances(
  tokens: TokenBook,
  holdings: readonly WalletTokenBalance[],
  indexFrom: number,
): HTMLElement {
  const since = indexFrom > 0 ? ` (of its operations from block ${indexFrom} on)` : '';
  if (holdings.length === 0) return notice(`This wallet holds no tokens${since}.`);
  return table(
    'Token balances',
    ['Token', 'Balance', 'Locked', 'Time-locked', 'Can send'],
    holdings.map((holding) => {
      const meta = tokens.get(holding.token);
      const of = (base: string) =>
        meta === undefined ? `${base} base units` : amount(base, meta.decimals, meta.symbol);
      return [
        tokenLink(holding.token, tokens),
        of(holding.balance),
        of(holding.volumeLock),
        of(holding.volumeTimeLock),
        holding.transfer ? 'yes' : 'no',
      ];
    }),
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
