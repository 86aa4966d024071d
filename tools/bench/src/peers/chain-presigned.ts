/**
 * chain-node's side of the pre-signed writes: sender wallets funded by the dev wallet and activated
 * by an activation signed offline, then transfers signed in advance with the SDK's offline builders
 * (@chain/offline, re-exported by @chain/rpc-client; libsecp256k1 signs) and packed into excuteRaw
 * blobs of one or more operations.
 */
import { addressFromPublicKey, getPublicKey, randomPrivateKey } from '@chain/crypto';
import { nativeSecp256k1 } from '@chain/crypto/native';
import {
  attachSignature,
  type ChainClient,
  encodeRaw,
  prepareOperation,
  type SigningContext,
  signingContextOf,
  signOperation,
} from '@chain/rpc-client';
import {
  DEV_PASSPHRASE,
  DEV_PREFIX,
  devWalletAddress,
  waitUntilNothingPending,
} from '../dev-chain.js';

export interface KeyedSender {
  address: string;
  key: Uint8Array;
}

/** `count` new wallets, each funded with `coins` by the dev wallet and activated, all mined. */
export async function activeSendersWithKeys(
  client: ChainClient,
  count: number,
  coins: string,
): Promise<KeyedSender[]> {
  const senders = Array.from({ length: count }, () => {
    const key = randomPrivateKey();
    return { key, address: addressFromPublicKey(DEV_PREFIX, getPublicKey(key)) };
  });
  const dev = devWalletAddress();
  await Promise.all(
    senders.map((sender) =>
      client.operations.sendTo({
        sender: dev,
        passphrase: DEV_PASSPHRASE,
        receiver: sender.address,
        amount: coins,
      }),
    ),
  );
  await waitUntilNothingPending(client, 30_000);
  for (const sender of senders) {
    const context = await signingContextOf(client, sender.address);
    const activation = signOperation({ type: 'activation' }, context, sender.key);
    const result = await client.operations.excuteRaw({ rawoperation: encodeRaw([activation]) });
    if ((result as { valid?: boolean }).valid === false) {
      throw new Error(`activation of ${sender.address} refused: ${JSON.stringify(result)}`);
    }
  }
  await waitUntilNothingPending(client, 30_000);
  return senders;
}

/**
 * `blobs` excuteRaw bodies of `perBlob` transfers each from `sender` to `receiver`, in n_operation
 * order from the sender's next one (its context read now).
 */
export async function presignedBlobs(
  client: ChainClient,
  sender: KeyedSender,
  receiver: string,
  blobs: number,
  perBlob: number,
): Promise<string[]> {
  const context: SigningContext = await signingContextOf(client, sender.address);
  const bodies: string[] = [];
  let nOperation = context.nOperation;
  for (let b = 0; b < blobs; b++) {
    const operations = [];
    for (let i = 0; i < perBlob; i++) {
      const prepared = prepareOperation(
        { type: 'transfer', receiver, amount: 1_000_000_000_000n },
        { ...context, nOperation: nOperation++ },
      );
      const signature = nativeSecp256k1.sign(prepared.signingHash, sender.key);
      operations.push(attachSignature(prepared, signature));
    }
    bodies.push(
      JSON.stringify({
        jsonrpc: '2.0',
        id: b,
        method: 'excuteRaw',
        params: { rawoperation: encodeRaw(operations) },
      }),
    );
  }
  return bodies;
}

/** How many operations an excuteRaw reply accepted, or what it refused. */
export function acceptedOperations(reply: unknown): number | string {
  const { result, error } = reply as { result?: unknown; error?: unknown };
  if (error !== undefined || result === undefined) return `error: ${JSON.stringify(error)}`;
  const entries = Array.isArray(result) ? result : [result];
  const refused = entries.find((entry) => (entry as { valid?: boolean }).valid === false);
  return refused === undefined ? entries.length : `refused: ${JSON.stringify(refused)}`;
}
