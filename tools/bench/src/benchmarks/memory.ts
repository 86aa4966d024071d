/**
 * Memory (issue 8): the node's resident set size, sampled throughout, while 1,000,000 sendTo
 * operations to 100,000 distinct receivers (100,000 new accounts in state) go through it into
 * blocks, every acknowledged one mined. Opt-in (`--only memory`): it takes several minutes.
 */
import { compareWithCeiling, defineBenchmark, type Figure } from '../benchmark.js';
import { createSenders, randomAddresses } from '../dev-chain.js';
import { createNodeProcess } from '../node-process.js';
import { type RssSampler, type RssSummary, sampleRss } from '../rss-sampler.js';
import { BLOCK_TIME_MS, SENDTO_CONNECTIONS, sendToUntilMined } from './sendto-throughput.js';

export const RSS_BOUND_MB = 400;
export const OPERATIONS = 1_000_000;
export const ACCOUNTS = 100_000;
const SENDERS = 16;
const SAMPLE_MS = 250;
const MB = 1024 * 1024;

export default defineBenchmark({
  name: 'memory',
  description: `node RSS while ${OPERATIONS.toLocaleString('en-US')} sendTo operations to ${ACCOUNTS.toLocaleString('en-US')} new accounts are mined`,
  optIn: true,
  async run(ctx): Promise<Figure[]> {
    const node = createNodeProcess({
      args: ['--block-time', String(BLOCK_TIME_MS), '--log-level', 'warn'],
    });
    try {
      await node.start();
      const pid = node.pid;
      if (pid === undefined) throw new Error('the node has no process id');
      const sampler = sampleRss(pid, SAMPLE_MS);
      let rss: RssSummary | undefined;
      let scan: RssSampler | undefined;
      const senders = await createSenders(node.client, SENDERS, '10000000');
      // One more receiver than ACCOUNTS would be a 16-way coprime cycle; 100,003 is prime.
      const receivers = randomAddresses(ACCOUNTS + 3);
      ctx.log(
        `  ${OPERATIONS} sendTo from ${SENDERS} senders to ${receivers.length} receivers, ${SENDTO_CONNECTIONS} connections`,
      );
      const started = Date.now();
      const run = await sendToUntilMined({
        client: node.client,
        url: node.rpcUrl,
        senders,
        receivers,
        load: {
          connections: SENDTO_CONNECTIONS,
          durationSec: 3_600,
          maxSucceeded: OPERATIONS,
          progressEverySec: 15,
        },
        onProgress: ({ succeeded }) =>
          ctx.log(
            `    ${succeeded} acknowledged after ${Math.round((Date.now() - started) / 1000)} s, RSS ${Math.round(sampler.lastBytes / MB)} MB (max ${Math.round(sampler.maxBytes / MB)} MB)`,
          ),
        // The figure covers the operations going through; the check afterwards reads every
        // block's info, which is sampled on its own (logged).
        onDrained: async () => {
          rss = await sampler.stop();
          scan = sampleRss(pid, SAMPLE_MS);
        },
        drainTimeoutMs: 120_000,
      });
      const accounts = (await node.client.wallet.getWalletInfo({ wallet: receivers.at(-1)! }))
        .account;
      const scanned = await scan?.stop();
      if (rss === undefined) throw new Error('the run ended before the operations were mined');
      ctx.log(
        `  ${run.mined} operations mined in ${run.blocks} blocks in ${Math.round((run.minedAtMs - run.load.startedAtMs) / 1000)} s; ` +
          `${rss.samples} RSS samples, max ${Math.round(rss.maxBytes / MB)} MB, last ${Math.round(rss.lastBytes / MB)} MB; ` +
          `last receiver is account ${accounts}; reading every block's info afterwards: max ${Math.round((scanned?.maxBytes ?? 0) / MB)} MB`,
      );
      return [
        compareWithCeiling({
          name: `node RSS, ${OPERATIONS.toLocaleString('en-US')} ops, ${ACCOUNTS.toLocaleString('en-US')} accounts`,
          value: rss.maxBytes / MB,
          unit: 'MB',
          ceiling: RSS_BOUND_MB,
          ceilingName: 'bound of issue 8',
          target: 1,
          higherIsBetter: false,
        }),
      ];
    } finally {
      await node.close();
    }
  },
});
