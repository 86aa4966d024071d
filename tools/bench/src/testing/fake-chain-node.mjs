#!/usr/bin/env node
// Stand-in for bin/chain-node.js in node-process tests: `start --datadir D --rpc-port P --p2p-port Q`
// serves getBlockCount on 127.0.0.1:P after FAKE_NODE_DELAY_MS, writes D/args.json, and exits 0 on
// SIGTERM. FAKE_NODE_EXIT_CODE makes it fail at start-up instead; FAKE_NODE_IGNORE_SIGTERM makes it
// ignore SIGTERM.
import { writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { join } from 'node:path';
import { parseArgs } from 'node:util';

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    datadir: { type: 'string' },
    'rpc-port': { type: 'string' },
    'p2p-port': { type: 'string' },
    extra: { type: 'string' },
  },
});
writeFileSync(join(values.datadir, 'args.json'), JSON.stringify({ positionals, values }));
console.log('fake chain-node starting');

if (process.env.FAKE_NODE_EXIT_CODE !== undefined) {
  console.error('fake chain-node: cannot open the data directory');
  process.exit(Number(process.env.FAKE_NODE_EXIT_CODE));
}

const server = createServer((request, response) => {
  let body = '';
  request.on('data', (chunk) => {
    body += chunk;
  });
  request.on('end', () => {
    const { id } = JSON.parse(body);
    response.setHeader('content-type', 'application/json');
    response.end(JSON.stringify({ jsonrpc: '2.0', id: String(id), result: 0 }));
  });
});
setTimeout(
  () => server.listen(Number(values['rpc-port']), '127.0.0.1'),
  Number(process.env.FAKE_NODE_DELAY_MS ?? 0),
);
process.on('SIGTERM', () => {
  if (process.env.FAKE_NODE_IGNORE_SIGTERM !== undefined) return;
  server.closeAllConnections();
  server.close(() => process.exit(0));
});
