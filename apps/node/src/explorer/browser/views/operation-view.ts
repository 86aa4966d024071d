/** One operation by ophash: details, senders, receivers; followed live until it is in a block. */
import { type OperationObject, rpc } from '../chain-data';
import { amountOf, blockLink, coins, optypeName, walletLink, when } from '../chain-format';
import { type Child, facts, h, heading, mono, notice, replace, section, table } from '../dom';
import { status, view } from '../page-frame';
import type { ViewContext } from './view-context';

/** Fields the details list shows in its own way; every other field follows as it is. */
const SHOWN_FIELDS = new Set([
  'ophash',
  'block',
  'maturation',
  'optype',
  'optxt',
  'signer_account',
  'n_operation',
  'amount',
  'oprice',
  'time',
  'senders',
  'receivers',
]);

export async function operationView(context: ViewContext, arg: string): Promise<void> {
  const ophash = arg.toLowerCase().replace(/^0x/, '');
  if (!/^[0-9a-f]{64}$/.test(ophash)) {
    replace(view, heading('Operation'), notice(`"${arg}" is not an ophash (64 hex digits).`));
    return;
  }
  let shownBlock = -1;
  async function refresh(): Promise<void> {
    const found = await rpc('findOperation', { ophash });
    if (context.stale()) return;
    const op = found[0];
    if (op === undefined) {
      replace(
        view,
        heading('Operation'),
        notice(`No operation with ophash ${ophash} is known to this node.`),
      );
      return;
    }
    if (op.block === shownBlock) return;
    shownBlock = op.block;
    replace(
      view,
      heading('Operation'),
      section('Details', 'op-heading', facts(detailFields(op))),
      section('Senders', 'senders-heading', sendersPart(op)),
      section('Receivers', 'receivers-heading', receiversPart(op)),
    );
    status.textContent =
      op.block > 0 ? `Operation is in block ${op.block}.` : 'Operation is pending.';
  }
  await refresh();
  context.onChainChange(async () => {
    if (shownBlock <= 0) await refresh();
  });
}

function detailFields(op: OperationObject): Array<[string, Child]> {
  const fields: Array<[string, Child]> = [
    ['ophash', mono(op.ophash)],
    [
      'status',
      op.block > 0
        ? h(
            'span',
            null,
            'in block ',
            blockLink(op.block),
            ` (${op.maturation ?? 0} blocks on top)`,
          )
        : 'pending',
    ],
    ['type', `${optypeName(op.optype)} (optype ${op.optype})`],
    ['description', op.optxt],
    ['signer', walletLink(op.signer_account)],
    ['n_operation', String(op.n_operation)],
    ['amount', op.amount === undefined ? '' : `${op.amount} (${amountOf(op)})`],
    ['fee', `${op.oprice} (${coins(op.oprice)})`],
    ['time', when(op.time)],
  ];
  for (const [key, value] of Object.entries(op)) {
    if (SHOWN_FIELDS.has(key)) continue;
    fields.push([key, typeof value === 'object' ? JSON.stringify(value) : String(value)]);
  }
  return fields;
}

function sendersPart(op: OperationObject): HTMLElement {
  const senders = op.senders ?? [];
  if (senders.length === 0) return notice('No senders.');
  return table(
    'Senders',
    ['Wallet', 'Payload', 'Payload type', ...amountHeader(senders)],
    senders.map((s) => [
      walletLink(s.account),
      mono(s.payload === '' ? '(none)' : s.payload),
      String(s.payload_type),
      ...amountCell(senders, s.amount),
    ]),
  );
}

function receiversPart(op: OperationObject): HTMLElement {
  const receivers = op.receivers ?? [];
  if (receivers.length === 0) return notice('No receivers.');
  return table(
    'Receivers',
    ['Wallet', ...amountHeader(receivers)],
    receivers.map((r) => [walletLink(r.account), ...amountCell(receivers, r.amount)]),
  );
}

/** Senders and receivers carry their own amount only in H/W-check results. */
function amountHeader(parts: Array<{ amount?: string }>): string[] {
  return parts.some((part) => part.amount !== undefined) ? ['Amount'] : [];
}

function amountCell(parts: Array<{ amount?: string }>, amount: string | undefined): Child[] {
  return parts.some((part) => part.amount !== undefined) ? [amount ?? ''] : [];
}
