/**
 * A read that touches chain state and the key store (getWalletInfo of the dev wallet) through the
 * real chain-node binary against the bare node:http JSON-RPC server, same load, same run: single
 * calls and batches of 100 calls. getBlockCount is rpc-throughput's.
 */
import { defineBenchmark } from '../benchmark.js';
import { createBareJsonRpcServerProcess } from '../ceilings/bare-jsonrpc-server.js';
import { devWalletAddress } from '../dev-chain.js';
import { runLoad } from '../load.js';
import { createNodeProcess } from '../node-process.js';
import { throughputFigure } from './rpc-throughput.js';

/** Issue 8: reads at 0.85 of the bare server, batches of 100 reads at 0.6. */
export const READ_TARGET = 0.85;
export const READ_BATCH_TARGET = 0.6;
const BATCH_SIZE = 100;

function call(id: number, wallet: string) {
  return { jsonrpc: '2.0', method: 'getWalletInfo', params: { wallet }, id };
}

/** Fails unless `url` answers every call of `body` with a wallet info object of `wallet`. */
async function expectWalletInfo(url: string, body: string, wallet: string, count: number) {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body,
  });
  const reply = (await response.json()) as unknown;
  const replies = (Array.isArray(reply) ? reply : [reply]) as Array<{
    result?: { wallet?: unknown; balance?: unknown };
  }>;
  const ok =
    response.ok &&
    replies.length === count &&
    replies.every(
      (entry) => entry.result?.wallet === wallet && typeof entry.result.balance === 'string',
    );
  if (!ok) {
    throw new Error(
      `${url} does not answer getWalletInfo with the wallet's info: ${JSON.stringify(reply).slice(0, 300)}`,
    );
  }
}

export default defineBenchmark({
  name: 'rpc-reads',
  description:
    'getWalletInfo calls/s (single and batches of 100) through chain-node vs the bare server',
  async run(ctx) {
    const wallet = devWalletAddress();
    const single = JSON.stringify(call(1, wallet));
    const batch = JSON.stringify(Array.from({ length: BATCH_SIZE }, (_, i) => call(i + 1, wallet)));
    const bare = createBareJsonRpcServerProcess();
    const node = createNodeProcess({ args: ['--log-level', 'warn'] });
    try {
      await bare.start();
      await node.start();
      await expectWalletInfo(node.rpcUrl, single, wallet, 1);
      await expectWalletInfo(node.rpcUrl, batch, wallet, BATCH_SIZE);
      const settings = {
        connections: ctx.connections,
        durationSec: ctx.durationSec,
        warmupSec: ctx.warmupSec,
      };
      const measure = async (label: string, body: string) => {
        ctx.log(`  ${label}: bare server, ${ctx.connections} connections, ${ctx.durationSec} s`);
        const ceiling = await runLoad({ ...settings, body, url: bare.url });
        ctx.log(`  ${label}: chain-node, ${ctx.connections} connections, ${ctx.durationSec} s`);
        const measured = await runLoad({ ...settings, body, url: node.rpcUrl });
        return { measured, ceiling };
      };
      const one = await measure('single getWalletInfo', single);
      const many = await measure(`batch of ${BATCH_SIZE} getWalletInfo`, batch);
      return [
        throughputFigure('rpc getWalletInfo', 1, one.measured, one.ceiling, READ_TARGET),
        throughputFigure(
          `rpc batch of ${BATCH_SIZE} getWalletInfo`,
          BATCH_SIZE,
          many.measured,
          many.ceiling,
          READ_BATCH_TARGET,
        ),
      ];
    } finally {
      await node.close();
      await bare.close();
    }
  },
});
