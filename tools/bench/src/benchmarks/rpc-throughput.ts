/**
 * getBlockCount through the real chain-node binary against the bare node:http JSON-RPC server, with
 * the same load in the same run: single calls, and batches of 100 reads.
 */
import {
  type BenchContext,
  compareWithCeiling,
  defineBenchmark,
  type Figure,
} from '../benchmark.js';
import { createBareJsonRpcServerProcess } from '../ceilings/bare-jsonrpc-server.js';
import { type LoadResult, runLoad } from '../load.js';
import { createNodeProcess } from '../node-process.js';

/** Target ratios (node / bare server): issue 20 item 3 (issue 8 had 0.85 and 0.6). */
export const SINGLE_CALL_TARGET = 0.95;
export const BATCH_TARGET = 0.8;
const BATCH_SIZE = 100;

const SINGLE_BODY = JSON.stringify({ jsonrpc: '2.0', method: 'getBlockCount', params: {}, id: 1 });
const BATCH_BODY = JSON.stringify(
  Array.from({ length: BATCH_SIZE }, (_, index) => ({
    jsonrpc: '2.0',
    method: 'getBlockCount',
    params: {},
    id: index + 1,
  })),
);

/** Checks that `url` answers `body` with JSON-RPC results only, before load is measured. */
async function expectResults(url: string, body: string, count: number): Promise<void> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body,
  });
  const reply = (await response.json()) as unknown;
  const replies = Array.isArray(reply) ? reply : [reply];
  const ok =
    response.ok &&
    replies.length === count &&
    replies.every(
      (entry: { result?: unknown; error?: unknown }) =>
        Number.isInteger(entry.result) && entry.error === undefined,
    );
  if (!ok) {
    throw new Error(
      `${url} does not answer ${count} getBlockCount call(s) with results: ${JSON.stringify(reply).slice(0, 300)}`,
    );
  }
}

/** A calls/s figure of chain-node against the bare server under the same load. */
export function throughputFigure(
  name: string,
  callsPerRequest: number,
  node: LoadResult,
  bare: LoadResult,
  target: number,
): Figure {
  return compareWithCeiling({
    name,
    value: node.requestsPerSec * callsPerRequest,
    unit: 'calls/s',
    ceiling: bare.requestsPerSec * callsPerRequest,
    ceilingName: 'bare node:http JSON-RPC server',
    target,
    latency: {
      p50Ms: node.p50Ms,
      p99Ms: node.p99Ms,
      ceilingP50Ms: bare.p50Ms,
      ceilingP99Ms: bare.p99Ms,
    },
  });
}

async function measurePair(
  ctx: BenchContext,
  label: string,
  body: string,
  urls: { node: string; bare: string },
): Promise<{ node: LoadResult; bare: LoadResult }> {
  const settings = {
    body,
    connections: ctx.connections,
    durationSec: ctx.durationSec,
    warmupSec: ctx.warmupSec,
  };
  ctx.log(`  ${label}: bare server, ${ctx.connections} connections, ${ctx.durationSec} s`);
  const bare = await runLoad({ ...settings, url: urls.bare });
  ctx.log(`  ${label}: chain-node, ${ctx.connections} connections, ${ctx.durationSec} s`);
  const node = await runLoad({ ...settings, url: urls.node });
  return { node, bare };
}

export default defineBenchmark({
  name: 'rpc-throughput',
  description: 'getBlockCount calls/s through chain-node vs a bare node:http JSON-RPC server',
  async run(ctx) {
    const bare = createBareJsonRpcServerProcess();
    const node = createNodeProcess();
    try {
      await bare.start();
      await node.start();
      const urls = { node: node.rpcUrl, bare: bare.url };
      for (const url of Object.values(urls)) {
        await expectResults(url, SINGLE_BODY, 1);
        await expectResults(url, BATCH_BODY, BATCH_SIZE);
      }
      const single = await measurePair(ctx, 'single getBlockCount', SINGLE_BODY, urls);
      const batch = await measurePair(ctx, `batch of ${BATCH_SIZE}`, BATCH_BODY, urls);
      return [
        throughputFigure('rpc getBlockCount', 1, single.node, single.bare, SINGLE_CALL_TARGET),
        throughputFigure(
          `rpc batch of ${BATCH_SIZE} getBlockCount`,
          BATCH_SIZE,
          batch.node,
          batch.bare,
          BATCH_TARGET,
        ),
      ];
    } finally {
      await node.close();
      await bare.close();
    }
  },
});
