/**
 * Child process of the crash test: submits transfers as fast as it can with a block producer
 * running, printing each acknowledged ophash, until it is killed.
 */
import { createChain } from '../chain/chain';
import { createBlockProducer } from '../chain/production/producer';
import { createDevGenesis } from '../genesis';
import { transferRequest } from '../operation/typed-request';
import { devWallet, testWallet, transferTo } from './temp-chain';

const [dir, blockTime] = process.argv.slice(2);
const chain = createChain({ dataDir: dir!, genesis: createDevGenesis() });
await chain.open();
createBlockProducer({
  chain,
  blockTimeMs: Number(blockTime),
  producerKeys: () => [devWallet.privateKey],
}).start();
const receivers = Array.from({ length: 10 }, (_, i) => testWallet(`crash ${i}`).address);
process.stdout.write('ready\n');
for (let wave = 0; ; wave++) {
  await Promise.all(
    receivers.map(async (to) => {
      const op = await chain.signAndSubmit(
        transferRequest(
          { signer: devWallet.address, privateKey: devWallet.privateKey },
          transferTo(to, BigInt(wave + 1)),
        ),
      );
      process.stdout.write(`${op.ophash}\n`);
    }),
  );
}
