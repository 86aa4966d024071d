import { PassThrough } from 'node:stream';
import type { Chain } from '@chain/ledger';
import { describe, expect, it } from 'vitest';
import { printBanner } from './banner';
import type { NodeOptions } from './options';

const chain = {
  genesis: { network: 'dev' },
  genesisHash: new Uint8Array(32),
  blockCount: () => 1,
} as unknown as Chain;
const options = {
  datadir: '/tmp/data',
  genesis: '',
  p2pHost: '',
  peers: [],
  p2pPort: 4000,
  blockTimeMs: 1000,
  mine: true,
} as unknown as NodeOptions;

function banner(explorerBuilt: boolean, overrides: Partial<NodeOptions> = {}): string {
  const out = new PassThrough();
  let text = '';
  out.on('data', (chunk) => {
    text += chunk;
  });
  printBanner(
    { ...options, ...overrides },
    chain,
    { rpcUrl: 'http://127.0.0.1:8545/' },
    out,
    explorerBuilt,
  );
  return text;
}

describe('start banner', () => {
  it('names the explorer URL: the page at the root of the RPC port', () => {
    const text = banner(true);
    expect(text).toMatch(/^ {2}JSON-RPC {8}http:\/\/127\.0\.0\.1:8545\/$/m);
    expect(text).toMatch(
      /^ {2}explorer {8}http:\/\/127\.0\.0\.1:8545\/ {2}\(open it in a browser\)$/m,
    );
  });

  it('says that a dev node lets no peer in, and how to let them in', () => {
    expect(banner(true)).toMatch(
      /^ {2}P2P {13}127\.0\.0\.1:4000 {2}\(no inbound peers: --p2p-host or --peers lets them in\)$/m,
    );
    expect(banner(true, { p2pHost: '0.0.0.0' })).toMatch(/^ {2}P2P {13}0\.0\.0\.0:4000$/m);
  });

  it('says how to build the explorer when its script is missing', () => {
    expect(banner(false)).toMatch(/^ {2}explorer {8}not built \(npx nx run chain-node:build\)$/m);
  });
});
