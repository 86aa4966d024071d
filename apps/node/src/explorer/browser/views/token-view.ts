/** One token: its description and its holders with balances in the token's decimals. */
import { batch, failed, isNotAvailable, type Outcome, type TokenHolders } from '../chain-data';
import { units, walletLink } from '../chain-format';
import { type Child, facts, heading, mono, notice, replace, section, table } from '../dom';
import { view } from '../page-frame';
import type { ViewContext } from './view-context';

const QUOTED_FIELDS = new Set(['symbol', 'name', 'summary']);

/** The node encloses a token's symbol, name and summary in single quotes. */
function unquote(value: unknown): string {
  return String(value).replace(/^'(.*)'$/, '$1');
}

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
  const decimals = Number(info.decimal ?? 0);
  const fields: Array<[string, Child]> = Object.entries(info).map(([key, value]) => {
    if (key === 'issuer' || key === 'owner') return [key, walletLink(String(value))];
    if (QUOTED_FIELDS.has(key)) return [key, unquote(value)];
    return [key, String(value)];
  });
  replace(
    view,
    heading(`Token ${unquote(info.symbol ?? '')}`.trim(), ' ', mono(arg)),
    section('Token', 'token-heading', facts(fields)),
    section('Holders', 'holders-heading', holdersPart(holders, decimals)),
  );
}

function holdersPart(holders: Outcome<TokenHolders>, decimals: number): HTMLElement {
  if (failed(holders)) return notice(holders.message);
  const list = holders.holder ?? [];
  if (list.length === 0) return notice('No holders.');
  return table(
    'Holders',
    ['Wallet', 'Balance', 'Locked', 'Time-locked', 'Can transfer'],
    list.map((holder) => [
      walletLink(String(holder.wallet)),
      units(String(holder.balance), decimals),
      units(String(holder.volumeLock), decimals),
      units(String(holder.volumeTimeLock), decimals),
      holder.transfer ? 'yes' : 'no',
    ]),
  );
}
