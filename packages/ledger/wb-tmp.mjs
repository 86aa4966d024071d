import { ClassicLevel } from 'classic-level';
import { randomBytes } from 'node:crypto';
import { rmSync } from 'node:fs';
const N = Number(process.argv[3] ?? 1_000_000), mode = process.argv[2];
const wbs = Number(process.argv[4] ?? 4) * 1024 * 1024;
const dir = '/tmp/wb/db-' + mode; rmSync(dir, { recursive: true, force: true });
const db = new ClassicLevel(dir, { keyEncoding: 'view', valueEncoding: 'view', writeBufferSize: wbs });
await db.open();
const vals = []; for (let i = 0; i < 4096; i++) vals.push(randomBytes(60));
const addrs = randomBytes(20 * N);
let order = null;
const t0 = performance.now();
if (mode === 'sorted') {
  // sort address indices by address bytes
  order = new Uint32Array(N); for (let i = 0; i < N; i++) order[i] = i;
  const keys = []; for (let i = 0; i < N; i++) keys.push(addrs.toString('latin1', i * 20, i * 20 + 20));
  order.sort((x, y) => (keys[x] < keys[y] ? -1 : keys[x] > keys[y] ? 1 : 0));
}
const tSort = performance.now();
let batch = db.batch(), count = 0, writing;
const flush = async () => { if (count >= 10000) { await writing; writing = batch.write(); batch = db.batch(); count = 0; } };
if (mode === 'sorted') {
  for (let i = 0; i < N; i++) { const k = Buffer.allocUnsafe(5); k[0] = 0x61; k.writeUInt32BE(i, 1); batch.put(k, vals[i & 4095]); count++; await flush(); }
  for (let j = 0; j < N; j++) { const i = order[j]; const a = Buffer.allocUnsafe(21); a[0] = 0x62; addrs.copy(a, 1, i * 20, i * 20 + 20); const k = Buffer.allocUnsafe(4); k.writeUInt32BE(i); batch.put(a, k); count++; await flush(); }
} else {
  for (let i = 0; i < N; i++) {
    const k = Buffer.allocUnsafe(5); k[0] = 0x61; k.writeUInt32BE(i, 1);
    const a = Buffer.allocUnsafe(21); a[0] = 0x62; addrs.copy(a, 1, i * 20, i * 20 + 20);
    batch.put(k, vals[i & 4095]); batch.put(a, k.subarray(1)); count += 2; await flush();
  }
}
await writing; await batch.write();
const t1 = performance.now();
const cpu = process.cpuUsage();
console.log(mode, N, 'wbs', wbs >> 20, 'ms', (t1 - t0).toFixed(0), 'sort ms', (tSort - t0).toFixed(0), 'cpu s', ((cpu.user + cpu.system) / 1e6).toFixed(1));
await db.close();
