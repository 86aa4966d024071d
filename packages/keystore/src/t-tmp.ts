import { rmSync } from 'node:fs';
import { addressFromPublicKey } from '@chain/crypto';
import { createKeyStore } from './keystore';

rmSync('/tmp/kbuild/.index', { recursive: true, force: true });
const store = createKeyStore({
  dir: '/tmp/kbuild',
  addressOf: (k) => addressFromPublicKey('CH', k),
  scrypt: { N: 4096, r: 8, p: 1 },
});
await store.open();
let t = performance.now();
await store.indexed();
console.log('indexed', performance.now() - t, store.count());
t = performance.now();
const r = await store.refresh();
console.log('refresh', performance.now() - t, r.added);
await store.close();
