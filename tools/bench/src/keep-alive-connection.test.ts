import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openKeepAliveConnection, parseReply } from './keep-alive-connection.js';

describe('parseReply', () => {
  const reply = (text: string) => Buffer.from(text, 'latin1');

  it('waits for the whole body and reports how many bytes the reply took', () => {
    const full =
      'HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 7\r\n\r\n{"a":1}';
    expect(parseReply(reply(full.slice(0, 20)))).toBeUndefined();
    expect(parseReply(reply(full.slice(0, -1)))).toBeUndefined();
    expect(parseReply(reply(`${full}HTTP/1.1`))).toEqual({
      reply: { status: 200, body: '{"a":1}', close: false },
      length: full.length,
    });
  });

  it('reads header names in any case, a 204 without a body and Connection: close', () => {
    const noContent = 'HTTP/1.1 204 No Content\r\nconnection: close\r\n\r\n';
    expect(parseReply(reply(noContent))).toEqual({
      reply: { status: 204, body: '', close: true },
      length: noContent.length,
    });
    expect(parseReply(reply('HTTP/1.1 413 X\r\ncontent-length: 2\r\n\r\nno'))?.reply.status).toBe(
      413,
    );
  });

  it('refuses what it cannot frame', () => {
    expect(() =>
      parseReply(reply('HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n')),
    ).toThrow('chunked');
    expect(() => parseReply(reply('HTTP/1.1 200 OK\r\n\r\n'))).toThrow('without content-length');
    expect(() => parseReply(reply('SSH-2.0-OpenSSH\r\n\r\n'))).toThrow('not an HTTP/1.x reply');
  });
});

describe('openKeepAliveConnection', () => {
  let server: Server;
  let url: string;
  const sockets = new Set<unknown>();
  let closeAfter = Number.POSITIVE_INFINITY;
  let served = 0;
  beforeAll(async () => {
    server = createServer((request, response) => {
      sockets.add(request.socket);
      let body = '';
      request.setEncoding('utf8');
      request.on('data', (chunk: string) => {
        body += chunk;
      });
      request.on('end', () => {
        served++;
        const text = JSON.stringify({
          echo: body,
          type: request.headers['content-type'],
          path: request.url,
        });
        response.writeHead(200, {
          'content-type': 'application/json',
          'content-length': Buffer.byteLength(text),
          ...(served >= closeAfter ? { connection: 'close' } : {}),
        });
        response.end(text);
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/rpc`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  it('posts JSON bodies one after another over one socket', async () => {
    sockets.clear();
    const connection = await openKeepAliveConnection(url);
    const first = await connection.post('{"n":"é"}');
    const second = await connection.post('{"n":2}');
    connection.close();

    expect(JSON.parse(first.body)).toEqual({
      echo: '{"n":"é"}',
      type: 'application/json',
      path: '/rpc',
    });
    expect(JSON.parse(second.body).echo).toBe('{"n":2}');
    expect(sockets.size).toBe(1);
    expect(connection.usable).toBe(false);
    await expect(connection.post('{}')).rejects.toThrow('closed');
  });

  it('becomes unusable when the server closes the connection after a reply', async () => {
    served = 0;
    closeAfter = 1;
    const connection = await openKeepAliveConnection(url);
    const reply = await connection.post('{}');
    closeAfter = Number.POSITIVE_INFINITY;

    expect(reply.close).toBe(true);
    expect(connection.usable).toBe(false);
  });

  it('refuses a second request while one is in flight', async () => {
    const connection = await openKeepAliveConnection(url);
    const first = connection.post('{}');
    await expect(connection.post('{}')).rejects.toThrow('one request at a time');
    await first;
    connection.close();
  });
});
