/** Tokens by symbol: every token created with it (symbols need not be unique), for the search. */
import { findTokensBySymbol, SEARCH_SCAN_BLOCKS } from '../chain-data';
import { blockLink, tokenLink, walletLink, when } from '../chain-format';
import { heading, mono, notice, replace, section, table } from '../dom';
import { view } from '../page-frame';
import type { ViewContext } from './view-context';

export async function tokenSearchView(context: ViewContext, symbol: string): Promise<void> {
  const tokens = await findTokensBySymbol(symbol);
  if (context.stale()) return;
  replace(
    view,
    heading(`Tokens ${symbol}`),
    section(
      'Tokens with this symbol',
      'tokens-heading',
      tokens.length === 0
        ? notice(
            `No token created in the latest ${SEARCH_SCAN_BLOCKS} blocks has the symbol ${symbol}.`,
          )
        : table(
            `Tokens with the symbol ${symbol}`,
            ['Token', 'Name', 'Address', 'Issuer', 'Created in block', 'Created'],
            tokens.map((token) => [
              tokenLink(token.address, new Map(token.meta ? [[token.address, token.meta]] : [])),
              token.meta?.name ?? '',
              mono(token.address),
              walletLink(token.operation.signer_account),
              blockLink(token.operation.block),
              when(token.operation.time),
            ]),
          ),
    ),
  );
}
