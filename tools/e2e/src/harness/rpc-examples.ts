/**
 * The examples of docs/rpc.md: one scripted session against a real dev node that calls every
 * method of the catalogue at least once (plus a few calls that fail on purpose), recording each
 * request and the node's whole reply. `generate-rpc-docs.ts` writes them into docs/rpc.md;
 * `rpc-docs.test.ts` runs the same session on a fresh node and checks that every documented reply
 * still has the shape of the real one.
 *
 * The session records the same examples in the same order whatever the node can do: a method
 * that is not built yet answers "not available yet", and later steps go on with placeholder
 * values instead of branching, so the list of examples never depends on the answers.
 */
import { bytesToHex, randomPrivateKey } from '@chain/crypto';
import { devWallet, waitFor } from './chain';
import { type NodeProcess, rpc } from './node-process';

/** Flags of the node the examples run against (block time short enough to keep the run quick). */
export const EXAMPLE_NODE_ARGS = ['--block-time', '500'];

export interface JsonRpcRequest {
  jsonrpc: '2.0';
  method: string;
  params?: Record<string, unknown>;
  id: number;
}

export interface JsonRpcReply {
  jsonrpc: string;
  id: unknown;
  result?: unknown;
  error?: { code: number; message: string; data?: { reason?: string; param?: string } };
}

export interface RpcExample {
  method: string;
  /** 0 for a method's first example, 1 for its second, ... */
  index: number;
  /** What the example shows, e.g. "wrong passphrase". */
  title: string;
  request: JsonRpcRequest;
  reply: JsonRpcReply;
}

/** The key of an example in the docs: `sendTo#0`. */
export function exampleKey(example: Pick<RpcExample, 'method' | 'index'>): string {
  return `${example.method}#${example.index}`;
}

/** Passphrase of every wallet the session creates besides the documented newWallet one. */
const PW = 'pw';
const DOC_PASSPHRASE = 'correct horse';

interface Operation {
  ophash: string;
  block: number;
  n_operation: number;
  optxt: string;
  token?: string;
}

class Session {
  readonly examples: RpcExample[] = [];
  private nextId = 1;
  private readonly counts = new Map<string, number>();

  constructor(private readonly url: string) {}

  /** A documented call: recorded with the whole reply, whatever it is. */
  async example(
    method: string,
    params: Record<string, unknown> | undefined,
    title = '',
  ): Promise<JsonRpcReply> {
    const id = this.nextId++;
    const reply = (await rpc(this.url, method, params, id)) as JsonRpcReply;
    const index = this.counts.get(method) ?? 0;
    this.counts.set(method, index + 1);
    const request: JsonRpcRequest =
      params === undefined
        ? { jsonrpc: '2.0', method, id }
        : { jsonrpc: '2.0', method, params, id };
    this.examples.push({ method, index, title, request, reply });
    return reply;
  }

  /** A call that sets the scene, not documented; its result, or undefined on an error. */
  async quiet<T>(method: string, params?: Record<string, unknown>): Promise<T | undefined> {
    const reply = (await rpc(this.url, method, params, this.nextId++)) as JsonRpcReply;
    return reply.error === undefined ? (reply.result as T) : undefined;
  }

  /** Waits until the operation of a reply (if it produced one) is in a block. */
  async settle(reply: JsonRpcReply | Operation | undefined): Promise<Operation | undefined> {
    const op = operationOf(reply);
    if (op === undefined) return undefined;
    return waitFor(`operation ${op.ophash} to be mined`, async () => {
      const [found] = (await this.quiet<Operation[]>('findOperation', { ophash: op.ophash })) ?? [];
      return found && found.block > 0 ? found : undefined;
    });
  }

  async newWallet(): Promise<string> {
    const created = await this.quiet<{ wallet: string }>('newWallet', { passphrase: PW });
    if (!created) throw new Error('newWallet failed: the examples need a key store');
    return created.wallet;
  }

  /** Activates a key-store wallet on chain with its key-store passphrase. */
  async activate(wallet: string, passphrase: string): Promise<void> {
    await this.quiet('activeWallet', { wallet, passphrase });
    await this.waitActive(wallet);
  }

  async waitActive(wallet: string): Promise<void> {
    await waitFor(`${wallet} to be active`, async () => {
      const info = await this.quiet<{ state: string }>('getWalletInfo', { wallet });
      return info?.state === 'normal wallet';
    });
  }
}

/** The operation a reply (or a mined operation) carries, if any. */
function operationOf(value: JsonRpcReply | Operation | undefined): Operation | undefined {
  if (value === undefined) return undefined;
  const result = 'jsonrpc' in value ? (value as JsonRpcReply).result : value;
  const op = Array.isArray(result) ? result[0] : result;
  if (typeof op !== 'object' || op === null) return undefined;
  return typeof (op as Operation).ophash === 'string' ? (op as Operation) : undefined;
}

function resultOf<T>(reply: JsonRpcReply): T | undefined {
  return reply.error === undefined ? (reply.result as T) : undefined;
}

/** The node code at the end of a participation step's optxt. */
function nodeCodeOf(op: Operation | undefined): string | undefined {
  return op === undefined ? undefined : /([0-9a-fA-F]{8,})\W*$/.exec(op.optxt)?.[1];
}

/** The same address with its last digit changed: a checksum error. */
function corrupt(address: string): string {
  const last = address.at(-1) === '0' ? '1' : '0';
  return address.slice(0, -1) + last;
}

/** Runs the whole session against a dev node and returns its examples in call order. */
export async function runRpcExamples(node: NodeProcess): Promise<RpcExample[]> {
  const s = new Session(node.url);
  const dev = devWallet(node);
  const devPass = 'dev';

  // ---- protocol and versions
  await s.example('getNodeVersion', undefined);
  await s.example('getProtocolVersion', undefined);
  await s.example('getBlockCount', undefined);
  await s.example('getblockcount', undefined, 'a method name in the wrong case');

  // ---- wallets: a documented new wallet, and the cast of the later examples
  const created = resultOf<{ wallet: string }>(
    await s.example('newWallet', { passphrase: DOC_PASSPHRASE }),
  );
  const alice = created?.wallet ?? (await s.newWallet());
  const [middle, bottom, top, mine, share, topMiner, middleMiner, bottomMiner] = [
    await s.newWallet(),
    await s.newWallet(),
    await s.newWallet(),
    await s.newWallet(),
    await s.newWallet(),
    await s.newWallet(),
    await s.newWallet(),
    await s.newWallet(),
  ];
  await s.example('getKeyStoreCount', undefined);

  // Fund the participants, then wait for that block so the next transfer stays pending for a
  // whole block time (the examples of the pending list need one).
  let last: Operation | undefined;
  for (const [receiver, amount] of [
    [top, '20000'],
    [middle, '2000'],
    [bottom, '200'],
    [mine, '10'],
  ] as const) {
    last = await s.quiet<Operation>('sendTo', {
      sender: dev,
      passphrase: devPass,
      receiver,
      amount,
    });
  }
  await s.settle(last);

  // ---- operations
  const sent = await s.example('sendTo', {
    sender: dev,
    passphrase: devPass,
    receiver: alice,
    amount: '100',
    payload: bytesToHex(new TextEncoder().encode('hello')),
  });
  await s.example('getPendingOperation', undefined);
  await s.example('getPendingCount', undefined);
  await s.example(
    'sendTo',
    { sender: dev, passphrase: 'not the passphrase', receiver: alice, amount: '1' },
    'wrong passphrase',
  );
  await s.example(
    'sendTo',
    { sender: dev, passphrase: devPass, receiver: alice, amount: '5000000000' },
    'more than the balance',
  );
  const mined = await s.settle(sent);
  const minedHash = mined?.ophash ?? '00'.repeat(32);
  const minedBlock = mined?.block ?? 1;
  await s.example('findOperation', { ophash: minedHash });
  await s.example('decodeOpHash', { ophash: minedHash });
  await s.example('findOperationByNOperation', {
    wallet: dev,
    n_operation: mined?.n_operation ?? 1,
  });
  await s.example('getBlockOperations', { block: minedBlock });
  await s.example('getActPrice', undefined);

  // ---- blocks
  await s.example('getBlockInfo', { block: minedBlock });
  await s.example('getBlockInfo', { block: 1_000_000 }, 'a block that does not exist');
  const minedInfo = await s.quiet<{ hash: string }>('getBlockInfo', { block: minedBlock });
  await s.example('getBlockByHash', { hash: minedInfo?.hash ?? '00'.repeat(32) });
  await s.example('getBlockByHash', { hash: 'ab'.repeat(32) }, 'a hash of no block');
  await s.example('blockSyncing', undefined);

  // ---- wallet keys
  await s.example('getWalletInfo', { wallet: alice });
  await s.example('getWalletInfo', { wallet: corrupt(alice) }, 'an address with a bad checksum');
  await s.example('lockWallet', { wallet: alice });
  await s.example(
    'dumpPrivateKey',
    { wallet: alice, passphrase: DOC_PASSPHRASE },
    'the wallet is locked',
  );
  await s.example('unlockWallet', { wallet: alice, passphrase: DOC_PASSPHRASE });
  await s.example(
    'unlockWallet',
    { wallet: alice, passphrase: 'not the passphrase' },
    'wrong passphrase',
  );
  const dumped = resultOf<{ priv: string }>(
    await s.example('dumpPrivateKey', { wallet: alice, passphrase: DOC_PASSPHRASE }),
  );
  // The example's key is in the examples: a throwaway key of a throwaway dev node.
  const alicePriv = dumped?.priv ?? `ca022000${'11'.repeat(32)}`;
  await s.example('activeWallet', { wallet: alice, passphrase: DOC_PASSPHRASE });
  await s.example(
    'activeWallet',
    { wallet: alice, passphrase: DOC_PASSPHRASE, private: alicePriv },
    'both the passphrase and the key: give exactly one',
  );
  await s.waitActive(alice).catch(() => undefined);
  for (const wallet of [top, middle, bottom, mine]) await s.activate(wallet, PW);

  await s.settle(
    await s.example('privSendTo', { sender: alice, priv: alicePriv, receiver: dev, amount: '1.5' }),
  );

  // ---- raw (offline-signed) operations
  const devInfo = await s.quiet<{ account: number; n_operation: number }>('getWalletInfo', {
    wallet: dev,
  });
  const aliceInfo = await s.quiet<{ account: number }>('getWalletInfo', { wallet: alice });
  const raw = resultOf<{ rawoperation: string }>(
    await s.example('rawSendTo', {
      senderAccount: devInfo?.account ?? 0,
      senderWallet: dev,
      senderNOperation: devInfo?.n_operation ?? 0,
      passphrase: devPass,
      receiverAccount: aliceInfo?.account ?? 1,
      amount: '2',
    }),
  );
  const rawOperation = raw?.rawoperation ?? '00';
  await s.example('InfoRaw', { rawoperation: rawOperation });
  await s.settle(await s.example('excuteRaw', { rawoperation: rawOperation }));
  await s.example('excuteRaw', { rawoperation: rawOperation }, 'the same operation again');

  // ---- messages and key import
  const signed = resultOf<Record<string, unknown>>(
    await s.example('signMessage', { wallet: dev, passphrase: devPass, message: 'hello' }),
  );
  await s.example('verifyMessage', { data: signed ?? { wallet: dev, msg: 'hello' } });
  await s.example(
    'verifyMessage',
    { data: { ...signed, msg: 'hello, changed' } },
    'a message that was not signed',
  );
  await s.example(
    'verifyMessage',
    { data: { ...signed, sig: 'not hex' } },
    'a malformed signature: an error naming the field',
  );
  await s.example('inputPrivateKey', {
    private: bytesToHex(randomPrivateKey()),
    passphrase: DOC_PASSPHRASE,
  });
  const firstPage = await s.example('getKeyStoreInfo', { max: 2 });
  const lastOfPage = (firstPage.result as Array<{ wallet: string }>).at(-1)?.wallet;
  await s.example(
    'getKeyStoreInfo',
    { max: 2, after: lastOfPage },
    'the next page: after the last wallet of the previous one',
  );
  await s.example('walletRefresh', undefined);
  await s.example('walletRefresh', { details: true }, 'what the rescan found');

  // ---- tokens
  const createdToken = await s.example('createToken', {
    wallet: dev,
    passphrase: devPass,
    function: true,
    name: 'Example',
    symbol: 'EXM',
    summary: 'A token of the examples',
    totalAmount: '1000000',
    decimal: 4,
  });
  await s.example(
    'createToken',
    {
      wallet: dev,
      passphrase: devPass,
      function: false,
      name: 'Too fine',
      symbol: 'FINE',
      summary: 'more decimals than allowed',
      totalAmount: '1',
      decimal: 19,
    },
    'decimal above 18',
  );
  const token = (await s.settle(createdToken))?.token ?? operationOf(createdToken)?.token ?? alice;
  await s.settle(
    await s.example('sendToken', {
      sender: dev,
      passphrase: devPass,
      receiver: alice,
      amount: '25.5',
      token,
    }),
  );
  await s.settle(
    await s.example('adminToken', {
      sender: dev,
      passphrase: devPass,
      token,
      method: 'mintWalletVolume',
      receiver: alice,
      amount: '10',
    }),
  );
  await s.example('infoToken', { wallet: token });
  await s.example('infoToken', { wallet: alice }, 'an address that is no token');
  await s.example('holderToken', { wallet: token });
  await s.example('getTokenOperations', { token, max: 2 });
  await s.example('getWalletTokens', { wallet: alice });
  const page = await s.example('getWalletOperations', { wallet: alice, max: 2 });
  const cursor = resultOf<{ cursor: string | null }>(page)?.cursor ?? undefined;
  if (cursor !== undefined) {
    await s.example('getWalletOperations', { wallet: alice, max: 2, cursor }, 'the next page');
  }
  await s.example(
    'getWalletOperations',
    { wallet: alice, fromBlock: minedBlock, max: 1 },
    'oldest first from a block on',
  );
  await s.example(
    'getWalletOperations',
    { wallet: alice, cursor: 'yesterday' },
    'a cursor no page returned',
  );
  await s.example(
    'getKeyStoreOperations',
    { fromBlock: minedBlock, max: 2 },
    "the key store's wallets' operations from a block on",
  );

  // ---- participation: a TOP node (top), a MIDDLE node (middle) under it, a BOTTOM node (bottom)
  const joined = await s.settle(
    await s.example('nodeStep1', {
      wallet: top,
      amount: '10000',
      passphrase: PW,
      miner: topMiner,
      penalty: 10,
      extension: false,
    }),
  );
  const code = nodeCodeOf(joined) ?? '0000000000000000';
  await s.settle(await s.example('nodeStep2', { code, wallet: top, passphrase: PW }));
  await s.example('getNodePart', { wallet: top });
  await s.settle(
    await s.example('nodeStep3_1', {
      code,
      wallet: middle,
      amount: '1000',
      passphrase: PW,
      miner: middleMiner,
      confirmer: top,
    }),
  );
  await s.example('nodeStepMDList', { code, wallet: top });
  const approve = { select: true, code, confirmer: top, passphrase: PW, target: middle };
  await s.settle(await s.example('nodeStep3_2', approve));
  await s.settle(
    await s.example('nodeStep4_1', { code, wallet: middle, passphrase: PW, confirmer: top }),
  );
  await s.settle(await s.example('nodeStep4_2', approve));
  await s.settle(
    await s.example('nodeStep5_1', {
      code,
      wallet: bottom,
      amount: '100',
      passphrase: PW,
      miner: bottomMiner,
      main: top,
      confirmer: middle,
    }),
  );
  await s.example('nodeStepBTList', { code, main: top, wallet: middle });
  await s.settle(
    await s.example('nodeStep5_2', {
      select: true,
      code,
      main: top,
      confirmer: middle,
      passphrase: PW,
      target: bottom,
    }),
  );
  await s.settle(
    await s.example('blockchainStart', {
      code,
      wallet: top,
      passphrase: PW,
      mine,
      minepass: PW,
      share,
      nodes: '127.0.0.1',
    }),
  );
  await s.settle(await s.example('nodeCancel', { code, wallet: bottom, passphrase: PW }));
  await s.example(
    'nodeCancel',
    { code, wallet: top, passphrase: PW },
    'sub-nodes still participate',
  );

  // ---- network
  await s.example('nodeStatus', undefined);
  await s.example('getConnection', undefined);
  await s.example('addNode', { nodes: '127.0.0.1:9714' });
  await s.example('nodeSearch', undefined);
  await s.example('addBlacklist', { ip: '203.0.113.7', why: 'an example' });
  await s.example('getBlacklist', undefined);
  await s.example('clearBlacklist', undefined);
  await s.example('nodeStop', undefined);
  await s.example('nodeStart', undefined);

  // ---- stats
  await s.example('nodeIPStats', { ip: '127.0.0.1' });
  await s.example('rpcCallStats', undefined);
  await s.example('nodeUptime', undefined);
  await s.example('rpc.discover', undefined);

  // ---- push: over HTTP both answer WEBSOCKET_REQUIRED (the protocol text shows the WebSocket side)
  await s.example('subscribe', { event: 'newBlocks' }, 'over HTTP');
  await s.example('unsubscribe', { subscription: '0x1' }, 'over HTTP');

  return s.examples;
}
