/**
 * One token: its description, its holders, its operations (transfers and administration), newest
 * first a page at a time by the history index (getTokenOperations), and its supply history.
 */
import {
  batch,
  failed,
  isNotAvailable,
  type OperationObject,
  type Outcome,
  rpc,
  type TokenHolders,
  tokenBook,
} from '../chain-data';
import {
  amount,
  amountText,
  baseUnitsOf,
  blockLink,
  createdSupply,
  label,
  operationsTable,
  type TokenMeta,
  unquote,
  walletLink,
  when,
} from '../chain-format';
import { type Child, facts, h, heading, mono, notice, replace, section, table } from '../dom';
import { showProblem, view } from '../page-frame';
import type { ViewContext } from './view-context';

const QUOTED_FIELDS = new Set(['symbol', 'name', 'summary']);
/** Operations per page of the token's history ("further back" reads the next). */
const TOKEN_PAGE = 100;
const MINT = 5;
const BURN = 4;
const CREATE_TOKEN = 6;

export async function tokenView(context: ViewContext, arg: string): Promise<void> {
  const [info, holders] = await batch([
    { method: 'infoToken', params: { wallet: arg } },
    { method: 'holderToken', params: { wallet: arg } },
  ]);
  if (context.stale()) return;
  if (isNotAvailable(info)) {
    replace(
      view,
      heading('Token', ' ', mono(arg)),
      notice('Token methods are not available on this node yet.'),
    );
    return;
  }
  if (failed(info)) {
    replace(view, heading('Token', ' ', mono(arg)), notice(info.message));
    return;
  }
  const tokens = await tokenBook([arg]);
  const meta: TokenMeta = tokens.get(arg) ?? {
    address: arg,
    symbol: unquote(info.symbol),
    name: unquote(info.name),
    decimals: Number(info.decimal ?? 0),
  };
  if (context.stale()) return;
  const fields: Array<[Child, Child]> = Object.entries(info).map(([key, value]) => {
    if (key === 'issuer' || key === 'owner') return [label(key), walletLink(String(value))];
    if (QUOTED_FIELDS.has(key)) return [label(key), unquote(value)];
    if (key === 'totalAmount') {
      const base = baseUnitsOf(String(value), meta.decimals);
      return [
        label(key),
        base === undefined ? String(value) : amount(base.toString(), meta.decimals, meta.symbol),
      ];
    }
    if (key === 'advanced') return [label(key), value ? 'yes' : 'no'];
    return [label(key), String(value)];
  });
  const opsPart = h('div');
  const supplyPart = h('div');
  const more = h('button', { type: 'button', hidden: true }, 'Look further back');
  replace(
    view,
    heading(`Token ${meta.symbol}`.trim(), ' ', mono(arg)),
    section('Token', 'token-heading', facts(fields)),
    section('Holders', 'holders-heading', holdersPart(holders, meta)),
    section('Supply history', 'supply-heading', supplyPart),
    section('Operations', 'token-ops-heading', opsPart, more),
  );

  const found: OperationObject[] = [];
  let cursor: string | null = null;

  // The history index pages the token's operations newest first, by cursor: one read per page
  // whatever the chain's length, never a scan of blocks.
  async function pageBack(): Promise<void> {
    const page = await rpc('getTokenOperations', {
      token: arg,
      max: TOKEN_PAGE,
      ...(cursor === null ? {} : { cursor }),
    });
    if (context.stale()) return;
    found.push(...page.operations);
    cursor = page.cursor;
    const done = cursor === null;
    more.hidden = done;
    const partial = done
      ? page.indexFrom > 0
        ? `blocks ${page.indexFrom} on (this node's history index starts there)`
        : ''
      : `its newest ${found.length} operations`;
    replace(
      opsPart,
      found.length === 0
        ? notice('No operations of this token.')
        : operationsTable(
            partial === '' ? 'Operations of this token' : `Operations of this token: ${partial}`,
            found,
            { tokens },
          ),
    );
    const total = (await rpc('infoToken', { wallet: arg })).totalAmount;
    if (context.stale()) return;
    replace(supplyPart, supplyHistory(found, meta, String(total), partial));
  }
  more.addEventListener('click', () => {
    pageBack().catch(showProblem);
  });
  await pageBack();
}

/**
 * The supply after each creation, mint and burn, newest first: worked back from today's supply
 * (infoToken), so it is exact whether or not the creation was found.
 */
function supplyHistory(
  operations: OperationObject[],
  meta: TokenMeta,
  totalAmount: string,
  partialRange: string,
): HTMLElement {
  const current = baseUnitsOf(totalAmount, meta.decimals);
  const events = operations.filter(
    (op) =>
      op.block > 0 &&
      (op.optype === CREATE_TOKEN ||
        (op.optype === 7 && (op.subtype === MINT || op.subtype === BURN))),
  );
  if (current === undefined || events.length === 0) {
    return notice(
      partialRange === ''
        ? 'The supply has not changed since the token was created.'
        : `No creation, mint or burn of this token in ${partialRange}.`,
    );
  }
  let after = current;
  const rows: Child[][] = [];
  for (const op of events) {
    let change: bigint;
    let event: string;
    if (op.optype === CREATE_TOKEN) {
      change = createdSupply(op, meta.decimals) ?? after;
      event = 'Created';
    } else {
      change = BigInt(op.amount ?? '0') * (op.subtype === MINT ? 1n : -1n);
      event = op.subtype === MINT ? 'Minted' : 'Burned';
    }
    const magnitude = (change < 0n ? -change : change).toString();
    rows.push([
      blockLink(op.block),
      when(op.time),
      event,
      h(
        'span',
        { class: 'amount', title: `${change} base units`, 'data-base': change.toString() },
        `${change < 0n ? '−' : '+'}${amountText(magnitude, meta.decimals, meta.symbol)}`,
      ),
      amount(after.toString(), meta.decimals, meta.symbol),
    ]);
    after -= change;
  }
  return h(
    'div',
    null,
    table('Supply history', ['Block', 'Age', 'Event', 'Change', 'Supply after'], rows),
    partialRange === ''
      ? ''
      : notice(`Changes in ${partialRange}; look further back for older ones.`),
  );
}

function holdersPart(holders: Outcome<TokenHolders>, meta: TokenMeta): HTMLElement {
  if (failed(holders)) return notice(holders.message);
  const list = holders.holder ?? [];
  if (list.length === 0) return notice('No holders.');
  const of = (base: unknown) => amount(String(base), meta.decimals, meta.symbol);
  return h(
    'div',
    null,
    table(
      'Holders',
      ['Wallet', 'Balance', 'Locked', 'Time-locked', 'Can send'],
      list.map((holder) => [
        walletLink(String(holder.wallet)),
        of(holder.balance),
        of(holder.volumeLock),
        of(holder.volumeTimeLock),
        holder.transfer ? 'yes' : 'no',
      ]),
    ),
    holders.more ? notice(`The first ${list.length} of ${holders.totalHolder} holders.`) : '',
  );
}
