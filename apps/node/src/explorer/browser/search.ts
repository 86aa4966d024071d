/** The search box: a block number, an ophash, or a wallet or token address, to its route. */
import { batch, failed } from './chain-data';
import { isAddress } from './chain-format';
import { showProblem } from './page-frame';
import { navigate } from './router';

/** The route a query names, or undefined when it is nothing the explorer knows. */
async function searchTarget(query: string): Promise<string | undefined> {
  const text = query.trim();
  if (/^\d+$/.test(text)) return `#/block/${Number(text)}`;
  const hex = text.replace(/^0x/i, '');
  if (/^[0-9a-f]{64}$/i.test(hex)) return `#/op/${hex.toLowerCase()}`;
  if (isAddress(text)) {
    // Token and wallet addresses look alike: a token is whatever infoToken knows.
    const [token] = await batch([{ method: 'infoToken', params: { wallet: text } }]);
    return failed(token) ? `#/wallet/${text}` : `#/token/${text}`;
  }
  return undefined;
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
        if (target === undefined) {
          input.setAttribute('aria-invalid', 'true');
          error.textContent =
            'Enter a block number, an ophash (64 hex digits) or a wallet or token address.';
          input.focus();
          return;
        }
        if (location.hash === target) void navigate();
        else location.hash = target;
      })
      .catch(showProblem);
  });
}
