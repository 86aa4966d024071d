import { execFile, spawnSync } from 'node:child_process';
import { readFile, writeFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { CHAIN_NODE_BIN } from './harness/node-process';

// The packaging in deploy/: structural checks that cost nothing, systemd's own verifier on the unit
// when the machine has it, and the image's health check run against a real HTTP server. Docker
// itself is not here (no daemon on CI): docs/operations.md says how the image was tried.

const run = promisify(execFile);
const repo = resolve(fileURLToPath(import.meta.url), '../../../..');
const deploy = (name: string) => readFile(join(repo, 'deploy', name), 'utf8');

/** The workspace packages chain-node needs at run time: its @chain dependencies, transitively. */
async function runtimePackages(): Promise<Map<string, string>> {
  const dirs = new Map<string, string>();
  for (const base of ['packages', 'apps']) {
    const { readdir } = await import('node:fs/promises');
    for (const entry of await readdir(join(repo, base))) {
      const manifest = JSON.parse(await readFile(join(repo, base, entry, 'package.json'), 'utf8'));
      dirs.set(manifest.name, `${base}/${entry}`);
    }
  }
  const needed = new Map<string, string>();
  const visit = async (name: string) => {
    if (needed.has(name)) return;
    const dir = dirs.get(name)!;
    needed.set(name, dir);
    const manifest = JSON.parse(await readFile(join(repo, dir, 'package.json'), 'utf8'));
    for (const dep of Object.keys(manifest.dependencies ?? {})) {
      if (dirs.has(dep)) await visit(dep);
    }
  };
  await visit('chain-node');
  return needed;
}

describe('deploy/Dockerfile', () => {
  it('builds in one stage and runs as a non-root user on a data volume, checked through /health', async () => {
    const text = await deploy('Dockerfile');
    const stages = [...text.matchAll(/^FROM\s+\S+\s+AS\s+(\S+)/gim)].map((m) => m[1]);
    expect(stages).toEqual(['build', 'runtime']);
    const runtime = text.slice(text.search(/^FROM\s+\S+\s+AS\s+runtime/im));
    expect(runtime).toMatch(/^USER chain$/m);
    expect(runtime).toMatch(/useradd --system --uid 10001/);
    expect(runtime).toMatch(/^VOLUME \["\/data"\]$/m);
    expect(runtime).toMatch(/CHAIN_DATADIR=\/data/);
    expect(runtime).toMatch(/^HEALTHCHECK .*\n\s+CMD \["node", "-e", ".*\/health/m);
    expect(runtime).toMatch(/^ENTRYPOINT \["chain-node"\]$/m);
    // Only the build's output reaches the runtime stage, not the workspace.
    expect(runtime).not.toMatch(/^COPY (?!--from=build \/opt\/chain-node)/m);
  });

  it('packs exactly the workspace packages chain-node runs on', async () => {
    const text = await deploy('Dockerfile');
    const packed = [...text.matchAll(/--workspace (\S+)/g)].map((m) => m[1]).sort();
    expect(packed).toEqual([...(await runtimePackages()).values()].sort());
  });

  it("the health check's command exits 0 on 200 and 1 on 503 or no server", async () => {
    const text = await deploy('Dockerfile');
    const script = JSON.parse(/^\s+CMD (\["node", "-e", .*\])$/m.exec(text)![1]!)[2] as string;
    let status = 200;
    const paths: string[] = [];
    const server = createServer((request, response) => {
      paths.push(request.url ?? '');
      response.writeHead(status, { 'content-type': 'application/json' });
      response.end(status === 200 ? '{"status":"ok"}' : '{"status":"syncing"}');
    });
    await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
    const port = (server.address() as AddressInfo).port;
    // Asynchronous: the server answering it lives in this process.
    const check = () =>
      run(process.execPath, ['-e', script], {
        env: { ...process.env, CHAIN_RPC_PORT: String(port) },
        timeout: 10_000,
      }).then(
        () => 0,
        (error: { code?: number }) => error.code,
      );
    try {
      expect(await check()).toBe(0);
      status = 503;
      expect(await check()).toBe(1);
    } finally {
      server.closeAllConnections();
      await new Promise((done) => server.close(done));
    }
    expect(await check()).toBe(1);
    expect(paths).toEqual(['/health', '/health']);
  });
});

describe('deploy/docker-compose.yml', () => {
  it('runs 3 nodes of one devnet, each dialling the other two by their fixed addresses, and Prometheus', async () => {
    const compose = parse(await deploy('docker-compose.yml'), { merge: true });
    const nodes = ['node1', 'node2', 'node3'];
    const address = (name: string) => compose.services[name].networks.chain.ipv4_address;
    expect(compose.services.devnet.entrypoint.join(' ')).toContain(
      'chain-node devnet --nodes 3 --dir /devnet --prepare',
    );
    nodes.forEach((name, i) => {
      const service = compose.services[name];
      const line = service.entrypoint.join(' ');
      expect(line).toContain(`--datadir /devnet/${name}`);
      expect(line).toContain(`.nodes[${i}].producer`);
      const peers = /--peers "([^"]+)"/.exec(line)![1]!.split(';');
      expect(peers.sort()).toEqual(
        nodes
          .filter((other) => other !== name)
          .map((other) => `${address(other)}:9714`)
          .sort(),
      );
      expect(service.depends_on.devnet.condition).toBe('service_completed_successfully');
      expect(service.environment.CHAIN_GENESIS).toBe('/devnet/genesis.json');
    });
    expect(compose.services.prometheus.volumes).toContain(
      './prometheus.yml:/etc/prometheus/prometheus.yml:ro',
    );
  });
});

describe('deploy/chain-node.service', () => {
  it('is hardened and writes only to its data directory', async () => {
    const unit = await deploy('chain-node.service');
    for (const line of [
      'NoNewPrivileges=yes',
      'ProtectSystem=strict',
      'ProtectHome=yes',
      'PrivateTmp=yes',
      'CapabilityBoundingSet=',
      'User=chain',
    ]) {
      expect(unit).toMatch(new RegExp(`^${line}$`, 'm'));
    }
    const datadir = /^ExecStart=\S+ start --datadir (\S+)$/m.exec(unit)![1];
    expect(unit).toMatch(new RegExp(`^ReadWritePaths=${datadir}$`, 'm'));
    expect(unit).toMatch(/^StateDirectory=chain-node$/m);
    expect(datadir).toBe('/var/lib/chain-node');
  });

  const analyze = spawnSync('systemd-analyze', ['--version']).status === 0;
  it.skipIf(!analyze)('passes systemd-analyze verify without a warning', async () => {
    const unit = await deploy('chain-node.service');
    const dir = tmpdir();
    // Verify checks that ExecStart exists: the built binary stands in for the installed one.
    const file = join(dir, `chain-node-${process.pid}.service`);
    await writeFile(file, unit.replaceAll('/usr/local/bin/chain-node', CHAIN_NODE_BIN));
    const verified = await run('systemd-analyze', ['verify', file]);
    expect(verified.stderr + verified.stdout).toBe('');
    // The verifier does speak up on a broken unit (exit 0 all the same, hence the output check).
    const broken = join(dir, `chain-node-broken-${process.pid}.service`);
    await writeFile(
      broken,
      unit
        .replaceAll('/usr/local/bin/chain-node', CHAIN_NODE_BIN)
        .replace('NoNewPrivileges=yes', 'NoNewPrivileges=maybe'),
    );
    const refused = await run('systemd-analyze', ['verify', broken]);
    expect(refused.stderr).toContain('Failed to parse boolean value, ignoring: maybe');
  });
});
