/**
 * The search box: a block number or hash, an ophash, a wallet or token address, or a token symbol,
 * to its route.
 */
import { batch, failed, findBlockByHash, findTokensBySymbol } from './chain-data';
import { isAddress } from './chain-format';
import { showProblem } from './page-frame';
import { navigate } from './router';

/** What a token symbol may look like (the node allows up to 16 characters, none blank). */
const SYMBOL = /^\S{1,16}$/u;

/** The route a query names, or a sentence saying why there is none. */
async function searchTarget(query: string): Promise<{ route: string } | { refusal: string }> {
  const text = query.trim();
  if (/^\d+$/.test(text)) return { route: `#/block/${Number(text)}` };
  const hex = text.replace(/^0x/i, '').toLowerCase();
  if (/^[0-9a-f]{64}$/.test(hex)) {
    // Ophashes and block hashes are both 64 hex digits: an operation first, then a block.
    const [found] = await batch([{ method: 'findOperation', params: { ophash: hex } }]);
    if (!failed(found) && found.length > 0) return { route: `#/op/${hex}` };
    const block = await findBlockByHash(hex);
    if (block !== undefined) return { route: `#/block/${block}` };
    return { refusal: `No operation and no block of this node has the hash ${hex}.` };
  }
  if (isAddress(text)) {
    // Token and wallet addresses look alike: a token is whatever infoToken knows.
    const [token] = await batch([{ method: 'infoToken', params: { wallet: text } }]);
    return { route: failed(token) ? `#/wallet/${text}` : `#/token/${text}` };
  }
  if (SYMBOL.test(text)) {
    const tokens = await findTokensBySymbol(text);
    if (tokens.length === 1) return { route: `#/token/${tokens[0]!.address}` };
    if (tokens.length > 1) return { route: `#/tokens/${encodeURIComponent(text)}` };
    return { refusal: `No token has the symbol ${text}.` };
  }
  return {
    refusal:
      'Enter a block number or hash, an ophash (64 hex digits), a wallet or token address, or a token symbol.',
  };
}

export function watchSearch(): void {
  const form = document.getElementById('search') as HTMLFormElement;
  const input = document.getElementById('search-input') as HTMLInputElement;
  const error = document.getElementById('search-error')!;
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    error.textContent = '';
    input.removeAttribute('aria-invalid');
    searchTarget(input.value)
      .then((target) => {
        if ('refusal' in target) {
          input.setAttribute('aria-invalid', 'true');
          error.textContent = target.refusal;
          input.focus();
          return;
        }
        if (location.hash === target.route) void navigate();
        else location.hash = target.route;
      })
      .catch(showProblem);
  });
}
