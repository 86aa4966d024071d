import net from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { createRelay, type Relay } from './relay';

// The relay on loopback (127/8 is all local on Linux): node i at 127.0.60.(10+i), its relay
// address 127.0.60.(100+i).
const nodeAddress = (i: number) => `127.0.60.${10 + i}`;
const relayAddress = (i: number) => `127.0.60.${100 + i}`;

const closers: Array<() => Promise<void>> = [];
afterEach(async () => {
  while (closers.length > 0) await closers.pop()!();
});

async function startRelay(port: number): Promise<Relay> {
  const relay = createRelay({
    nodes: [1, 2, 3],
    port,
    nodeAddress,
    relayAddress,
    delay: { latencyMs: 5, jitterMs: 5 },
  });
  await relay.start();
  closers.push(() => relay.close());
  return relay;
}

/** An echo server as node 2, on a free port; resolves with the port. */
async function echoNode(): Promise<number> {
  const sockets = new Set<net.Socket>();
  const server = net.createServer((socket) => {
    sockets.add(socket);
    socket.on('error', () => undefined);
    socket.pipe(socket);
  });
  await new Promise<void>((resolve) => server.listen(0, nodeAddress(2), resolve));
  closers.push(async () => {
    for (const socket of sockets) socket.destroy();
    await new Promise((resolve) => server.close(resolve));
  });
  return (server.address() as net.AddressInfo).port;
}

/** Node 1 dials node 2 through the relay; resolves once connected. */
async function dialThroughRelay(port: number): Promise<net.Socket> {
  const socket = net.connect({ host: relayAddress(2), port, localAddress: nodeAddress(1) });
  closers.push(async () => {
    socket.destroy();
  });
  await new Promise<void>((resolve, reject) => {
    socket.once('connect', resolve);
    socket.once('error', reject);
  });
  return socket;
}

async function readAll(socket: net.Socket, bytes: number): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let got = 0;
  return new Promise((resolve, reject) => {
    socket.on('data', (chunk: Buffer) => {
      chunks.push(chunk);
      got += chunk.length;
      if (got >= bytes) resolve(Buffer.concat(chunks));
    });
    socket.once('close', () => reject(new Error(`closed after ${got} of ${bytes} bytes`)));
  });
}

describe('the delay relay', () => {
  it('carries a stream both ways in order despite jitter', async () => {
    const port = await echoNode();
    await startRelay(port);
    const socket = await dialThroughRelay(port);
    // Many small writes, each delayed by its own jittered amount: order must hold.
    const sent = Buffer.from(Array.from({ length: 2000 }, (_, i) => i % 251));
    const echoed = readAll(socket, sent.length);
    for (let i = 0; i < sent.length; i += 10) {
      socket.write(sent.subarray(i, i + 10));
      if (i % 200 === 0) await new Promise((r) => setImmediate(r));
    }
    expect((await echoed).equals(sent)).toBe(true);
  });

  it('cuts links across a partition, refuses new ones, and carries them again once healed', async () => {
    const port = await echoNode();
    const relay = await startRelay(port);
    const open = await dialThroughRelay(port);
    const closed = new Promise((resolve) => open.once('close', resolve));
    relay.partition([[1], [2, 3]]);
    await closed;
    // A new connection is accepted by the relay's listener and closed at once.
    const refused = await dialThroughRelay(port);
    await expect(readAll(refused, 1)).rejects.toThrow(/closed after 0/);
    expect(relay.stats().refused).toBeGreaterThanOrEqual(1);
    relay.heal();
    const again = await dialThroughRelay(port);
    const echoed = readAll(again, 5);
    again.write('hello');
    expect((await echoed).toString()).toBe('hello');
  });

  it('lists a link once the dialled node answered on it, and no more once it is cut', async () => {
    const port = await echoNode();
    const relay = await startRelay(port);
    const socket = await dialThroughRelay(port);
    // Connected, but node 2 has sent nothing yet: not a link the lab counts.
    expect(relay.links()).toEqual([]);
    const echoed = readAll(socket, 2);
    socket.write('hi');
    await echoed;
    expect(relay.links()).toEqual([{ from: 1, to: 2 }]);
    const closed = new Promise((resolve) => socket.once('close', resolve));
    relay.partition([[1], [2, 3]]);
    await closed;
    expect(relay.links()).toEqual([]);
  });
});
