/**
 * The explorer page's script (bundled by tsup into dist/explorer/app.js, served by `../serve.ts`):
 * wires search, routing and live updates together once the document is parsed.
 */
import { rpc } from './chain-data';
import { refreshTimes } from './chain-format';
import { watchReorganizations } from './reorg-banner';
import { startRouting } from './router';
import { watchSearch } from './search';

watchSearch();

document.getElementById('skip-link')!.addEventListener('click', (event) => {
  event.preventDefault();
  document.getElementById('main')!.focus();
});

rpc('getNodeVersion')
  .then(({ version }) => {
    document.getElementById('version')!.textContent = version;
  })
  .catch(() => undefined);

startRouting();
watchReorganizations();

// Relative times ("5 s ago") stay true while the page is open.
setInterval(() => {
  if (!document.hidden) refreshTimes();
}, 1000);
