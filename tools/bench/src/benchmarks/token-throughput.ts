/**
 * sendToken end to end beside sendTo (issue 4): on one real chain-node binary (block time 200 ms),
 * the same funded and activated sender wallets first send native coins, then tokens of a token the
 * dev wallet created and handed them, each load for the same duration over the same connections,
 * and after each every acknowledged operation must be mined. The figure is token operations per
 * second into blocks; its ceiling is the native transfers' rate of the same run: a token transfer
 * does the native one's work (signature, fee, n_operation) plus the token book.
 */
import { compareWithCeiling, defineBenchmark, type Figure } from '../benchmark.js';
import { createDevTokenFor, createSenders, randomAddresses } from '../dev-chain.js';
import { createNodeProcess } from '../node-process.js';
import {
  BLOCK_TIME_MS,
  DEFAULT_SENDTO_DURATION_SEC,
  endToEndRate,
  SENDTO_CONNECTIONS,
  type SendToRun,
  sendToUntilMined,
} from './sendto-throughput.js';

/** Token transfers must reach this share of native transfers' rate (issue 4). */
export const TOKEN_TARGET_RATIO = 0.8;
const SENDERS = 16;
/** Coprime with SENDERS, as in sendto-throughput: every sender-receiver pair occurs. */
const RECEIVERS = 10_007;
const TOKEN = { name: 'Bench Token', symbol: 'BNCH', totalAmount: '1000000000', decimal: 4 };
/** Each sender's share of the supply: far more than a run sends at 0.001 a call. */
const TOKENS_PER_SENDER = '10000000';
const TOKEN_AMOUNT = '0.001';

export default defineBenchmark({
  name: 'token-throughput',
  description:
    'sendToken operations/s into blocks (every acknowledged one mined) vs sendTo in the same run',
  async run(ctx): Promise<Figure[]> {
    const durationSec = ctx.durationGiven === true ? ctx.durationSec : DEFAULT_SENDTO_DURATION_SEC;
    const node = createNodeProcess({
      args: ['--block-time', String(BLOCK_TIME_MS), '--log-level', 'warn'],
    });
    try {
      await node.start();
      ctx.log(`  funding and activating ${SENDERS} sender wallets`);
      const senders = await createSenders(node.client, SENDERS, '1000000');
      ctx.log(`  creating ${TOKEN.symbol} and handing each sender ${TOKENS_PER_SENDER}`);
      const token = await createDevTokenFor(
        node.client,
        TOKEN,
        senders.map((sender) => sender.address),
        TOKENS_PER_SENDER,
      );

      const measure = async (
        label: string,
        call?: Parameters<typeof sendToUntilMined>[0]['call'],
      ) => {
        ctx.log(
          `  chain-node: ${label}, ${SENDTO_CONNECTIONS} connections, ${durationSec} s, block time ${BLOCK_TIME_MS} ms`,
        );
        const run = await sendToUntilMined({
          client: node.client,
          url: node.rpcUrl,
          senders,
          // Fresh receivers for each load: both create accounts on chain as they go.
          receivers: randomAddresses(RECEIVERS),
          ...(call === undefined ? {} : { call }),
          load: { connections: SENDTO_CONNECTIONS, durationSec },
          drainTimeoutMs: Math.max(30_000, durationSec * 1000),
        });
        logRun(ctx.log, run);
        return run;
      };
      const native = await measure('sendTo');
      const tokens = await measure('sendToken', {
        method: 'sendToken',
        params: { amount: TOKEN_AMOUNT, token, passphrase: senders[0]!.passphrase },
      });
      return [
        compareWithCeiling({
          name: `sendToken into blocks (${durationSec} s)`,
          value: endToEndRate(tokens),
          unit: 'ops/s',
          ceiling: endToEndRate(native),
          ceilingName: 'sendTo into blocks, same node and run',
          target: TOKEN_TARGET_RATIO,
          latency: {
            p50Ms: tokens.load.p50Ms,
            p99Ms: tokens.load.p99Ms,
            ceilingP50Ms: native.load.p50Ms,
            ceilingP99Ms: native.load.p99Ms,
          },
        }),
      ];
    } finally {
      await node.close();
    }
  },
});

function logRun(log: (message: string) => void, run: SendToRun): void {
  const { load } = run;
  log(
    `  acknowledged ${load.succeeded} (${Math.round(load.succeededPerSec)}/s), refused ${load.refused}, failed ${load.failed}; ` +
      `all mined in ${run.blocks} blocks, ${((run.minedAtMs - load.endedAtMs) / 1000).toFixed(2)} s after the last reply`,
  );
  for (const sample of load.errorSamples) log(`    ${sample}`);
}
