import { execFileSync } from 'node:child_process';
import { addressFromPublicKey } from '@chain/crypto';
import { createKeyStore } from './keystore';

const store = createKeyStore({
  dir: '/tmp/k100',
  addressOf: (k) => addressFromPublicKey('CH', k),
  scrypt: { N: 4096, r: 8, p: 1 },
});
let t = performance.now();
await store.open();
console.log('open', performance.now() - t, store.indexing());
await store.indexed();
t = performance.now();
let r = await store.refresh();
console.log('refresh 1 (loads names)', performance.now() - t, r.added, r.removed);
t = performance.now();
r = await store.refresh();
console.log('refresh 2', performance.now() - t, r.added, r.removed);
// remove the 1000 extra files then copy them again
execFileSync('sh', [
  '-c',
  'cd /tmp/chain-bench-keystore/100000/extra && for f in *; do rm -f /tmp/k100/$f; done',
]);
t = performance.now();
r = await store.refresh();
console.log('refresh after 1000 removed', performance.now() - t, r.added, r.removed);
execFileSync('sh', ['-c', 'cp -p /tmp/chain-bench-keystore/100000/extra/* /tmp/k100/']);
t = performance.now();
r = await store.refresh();
console.log(
  'refresh 1000 new',
  performance.now() - t,
  r.added,
  r.removed,
  process.memoryUsage().rss / 1e6,
);
await store.close();
