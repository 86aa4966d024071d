import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { devWallet } from './harness/chain';
import { type NodeProcess, type RpcReply, rpcFrom, startNode } from './harness/node-process';

// Wrong passphrases through the binary, from distinct clients (loopback source addresses): they slow
// down the address that sends them and never lock the wallet's owner out, the producer's wallet
// included (the dev wallet signs the dev network's blocks).
const GUESSER = '127.0.0.2';
const OWNER = '127.0.0.3';
/** DEFAULT_KEYSTORE_OPTIONS.maxAttemptsPerMinute */
const ALLOWANCE = 30;

let node: NodeProcess;
let dev: string;

beforeAll(async () => {
  node = await startNode();
  dev = devWallet(node);
});

afterAll(async () => {
  await node?.stop();
});

function sign(from: string, passphrase: string): Promise<RpcReply> {
  return rpcFrom(from, node.url, 'signMessage', { wallet: dev, passphrase, message: 'm' });
}

describe('wrong passphrases from one address', () => {
  it('never lock the owner out: another address is served at once, the same address after its wait', async () => {
    const first = await Promise.all(
      Array.from({ length: ALLOWANCE }, (_, i) => sign(GUESSER, `wrong ${i}`)),
    );
    expect(first.map((reply) => reply.error?.data?.reason)).toEqual(
      Array(ALLOWANCE).fill('WRONG_PASSPHRASE'),
    );

    // The owner, from another address, right after.
    expect((await sign(OWNER, 'dev')).result).toMatchObject({ wallet: dev });

    // The guesser is over its allowance (give or take the one failure that leaked away while the
    // first ones were checked): its checks wait their turn, one at a time, the right passphrase as
    // well: no quick answer from the key cache, no overtaking of its own earlier guesses.
    const answered: string[] = [];
    const wrongGuesses = [ALLOWANCE, ALLOWANCE + 1].map((i) =>
      sign(GUESSER, `wrong ${i}`).finally(() => answered.push(`guesser, wrong ${i}`)),
    );
    // Meanwhile the owner is answered, neither refused nor queued behind the guesser.
    const owner = await sign(OWNER, 'dev');
    answered.push('owner');
    expect(owner.result).toMatchObject({ wallet: dev });
    const unlock = await rpcFrom(OWNER, node.url, 'unlockWallet', {
      wallet: dev,
      passphrase: 'dev',
    });
    expect(unlock.result).toBe(true);
    // The guesser's right passphrase, sent after its wrong guesses, is answered after them.
    const right = sign(GUESSER, 'dev').finally(() => answered.push('guesser, right'));

    for (const reply of await Promise.all(wrongGuesses)) {
      expect(reply.error).toMatchObject({ code: 1030, data: { reason: 'WRONG_PASSPHRASE' } });
    }
    expect((await right).result).toMatchObject({ wallet: dev });
    const lastWrong = Math.max(
      ...[ALLOWANCE, ALLOWANCE + 1].map((i) => answered.indexOf(`guesser, wrong ${i}`)),
    );
    expect(answered.indexOf('owner')).toBeLessThan(lastWrong);
    expect(answered.at(-1)).toBe('guesser, right');
  });
});
