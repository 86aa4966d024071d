/**
 * One token: its description, its holders, its operations (transfers and administration) and its
 * supply history. No method lists a token's operations: the page scans blocks back (as the node's
 * own tokenTransfers push does, by the token named in each operation) until it reaches the token's
 * creation or the user stops asking.
 */
import {
  batch,
  failed,
  isNotAvailable,
  manyOperations,
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
  tokenOf,
  unquote,
  walletLink,
  when,
} from '../chain-format';
import { type Child, facts, h, heading, mono, notice, replace, section, table } from '../dom';
import { showProblem, view } from '../page-frame';
import type { ViewContext } from './view-context';

const QUOTED_FIELDS = new Set(['symbol', 'name', 'summary']);
/** Blocks scanned per step for the token's operations; the first load takes up to two steps. */
const TOKEN_SCAN_BLOCKS = 1000;
const FIRST_SCAN_STEPS = 2;
const MINT = 5;
const BURN = 4;
const CREATE_TOKEN = 6;

export async function tokenView(context: ViewContext, arg: string): Promise<void> {
  const [info, holders, count] = await batch([
    { method: 'infoToken', params: { wallet: arg } },
    { method: 'holderToken', params: { wallet: arg } },
    { method: 'getBlockCount' },
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

  const height = failed(count) ? 0 : count;
  const found: OperationObject[] = [];
  let scannedFrom = height;
  let created: OperationObject | undefined;

  async function scanBack(steps: number): Promise<void> {
    for (let step = 0; step < steps && scannedFrom > 0 && created === undefined; step++) {
      const from = Math.max(0, scannedFrom - TOKEN_SCAN_BLOCKS);
      const ops = await manyOperations(from, scannedFrom - 1);
      if (context.stale()) return;
      found.push(...ops.filter((op) => tokenOf(op) === arg));
      scannedFrom = from;
      created = found.find((op) => op.optype === CREATE_TOKEN);
    }
    const done = created !== undefined || scannedFrom === 0;
    more.hidden = done;
    const range = `blocks ${scannedFrom} to ${height - 1}`;
    replace(
      opsPart,
      found.length === 0
        ? notice(`No operations of this token in ${range}.`)
        : operationsTable(
            done ? 'Operations of this token' : `Operations of this token in ${range}`,
            found,
            { tokens },
          ),
    );
    const total = (await rpc('infoToken', { wallet: arg })).totalAmount;
    if (context.stale()) return;
    replace(supplyPart, supplyHistory(found, meta, String(total), done ? '' : range));
  }
  more.addEventListener('click', () => {
    scanBack(1).catch(showProblem);
  });
  await scanBack(FIRST_SCAN_STEPS);
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
