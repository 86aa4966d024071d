/**
 * Memory (issue 8): the node's resident set size, sampled throughout two phases on one node with
 * its default heap budget.
 *
 * 1. 1,000,000 sendTo operations from 16 senders to 100,001 receivers (100,000 new accounts in
 *    state) go through it into blocks, every acknowledged one mined.
 * 2. With that state, a token the dev wallet creates goes to each of those receivers once by
 *    sendToken: 100,000 token holders beside the 100,000 accounts.
 *
 * Each phase's figure is its largest RSS sample from its first call until its operations are all
 * mined, against the 300 MB bound (issue 20 item 5; issue 8 asked 400). The checks afterwards (every
 * acknowledged operation mined, read block by block) are sampled apart and logged. Opt-in
 * (`--only memory`): it takes several minutes.
 */
import {
  type BenchContext,
  compareWithCeiling,
  defineBenchmark,
  type Figure,
} from '../benchmark.js';
import {
  createDevTokenFor,
  createSenders,
  randomAddresses,
  type SenderWallet,
} from '../dev-chain.js';
import { createNodeProcess, type NodeProcess } from '../node-process.js';
import { type RssSampler, readResidentParts, sampleRss } from '../rss-sampler.js';
import {
  BLOCK_TIME_MS,
  SENDTO_CONNECTIONS,
  type SendToRun,
  sendToUntilDrained,
} from './sendto-throughput.js';

export const RSS_BOUND_MB = 300;

/** How much goes through the node: the issue's figures by default, less in the unit test. */
export interface MemoryScale {
  operations: number;
  accounts: number;
  tokenHolders: number;
}

export const ISSUE_SCALE: MemoryScale = {
  operations: 1_000_000,
  accounts: 100_000,
  tokenHolders: 100_000,
};

const SENDERS = 16;
const SAMPLE_MS = 250;
const PROGRESS_EVERY_SEC = 15;
const MB = 1024 * 1024;
const TOKEN = { name: 'Memory Token', symbol: 'MEM', totalAmount: '1000000000', decimal: 4 };
/** Each sender's share: far more than it sends (tokenHolders / SENDERS transfers of 0.001). */
const TOKENS_PER_SENDER = '1000000';

export interface RssPeak {
  maxBytes: number;
  samples: number;
  /** Resident memory by kind when the sampling stopped (Linux), for the log. */
  endParts: Awaited<ReturnType<typeof readResidentParts>>;
}

const mb = (bytes: number) => Math.round(bytes / MB);

/** Runs `work` while sampling the node's RSS; the peak covers exactly `work`. */
async function sampled<T>(
  pid: number,
  work: (sampler: RssSampler) => Promise<T>,
): Promise<{ result: T; peak: RssPeak }> {
  const sampler = sampleRss(pid, SAMPLE_MS);
  try {
    const result = await work(sampler);
    const { maxBytes, samples } = await sampler.stop();
    return { result, peak: { maxBytes, samples, endParts: await readResidentParts(pid) } };
  } catch (error) {
    await sampler.stop();
    throw error;
  }
}

function progressLogger(ctx: BenchContext, label: string, sampler: RssSampler) {
  const started = Date.now();
  return ({ succeeded }: { succeeded: number }) =>
    ctx.log(
      `    ${label}: ${succeeded} acknowledged after ${Math.round((Date.now() - started) / 1000)} s, RSS ${mb(sampler.lastBytes)} MB (max ${mb(sampler.maxBytes)} MB)`,
    );
}

function describePeak(peak: RssPeak): string {
  const parts =
    peak.endParts === undefined
      ? ''
      : ` (at its end ${mb(peak.endParts.anonBytes)} MB anonymous, ${mb(peak.endParts.fileBytes)} MB file-backed)`;
  return `${peak.samples} RSS samples, max ${mb(peak.maxBytes)} MB${parts}`;
}

function describeRun(run: SendToRun): string {
  return (
    `${run.mined} operations mined in ${run.blocks} blocks in ${Math.round((run.minedAtMs - run.load.startedAtMs) / 1000)} s ` +
    `(refused ${run.load.refused}, failed ${run.load.failed})`
  );
}

/** An odd count (so every sender meets every receiver in the cycle) of at least `accounts`. */
export function receiverCount(accounts: number): number {
  return accounts % 2 === 0 ? accounts + 1 : accounts;
}

/** Phase 1: `operations` sendTo to `receivers` (each a new account), until the pool is empty. */
function operationsPhase(
  ctx: BenchContext,
  node: NodeProcess,
  senders: readonly SenderWallet[],
  receivers: readonly string[],
  operations: number,
) {
  ctx.log(
    `  phase 1: ${operations} sendTo from ${senders.length} senders to ${receivers.length} new accounts, ${SENDTO_CONNECTIONS} connections`,
  );
  return sampled(node.pid!, (sampler) =>
    sendToUntilDrained({
      client: node.client,
      url: node.rpcUrl,
      senders,
      receivers,
      load: {
        connections: SENDTO_CONNECTIONS,
        durationSec: 3_600,
        maxSucceeded: operations,
        progressEverySec: PROGRESS_EVERY_SEC,
      },
      onProgress: progressLogger(ctx, 'sendTo', sampler),
      drainTimeoutMs: 120_000,
    }),
  );
}

/**
 * Phase 2: a token created by the dev wallet and handed to the senders goes to each of
 * `receivers` once, until the pool is empty.
 */
function tokenHoldersPhase(
  ctx: BenchContext,
  node: NodeProcess,
  senders: readonly SenderWallet[],
  receivers: readonly string[],
) {
  ctx.log(`  phase 2: ${TOKEN.symbol} from the dev wallet to the senders, then to each receiver`);
  return sampled(node.pid!, async (sampler) => {
    const token = await createDevTokenFor(
      node.client,
      TOKEN,
      senders.map((sender) => sender.address),
      TOKENS_PER_SENDER,
    );
    const drained = await sendToUntilDrained({
      client: node.client,
      url: node.rpcUrl,
      senders,
      receivers,
      call: {
        method: 'sendToken',
        params: { amount: '0.001', token, passphrase: senders[0]!.passphrase },
      },
      // Call i goes to receiver i: as many calls as receivers reach each one once.
      load: {
        connections: SENDTO_CONNECTIONS,
        durationSec: 3_600,
        maxSucceeded: receivers.length,
        progressEverySec: PROGRESS_EVERY_SEC,
      },
      onProgress: progressLogger(ctx, 'sendToken', sampler),
      drainTimeoutMs: 120_000,
    });
    return { drained, token };
  });
}

/**
 * Both phases on one fresh node, then the checks: every acknowledged operation of each phase mined,
 * the last receiver an account, the token held by every receiver. The figures are each phase's peak
 * RSS (its calls until the pool drained) against the bound; the checks read every block, and the
 * RSS they cost is logged apart (LevelDB maps the table files it reads: file-backed pages).
 */
export async function measureMemory(ctx: BenchContext, scale: MemoryScale): Promise<Figure[]> {
  // Made before the node starts: 100,001 checksummed addresses take seconds on a loaded machine,
  // and a client connection left idle that long meets the node's keep-alive timeout (5 s) closing
  // it just as the load reuses it ("other side closed").
  const receivers = randomAddresses(receiverCount(Math.max(scale.accounts, scale.tokenHolders)));
  const node = createNodeProcess({
    args: ['--block-time', String(BLOCK_TIME_MS), '--log-level', 'warn'],
  });
  try {
    await node.start();
    const pid = node.pid;
    if (pid === undefined) throw new Error('the node has no process id');
    const whole = sampleRss(pid, SAMPLE_MS);
    const senders = await createSenders(node.client, SENDERS, '10000000');

    const ops = await operationsPhase(ctx, node, senders, receivers, scale.operations);
    ctx.log(`  phase 1 drained: ${describePeak(ops.peak)}`);
    const holders = await tokenHoldersPhase(ctx, node, senders, receivers);
    ctx.log(`  phase 2 drained: ${describePeak(holders.peak)}`);

    const checks = await sampled(pid, async () => {
      const opsRun = await ops.result.verify();
      const holdersRun = await holders.result.drained.verify();
      const last = await node.client.wallet.getWalletInfo({ wallet: receivers.at(-1)! });
      const { totalHolder } = await node.client.token.infoToken({ wallet: holders.result.token });
      return { opsRun, holdersRun, lastAccount: last.account, totalHolder };
    });
    const { opsRun, holdersRun, lastAccount, totalHolder } = checks.result;
    ctx.log(`  phase 1: ${describeRun(opsRun)}; the last receiver is account ${lastAccount}`);
    ctx.log(`  phase 2: ${describeRun(holdersRun)}; ${totalHolder} holders`);
    ctx.log(`  checks (reading every block): ${describePeak(checks.peak)}`);
    const overall = await whole.stop();
    ctx.log(`  whole run, set-up and checks included: max RSS ${mb(overall.maxBytes)} MB`);
    if (lastAccount < 0) throw new Error('the last receiver has no account: too few operations');
    if (
      holdersRun.load.refused > 0 ||
      holdersRun.load.failed > 0 ||
      totalHolder < scale.tokenHolders
    ) {
      throw new Error(
        `the token has ${totalHolder} holders, not the ${scale.tokenHolders} the figure is about ` +
          `(${holdersRun.load.refused} sendToken refused, ${holdersRun.load.failed} failed)`,
      );
    }

    const figure = (name: string, peak: RssPeak) =>
      compareWithCeiling({
        name,
        value: peak.maxBytes / MB,
        unit: 'MB',
        ceiling: RSS_BOUND_MB,
        ceilingName: 'bound of issue 20',
        target: 1,
        higherIsBetter: false,
      });
    const count = (n: number) => n.toLocaleString('en-US');
    return [
      figure(
        `node RSS, ${count(scale.operations)} ops to ${count(scale.accounts)} new accounts`,
        ops.peak,
      ),
      figure(
        `node RSS, ${count(scale.tokenHolders)} token holders beside the accounts`,
        holders.peak,
      ),
    ];
  } finally {
    await node.close();
  }
}

export default defineBenchmark({
  name: 'memory',
  description: `node RSS while ${ISSUE_SCALE.operations.toLocaleString('en-US')} sendTo operations to ${ISSUE_SCALE.accounts.toLocaleString('en-US')} new accounts are mined, then with ${ISSUE_SCALE.tokenHolders.toLocaleString('en-US')} token holders`,
  optIn: true,
  run: (ctx) => measureMemory(ctx, ISSUE_SCALE),
});
