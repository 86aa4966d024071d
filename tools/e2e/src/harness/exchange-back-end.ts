/**
 * The exchange back end's code of docs/integration.md, as the guide shows it (each function below
 * is quoted there verbatim, `export` aside: exchange.test.ts checks it): the exchange e2e test
 * (exchange.test.ts) runs it.
 */
import type { ChainClient, PushedKeyStoreOperation } from '@chain/rpc-client';

export interface Credit {
  wallet: string;
  amount: bigint;
  block: number;
}

/**
 * Credits every deposit to one of `wallets` with at least `confirmations`, once (by ophash), from
 * `fromBlock` on: start from the block of the last deposit credited; reading again is harmless.
 */
export async function creditDeposits(
  node: ChainClient,
  wallets: ReadonlySet<string>,
  fromBlock: number,
  confirmations: number,
  credited: Map<string, Credit>,
): Promise<void> {
  let cursor: string | undefined;
  do {
    const page = await node.wallet.getKeyStoreOperations({
      fromBlock,
      max: 1000,
      ...(cursor === undefined ? {} : { cursor }),
    });
    for (const op of page.operations) {
      if (op.confirmations < confirmations) return; // oldest first: the rest are younger
      if (op.optype !== 2) continue; // coins only: a token's amount is in the token's units
      // The ophash without its block number names the operation in whichever block it is.
      const id = op.ophash.slice(8);
      for (const receiver of op.receivers) {
        if (wallets.has(receiver.account) && !credited.has(id)) {
          credited.set(id, {
            wallet: receiver.account,
            amount: BigInt(op.amount),
            block: op.block,
          });
        }
      }
    }
    cursor = page.cursor ?? undefined;
  } while (cursor !== undefined);
}

/**
 * The push handler: `detected` holds each deposit to one of `wallets` seen mined, by id (the
 * ophash without its block number), with its block; a deposit removed from that block leaves it.
 */
export function detectDeposits(
  wallets: ReadonlySet<string>,
  detected: Map<string, number>,
): (op: PushedKeyStoreOperation) => void {
  return (op) => {
    if (op.optype !== 2 || !op.receivers.some((r) => wallets.has(r.account))) return;
    const id = op.ophash.slice(8);
    if (op.removed !== true) detected.set(id, op.block);
    else if (detected.get(id) === op.block) detected.delete(id);
  };
}

/** One wallet's deposits (coins it received) from `fromBlock` on, oldest first. */
export async function depositsSince(node: ChainClient, wallet: string, fromBlock: number) {
  const found = [];
  let cursor: string | undefined;
  do {
    const page = await node.wallet.getWalletOperations({
      wallet,
      fromBlock,
      max: 1000,
      ...(cursor === undefined ? {} : { cursor }),
    });
    found.push(
      ...page.operations.filter(
        (op) => op.optype === 2 && op.receivers.some((r) => r.account === wallet),
      ),
    );
    cursor = page.cursor ?? undefined;
  } while (cursor !== undefined);
  return found;
}
