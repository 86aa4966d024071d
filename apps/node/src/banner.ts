import { existsSync } from 'node:fs';
import { bytesToHex, COIN_DECIMALS, formatUnits } from '@chain/crypto';
import type { Chain } from '@chain/ledger';
import { defaultScriptFile } from './explorer/serve';
import type { DevWallet } from './node';
import type { NodeOptions } from './options';
import { p2pListening } from './p2p-listening';
import { APP_VERSION } from './version';

/** Where P2P listens, and, on the embedded dev network, that it lets no peer in until told. */
function p2pLine(options: NodeOptions, port: number): string {
  const { host, inbound } = p2pListening(options);
  const where = `  P2P             ${host}:${port}`;
  return inbound ? where : `${where}  (no inbound peers: --p2p-host or --peers lets them in)`;
}

/** What the node serves, printed once at start (Anvil-style), on stdout. */
export function printBanner(
  options: NodeOptions,
  chain: Chain,
  served: { rpcUrl: string; p2pPort?: number; metricsUrl?: string; devWallet?: DevWallet },
  out: NodeJS.WritableStream = process.stdout,
  explorerBuilt: boolean = existsSync(defaultScriptFile()),
): void {
  const lines = [
    '',
    `chain-node ${APP_VERSION}  network ${chain.genesis.network}  genesis ${bytesToHex(chain.genesisHash).slice(0, 16)}…`,
    `  data directory  ${options.datadir}`,
    `  JSON-RPC        ${served.rpcUrl}`,
    // The explorer is served at GET / of the RPC port (src/explorer), as reachable as the RPC.
    explorerBuilt
      ? `  explorer        ${served.rpcUrl}  (open it in a browser)`
      : '  explorer        not built (npx nx run chain-node:build)',
    ...(served.metricsUrl ? [`  metrics         ${served.metricsUrl}`] : []),
    p2pLine(options, served.p2pPort ?? options.p2pPort),
    `  blocks          ${chain.blockCount()}   (block time ${options.blockTimeMs} ms${options.mine ? '' : ', not producing'})`,
  ];
  if (served.devWallet) {
    const { address, passphrase, balance } = served.devWallet;
    lines.push(
      '',
      'Dev wallet (prefunded, genesis producer; its key is in the key store):',
      `  wallet      ${address}`,
      `  passphrase  ${passphrase}`,
      `  balance     ${formatUnits(balance, COIN_DECIMALS).replace(/\.?0+$/, '')} coins`,
      '',
      'Try it:',
      `  curl -s ${served.rpcUrl} -H 'content-type: application/json' \\`,
      `    -d '{"jsonrpc":"2.0","id":1,"method":"getWalletInfo","params":{"wallet":"${address}"}}'`,
    );
  }
  out.write(`${lines.join('\n')}\n\n`);
}
