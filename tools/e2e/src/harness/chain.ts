import type { OperationObject, WalletInfo } from '@chain/spec';
import { expect } from 'vitest';
import { call, type NodeProcess } from './node-process';

export const COIN = 10n ** 18n;

/** The dev wallet the node printed at start. */
export function devWallet(node: NodeProcess): string {
  const match = /wallet\s+(CH[0-9a-f]{46})/.exec(node.stdout());
  if (!match) throw new Error(`no dev wallet in the banner:\n${node.stdout()}`);
  return match[1]!;
}

export async function waitFor<T>(
  what: string,
  probe: () => Promise<T | undefined | false>,
  timeoutMs = 15_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

export type { OperationObject, WalletInfo } from '@chain/spec';

/** An operation as it is on chain, once it is mined. */
export async function mined(node: NodeProcess, ophash: string): Promise<OperationObject> {
  return waitFor(`operation ${ophash} to be mined`, async () => {
    const [found] = await call<OperationObject[]>(node.url, 'findOperation', { ophash });
    return found && found.block > 0 ? found : undefined;
  });
}

export async function newFundedWallet(
  node: NodeProcess,
  coins: string,
  passphrase = 'pw',
): Promise<string> {
  const { wallet } = await call<{ wallet: string }>(node.url, 'newWallet', { passphrase });
  const op = await call<OperationObject>(node.url, 'sendTo', {
    sender: devWallet(node),
    passphrase: 'dev',
    receiver: wallet,
    amount: coins,
  });
  await mined(node, op.ophash);
  return wallet;
}

/** Activates a key-store wallet on chain (activeWallet with its key-store passphrase). */
export async function activate(
  node: NodeProcess,
  wallet: string,
  passphrase = 'pw',
): Promise<void> {
  await call(node.url, 'activeWallet', { wallet, passphrase });
  await waitFor(`${wallet} to be active`, async () => {
    const info = await call<WalletInfo>(node.url, 'getWalletInfo', { wallet });
    return info.state === 'normal wallet';
  });
}

export const OPERATION_FIELDS = [
  'block',
  'time',
  'opblock',
  'maturation',
  'optype',
  'subtype',
  'nopsp',
  'niopsp',
  'oprice',
  'ioprice',
  'signer_account',
  'n_operation',
  'amount',
  'senders',
  'receivers',
  'optxt',
  'ophash',
].sort();

export function expectOperationShape(op: OperationObject): void {
  expect(Object.keys(op).sort()).toEqual(OPERATION_FIELDS);
  for (const key of [
    'block',
    'time',
    'opblock',
    'optype',
    'subtype',
    'nopsp',
    'niopsp',
    'n_operation',
  ] as const) {
    expect(Number.isInteger(op[key]), key).toBe(true);
  }
  for (const key of ['oprice', 'ioprice', 'amount'] as const) expect(op[key]).toMatch(/^\d+$/);
  expect(op.maturation === null || Number.isInteger(op.maturation)).toBe(true);
  expect(op.signer_account).toMatch(/^CH[0-9a-f]{46}$/);
  expect(op.ophash).toMatch(/^[0-9a-f]{64}$/);
  expect(typeof op.optxt).toBe('string');
}
