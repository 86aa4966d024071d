/**
 * The chain the history index's reads are measured on (issue 41: "on a chain of 10M operations"),
 * built in minutes instead of the hours real production takes here (about 1,300 operations/s):
 *
 * 1. Made as a node makes it (in process: signAndSubmit, produceBlock, the node's registry): the
 *    dev wallet funds SIGNERS signers and the token wallet; they activate; the token wallet creates
 *    TOKENS tokens (so it holds that many); the dev wallet sends one transfer to the quiet wallet.
 * 2. Then, appended without executing them (appendUnexecutedBlocks: linked, signed blocks with
 *    their ops index and history index entries written as a commit writes them), blocks of
 *    PER_BLOCK transfers between the signers until the chain holds `operations`; one transfer in
 *    BUSY_EVERY goes to the busy wallet, so that it ends with BUSY_OPERATIONS operations spread
 *    over the whole chain as a real deposit wallet's would be (a page of 100 spans 10 blocks).
 *    Those transfers carry no valid signature and moved no balance: the directory is a fixture
 *    for reads, never a chain to sync from.
 *
 * Cached under `root` keyed by the operation count and HISTORY_FIXTURE_FORMAT; a run reads a copy
 * (copyHistoryFixture), since opening a chain writes to its directory.
 */
import { cp, rm } from 'node:fs/promises';
import { join } from 'node:path';
import {
  addressFromPublicKey,
  bytesToHex,
  decodeAddress,
  getPublicKey,
  randomPrivateKey,
} from '@chain/crypto';
import {
  ACTIVATION_OPTYPE,
  appendUnexecutedBlocks,
  type Chain,
  createChain,
  createDevGenesis,
  DEV_PRIVATE_KEY,
  encodeUnsignedOperation,
  OPERATION_SIGNATURE_LENGTH,
  TRANSFER_OPTYPE,
  transferCodec,
} from '@chain/ledger';
import { CREATE_TOKEN_OPTYPE } from '@chain/tokens';
import { createNodeRegistry } from 'chain-node';
import { cachedBuild, DEFAULT_FIXTURE_ROOT, directoryBytes } from './state-fixture.js';

/** Bumped whenever what a cached fixture holds changes: older ones are then not used. */
// 2: the operation index in signer order (data-directory layout 4).
export const HISTORY_FIXTURE_FORMAT = 2;
const READY_FILE = 'history-fixture-ready.json';
/** Operations per appended block (the block-import benchmark's size). */
export const PER_BLOCK = 1_000;
const SIGNERS = 200;
/** Issue 41: a wallet with 100,000 operations, on a chain of 10M. */
export const BUSY_OPERATIONS = 100_000;
/** Issue 41: a wallet with 1,000 tokens. */
export const TOKENS = 1_000;
const TOKENS_PER_BLOCK = 100;

export interface HistoryFixture {
  /** The cached data directory (open a copy: copyHistoryFixture). */
  dir: string;
  /** Operations in blocks 1..height. */
  operations: number;
  height: number;
  /** The wallet with the most operations, spread over the chain (BUSY_OPERATIONS, or fewer). */
  busy: { address: string; operations: number };
  /** A wallet with one operation (a transfer from the dev wallet in the first blocks). */
  quiet: string;
  /** The wallet that created TOKENS tokens. */
  tokenWallet: string;
  buildSeconds: number;
  /** Bytes of the files of its chain database. */
  chainBytes: number;
}

type ReadyRecord = Omit<HistoryFixture, 'dir' | 'chainBytes'>;

export function historyFixtureDir(operations: number, root = DEFAULT_FIXTURE_ROOT): string {
  return join(root, `history-v${HISTORY_FIXTURE_FORMAT}-${operations}ops`);
}

/** The cached fixture of `operations` operations, built first when missing. */
export async function historyFixture(
  operations: number,
  log: (message: string) => void,
  root = DEFAULT_FIXTURE_ROOT,
): Promise<HistoryFixture> {
  const dir = historyFixtureDir(operations, root);
  const { ready, built } = await cachedBuild(dir, READY_FILE, (building) =>
    buildHistoryFixture(building, operations, log),
  );
  if (!built) log(`    cached chain ${dir} (built in ${ready.buildSeconds.toFixed(0)} s)`);
  return { ...ready, dir, chainBytes: await directoryBytes(join(dir, 'chain')) };
}

/** A copy of `fixture`'s directory beside it for a chain to open (remove it when done). */
export async function copyHistoryFixture(fixture: HistoryFixture): Promise<string> {
  const dir = `${fixture.dir}.run-${process.pid}-${Date.now()}`;
  await cp(fixture.dir, dir, { recursive: true });
  await rm(join(dir, READY_FILE), { force: true });
  return dir;
}

interface Wallet {
  privateKey: Uint8Array;
  address: string;
}

function newWallet(prefix: string): Wallet {
  const privateKey = randomPrivateKey();
  return { privateKey, address: addressFromPublicKey(prefix, getPublicKey(privateKey)) };
}

function transferBody(hash160: Uint8Array, amount: bigint) {
  return { receiver: { hash160 }, amount, payloadType: 0, payload: new Uint8Array(0) };
}

async function produceAll(chain: Chain): Promise<void> {
  while (chain.pendingCount() > 0) await chain.produceBlock(DEV_PRIVATE_KEY);
}

interface RealPart {
  signers: { number: number; hash160: Uint8Array; nOperation: number }[];
  busy: { address: string; number: number; hash160: Uint8Array };
  quiet: string;
  tokenWallet: string;
  actPrice: bigint;
}

/** Step 1: the accounts and tokens, made by real operations in real blocks. */
async function buildRealPart(chain: Chain): Promise<RealPart> {
  const prefix = chain.prefix;
  const dev = addressFromPublicKey(prefix, getPublicKey(DEV_PRIVATE_KEY));
  const signers = Array.from({ length: SIGNERS }, () => newWallet(prefix));
  const tokenWallet = newWallet(prefix);
  const busy = newWallet(prefix);
  const funded = [...signers, tokenWallet];
  for (const wallet of funded) {
    await chain.signAndSubmit({
      optype: TRANSFER_OPTYPE,
      signer: dev,
      privateKey: DEV_PRIVATE_KEY,
      body: transferBody(decodeAddress(wallet.address, prefix).hash160, 10n ** 24n),
    });
  }
  // The busy wallet receives its first coins here, so that its account exists.
  await chain.signAndSubmit({
    optype: TRANSFER_OPTYPE,
    signer: dev,
    privateKey: DEV_PRIVATE_KEY,
    body: transferBody(decodeAddress(busy.address, prefix).hash160, 1_000n),
  });
  await produceAll(chain);
  await Promise.all(
    funded.map((wallet) =>
      chain.signAndSubmit({
        optype: ACTIVATION_OPTYPE,
        signer: wallet.address,
        privateKey: wallet.privateKey,
        body: {},
      }),
    ),
  );
  await produceAll(chain);
  for (let first = 0; first < TOKENS; first += TOKENS_PER_BLOCK) {
    for (let n = first; n < Math.min(TOKENS, first + TOKENS_PER_BLOCK); n++) {
      await chain.signAndSubmit({
        optype: CREATE_TOKEN_OPTYPE,
        signer: tokenWallet.address,
        privateKey: tokenWallet.privateKey,
        body: {
          advanced: false,
          decimal: 0,
          supply: 1_000_000n,
          name: `History token ${n}`,
          symbol: `H${n}`,
          summary: 'a token of the history fixture',
        },
      });
    }
    await produceAll(chain);
  }
  const quiet = addressFromPublicKey(prefix, getPublicKey(randomPrivateKey()));
  await chain.signAndSubmit({
    optype: TRANSFER_OPTYPE,
    signer: dev,
    privateKey: DEV_PRIVATE_KEY,
    body: transferBody(decodeAddress(quiet, prefix).hash160, 1_000n),
  });
  await produceAll(chain);
  const accountOf = (address: string) => {
    const account = chain.accountByAddress(address);
    if (account === undefined) throw new Error(`${address} has no account`);
    return account;
  };
  const result: RealPart = {
    signers: signers.map((s) => {
      const account = accountOf(s.address);
      return {
        number: account.number,
        hash160: decodeAddress(s.address, prefix).hash160,
        nOperation: account.nOperation,
      };
    }),
    busy: {
      address: busy.address,
      number: accountOf(busy.address).number,
      hash160: decodeAddress(busy.address, prefix).hash160,
    },
    quiet,
    tokenWallet: tokenWallet.address,
    actPrice: chain.actPrice,
  };
  for (const wallet of [...funded, busy]) wallet.privateKey.fill(0);
  return result;
}

/** Step 2's blocks: transfers between the signers, one in `busyEvery` to the busy wallet. */
function* fillerBlocks(real: RealPart, operations: number, busyEvery: number) {
  const { signers, busy } = real;
  const signature = new Uint8Array(OPERATION_SIGNATURE_LENGTH);
  for (let first = 0; first < operations; first += PER_BLOCK) {
    const block: Uint8Array[] = [];
    for (let k = first; k < Math.min(operations, first + PER_BLOCK); k++) {
      const from = k % signers.length;
      const signer = signers[from]!;
      const to =
        k % busyEvery === busyEvery - 1
          ? busy.hash160
          : signers[(from + 1 + (k % (signers.length - 1))) % signers.length]!.hash160;
      signer.nOperation++;
      const unsigned = encodeUnsignedOperation(
        {
          optype: TRANSFER_OPTYPE,
          subtype: 0,
          signer: signer.number,
          nOperation: signer.nOperation,
          fee: real.actPrice,
        },
        transferCodec,
        transferBody(to, 1_000n + BigInt(k % 997)),
      );
      const bytes = new Uint8Array(unsigned.length + OPERATION_SIGNATURE_LENGTH);
      bytes.set(unsigned, 0);
      bytes.set(signature, unsigned.length);
      block.push(bytes);
    }
    yield block;
  }
}

async function buildHistoryFixture(
  dir: string,
  operations: number,
  log: (message: string) => void,
): Promise<ReadyRecord> {
  const started = performance.now();
  const seconds = () => (performance.now() - started) / 1000;
  const genesis = createDevGenesis();
  const registry = createNodeRegistry();
  const chain = createChain({ dataDir: dir, genesis, registry });
  await chain.open();
  let real: RealPart;
  let realOperations: number;
  try {
    real = await buildRealPart(chain);
    realOperations = 0;
    for (let height = 1; height < chain.blockCount(); height++) {
      realOperations += (await chain.blockInfo(height)).operations;
    }
  } finally {
    await chain.close();
  }
  log(`    history fixture: ${realOperations} real operations after ${seconds().toFixed(0)} s`);
  const filler = Math.max(0, operations - realOperations);
  // The busy wallet's share of the filler: BUSY_OPERATIONS on a chain of 10M, 1% on a smaller one.
  const busyEvery = Math.max(2, Math.ceil(filler / BUSY_OPERATIONS));
  const numbers = new Map<string, number>([
    [bytesToHex(real.busy.hash160), real.busy.number],
    ...real.signers.map((s) => [bytesToHex(s.hash160), s.number] as const),
  ]);
  const appended = await appendUnexecutedBlocks(dir, {
    genesis,
    registry: createNodeRegistry(),
    producerKey: DEV_PRIVATE_KEY,
    blocks: fillerBlocks(real, filler, busyEvery),
    resolve: (hash) => numbers.get(bytesToHex(hash)),
  });
  const total = realOperations + appended.operations;
  log(
    `    history fixture: ${total.toLocaleString('en-US')} operations in ${appended.height} blocks, built in ${seconds().toFixed(0)} s`,
  );
  return {
    operations: total,
    height: appended.height,
    busy: { address: real.busy.address, operations: 1 + Math.floor(filler / busyEvery) },
    quiet: real.quiet,
    tokenWallet: real.tokenWallet,
    buildSeconds: seconds(),
  };
}
