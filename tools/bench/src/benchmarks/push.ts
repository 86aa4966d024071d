/**
 * Push over WebSocket (issue 16), against the real chain-node binary:
 * - notification latency: from a block added (the `time` of the node's own "block" log record,
 *   written in the same turn as the notifications) to its newBlocks notification read by each of
 *   100 subscribers; p99 must stay under 50 ms on loopback. Its ceiling: the same 100 sockets
 *   answered by a bare `ws` server broadcasting in this process.
 * - memory: the node's extra resident memory for 1,000 idle sockets, each with a newBlocks
 *   subscription (< 50 MB);
 * - sendTo throughput with 100 newBlocks subscribers, as a ratio to the same load without any
 *   (>= 0.9), measured on the same node one after the other.
 */
import type { AddressInfo } from 'node:net';
import { WebSocket, WebSocketServer } from 'ws';
import { compareWithCeiling, defineBenchmark, type Figure } from '../benchmark.js';
import {
  createSenders,
  DEV_PASSPHRASE,
  devWalletAddress,
  randomAddresses,
  sleep,
} from '../dev-chain.js';
import { createNodeProcess } from '../node-process.js';
import { readRss } from '../rss-sampler.js';
import { endToEndRate, sendToUntilMined } from './sendto-throughput.js';

export const LATENCY_P99_TARGET_MS = 50;
export const IDLE_SOCKETS_TARGET_MB = 50;
export const THROUGHPUT_RATIO_TARGET = 0.9;
const SUBSCRIBERS = 100;
const IDLE_SOCKETS = 1000;
const LATENCY_BLOCKS = 35;
const WARMUP_BLOCKS = 5;
const THROUGHPUT_CONNECTIONS = 64;

interface Subscriber {
  ws: WebSocket;
  /** Receive time (Date.now()) of each block notification, by height. */
  received: Map<number, number>;
}

function open(url: string): Promise<WebSocket> {
  const ws = new WebSocket(url);
  return new Promise((resolve, reject) => {
    ws.once('open', () => resolve(ws));
    ws.once('error', reject);
  });
}

/** Opens `count` sockets (a few at a time), each subscribed to newBlocks. */
async function subscribers(url: string, count: number): Promise<Subscriber[]> {
  const out: Subscriber[] = [];
  for (let i = 0; i < count; i += 50) {
    const batch = await Promise.all(
      Array.from({ length: Math.min(50, count - i) }, async () => {
        const ws = await open(url);
        const received = new Map<number, number>();
        let subscribed: () => void = () => undefined;
        const ready = new Promise<void>((resolve) => {
          subscribed = resolve;
        });
        ws.on('message', (data) => {
          const now = Date.now();
          const message = JSON.parse(data.toString());
          if (message.method === 'subscription') received.set(message.params.result.block, now);
          else subscribed();
        });
        ws.send('{"jsonrpc":"2.0","method":"subscribe","params":{"event":"newBlocks"},"id":1}');
        await ready;
        return { ws, received };
      }),
    );
    out.push(...batch);
  }
  return out;
}

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return (
    sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? Number.NaN
  );
}

/** The time of the node's "block" log record of each height in its output. */
function blockLogTimes(output: string): Map<number, number> {
  const times = new Map<number, number>();
  for (const line of output.split('\n')) {
    if (!line.includes('"msg":"block"')) continue;
    try {
      const record = JSON.parse(line) as { block: number; time: number };
      times.set(record.block, record.time);
    } catch {
      // a partial line at the output's cut
    }
  }
  return times;
}

/** The same broadcast done by a bare `ws` server in this process: the ceiling of the latency. */
async function bareBroadcastP99(blocks: number): Promise<number> {
  const server = new WebSocketServer({ port: 0, host: '127.0.0.1' });
  await new Promise((resolve) => server.once('listening', resolve));
  const url = `ws://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  server.on('connection', (ws) =>
    ws.on('message', () => ws.send('{"jsonrpc":"2.0","id":"1","result":"0x1"}')),
  );
  const subs = await subscribers(url, SUBSCRIBERS);
  const sentAt = new Map<number, number>();
  for (let block = 1; block <= blocks + WARMUP_BLOCKS; block++) {
    sentAt.set(block, Date.now());
    const text = JSON.stringify({
      jsonrpc: '2.0',
      method: 'subscription',
      params: { subscription: '0x1', result: { block } },
    });
    for (const client of server.clients) client.send(text);
    await sleep(20);
  }
  await sleep(100);
  const latencies = subs.flatMap((s) =>
    [...s.received].map(([block, at]) => at - sentAt.get(block)!),
  );
  for (const s of subs) s.ws.terminate();
  server.close();
  return percentile(latencies, 99);
}

export default defineBenchmark({
  name: 'push',
  description:
    'WebSocket push: notification latency to 100 subscribers, 1,000 idle sockets, sendTo with 100 subscribers',
  async run(ctx): Promise<Figure[]> {
    const node = createNodeProcess({
      args: [
        '--block-time',
        '100',
        '--log-level',
        'info',
        '--rpc-ws-max-connections',
        String(IDLE_SOCKETS + SUBSCRIBERS + 10),
        '--rpc-ws-max-connections-per-ip',
        String(IDLE_SOCKETS + SUBSCRIBERS + 10),
      ],
    });
    const sockets: WebSocket[] = [];
    try {
      await node.start();
      const wsUrl = node.rpcUrl.replace(/^http/, 'ws');
      const dev = devWalletAddress();
      const [sink] = randomAddresses(1);

      // ---- latency
      ctx.log(`  latency: ${SUBSCRIBERS} newBlocks subscribers, ${LATENCY_BLOCKS} blocks`);
      const subs = await subscribers(wsUrl, SUBSCRIBERS);
      sockets.push(...subs.map((s) => s.ws));
      const heights: number[] = [];
      for (let i = 0; i < LATENCY_BLOCKS; i++) {
        const op = await node.client.operations.sendTo({
          sender: dev,
          passphrase: DEV_PASSPHRASE,
          receiver: sink!,
          amount: '0.001',
        });
        for (;;) {
          const [found] = await node.client.operations.findOperation({ ophash: op.ophash });
          if (found !== undefined && found.block > 0) {
            heights.push(found.block);
            break;
          }
          await sleep(10);
        }
      }
      await sleep(200);
      const logged = blockLogTimes(node.output());
      // The first blocks warm the code paths up (JIT) on both sides: not counted.
      const measured = heights.slice(WARMUP_BLOCKS);
      const latencies = subs.flatMap((s) =>
        measured
          .filter((h) => logged.has(h) && s.received.has(h))
          .map((h) => s.received.get(h)! - logged.get(h)!),
      );
      // The node's output is kept to its last 64 KiB: early records may be gone, half must be there.
      if (latencies.length < SUBSCRIBERS * measured.length * 0.5) {
        throw new Error(
          `only ${latencies.length} notifications were timed of ${SUBSCRIBERS * measured.length}`,
        );
      }
      const p99 = percentile(latencies, 99);
      const ceilingP99 = await bareBroadcastP99(measured.length);
      ctx.log(
        `  p50 ${percentile(latencies, 50)} ms, p99 ${p99} ms (bare ws broadcast p99 ${ceilingP99} ms)`,
      );
      const latency = compareWithCeiling({
        name: `push latency p99, block -> ${SUBSCRIBERS} subscribers`,
        value: p99,
        unit: 'ms',
        ceiling: Math.max(1, ceilingP99),
        ceilingName: 'bare ws broadcast to the same sockets',
        target: LATENCY_P99_TARGET_MS,
        targetOf: 'max',
        higherIsBetter: false,
      });

      // ---- throughput with and without subscribers
      ctx.log('  sendTo throughput: funding senders');
      const senders = await createSenders(node.client, 8, '100000');
      const receivers = randomAddresses(1009);
      const durationSec = Math.min(ctx.durationSec, 10);
      const load = { connections: THROUGHPUT_CONNECTIONS, durationSec };
      const drainTimeoutMs = 60_000;
      for (const s of subs) s.ws.terminate();
      sockets.length = 0;
      await sleep(200);
      const without = endToEndRate(
        await sendToUntilMined({
          client: node.client,
          url: node.rpcUrl,
          senders,
          receivers,
          load,
          drainTimeoutMs,
        }),
      );
      const listening = await subscribers(wsUrl, SUBSCRIBERS);
      sockets.push(...listening.map((s) => s.ws));
      const withSubs = endToEndRate(
        await sendToUntilMined({
          client: node.client,
          url: node.rpcUrl,
          senders,
          receivers,
          load,
          drainTimeoutMs,
        }),
      );
      ctx.log(
        `  sendTo ${Math.round(without)} ops/s without subscribers, ${Math.round(withSubs)} with ${SUBSCRIBERS}`,
      );
      const throughput = compareWithCeiling({
        name: `sendTo with ${SUBSCRIBERS} newBlocks subscribers (${durationSec} s)`,
        value: withSubs,
        unit: 'ops/s',
        ceiling: without,
        ceilingName: 'the same load without subscribers',
        target: THROUGHPUT_RATIO_TARGET,
      });
      for (const ws of sockets) ws.terminate();
      sockets.length = 0;

      // ---- idle sockets
      await sleep(500);
      const before = (await readRss(node.pid!)) ?? Number.NaN;
      ctx.log(`  memory: ${IDLE_SOCKETS} idle subscribed sockets`);
      const idle = await subscribers(wsUrl, IDLE_SOCKETS);
      sockets.push(...idle.map((s) => s.ws));
      await sleep(1000);
      const after = (await readRss(node.pid!)) ?? Number.NaN;
      const extraMb = (after - before) / (1024 * 1024);
      ctx.log(`  RSS ${Math.round(before / 2 ** 20)} MB -> ${Math.round(after / 2 ** 20)} MB`);
      const memory = compareWithCeiling({
        name: `extra RSS of ${IDLE_SOCKETS} idle subscribed sockets`,
        value: extraMb,
        unit: 'MB',
        ceiling: IDLE_SOCKETS_TARGET_MB,
        ceilingName: 'the issue-16 budget',
        target: 1,
        higherIsBetter: false,
      });
      return [latency, throughput, memory];
    } finally {
      for (const ws of sockets) ws.terminate();
      await node.close();
    }
  },
});
