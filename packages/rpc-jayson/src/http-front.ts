/**
 * The HTTP front of the RPC port: per request, the access rules (Host, CORS preflight,
 * credentials), the GET route table, the POST limits (content type, calls in flight, body size),
 * then the body to the dispatcher and its reply back as JSON. It knows nothing of JSON-RPC beyond
 * the error bodies of its refusals.
 */
import type { IncomingMessage, OutgoingHttpHeaders, ServerResponse } from 'node:http';
import type { AccessRules, Refusal } from './access-rules.js';
import { ORIGIN_NOT_ALLOWED, refusalBody } from './access-rules.js';
import type { Dispatcher } from './dispatcher.js';
import { RpcErrorCode } from './errors.js';
import { isThenable } from './invoke-handler.js';
import type { GetRoute, Logger, RpcServerOptions } from './options.js';

const JSON_CONTENT_TYPE = /^application\/json\s*(;\s*charset="?utf-8"?\s*)?$/i;
const LARGE_BODY_CHARS = 4096;

type FrontConfig = Pick<
  RpcServerOptions,
  'maxBodyBytes' | 'maxConcurrent' | 'onGet' | 'getRoutes' | 'probeRoutes' | 'isLoopbackAddress'
>;

interface HttpFrontOptions {
  config: FrontConfig;
  access: AccessRules;
  dispatcher: Dispatcher;
  log?: Logger;
}

const NOT_POST: Refusal = {
  status: 405,
  code: RpcErrorCode.HTTP_METHOD_NOT_ALLOWED,
  reason: 'HTTP_METHOD_NOT_ALLOWED',
  message: 'JSON-RPC requests must use POST',
  headers: { allow: 'POST' },
};
const NOT_JSON: Refusal = {
  status: 415,
  code: RpcErrorCode.UNSUPPORTED_MEDIA_TYPE,
  reason: 'UNSUPPORTED_MEDIA_TYPE',
  message: 'Content-Type must be application/json',
};
const BUSY: Refusal = {
  status: 503,
  code: RpcErrorCode.BUSY,
  reason: 'BUSY',
  message: 'server busy: too many calls in flight',
  headers: { 'retry-after': '1' },
};
const INTERNAL: Refusal = {
  status: 500,
  code: RpcErrorCode.INTERNAL_ERROR,
  reason: 'INTERNAL_ERROR',
  message: 'Internal error',
};

/** The path of a request target, query dropped. */
function pathOf(target: string | undefined): string {
  if (target === undefined) return '/';
  const query = target.indexOf('?');
  return query === -1 ? target : target.slice(0, query);
}

/** The request listener of the node:http server. */
export function createHttpFront(
  options: HttpFrontOptions,
): (req: IncomingMessage, res: ServerResponse) => void {
  const { config, access, dispatcher, log } = options;
  const isLoopback = config.isLoopbackAddress;
  const routes = new Map<string, GetRoute>(Object.entries(config.getRoutes ?? {}));
  const probes = new Map<string, GetRoute>(Object.entries(config.probeRoutes ?? {}));
  let inFlight = 0;

  function sendJson(
    req: IncomingMessage,
    res: ServerResponse,
    status: number,
    body: string,
    close = false,
    extraHeaders?: OutgoingHttpHeaders,
  ): void {
    // A large body (a batch) is encoded once here instead of measured and then encoded again.
    const payload = body.length > LARGE_BODY_CHARS ? Buffer.from(body, 'utf8') : body;
    const headers: OutgoingHttpHeaders = {
      'content-type': 'application/json',
      'content-length': typeof payload === 'string' ? Buffer.byteLength(payload) : payload.length,
      ...extraHeaders,
    };
    const origin = req.headers.origin;
    if (access.originAllowed(origin)) {
      headers['access-control-allow-origin'] = origin;
      headers.vary = 'Origin';
      if (access.credentialsRequired) headers['access-control-allow-credentials'] = 'true';
    }
    if (close) headers.connection = 'close';
    res.writeHead(status, headers);
    res.end(payload);
  }

  /** An HTTP-level refusal with a JSON-RPC error body; the connection is closed (body unread). */
  function refuse(req: IncomingMessage, res: ServerResponse, refusal: Refusal): void {
    sendJson(req, res, refusal.status, refusalBody(refusal), true, refusal.headers);
  }

  function sendNoContent(req: IncomingMessage, res: ServerResponse): void {
    const origin = req.headers.origin;
    if (access.originAllowed(origin)) {
      res.writeHead(204, { 'access-control-allow-origin': origin, vary: 'Origin' });
    } else {
      res.writeHead(204);
    }
    res.end();
  }

  function reply(req: IncomingMessage, res: ServerResponse, text: string | undefined): void {
    if (text === undefined) sendNoContent(req, res);
    else sendJson(req, res, 200, text);
  }

  function preflight(req: IncomingMessage, res: ServerResponse): void {
    const origin = req.headers.origin;
    if (!access.originAllowed(origin)) {
      refuse(req, res, ORIGIN_NOT_ALLOWED);
      return;
    }
    const headers: OutgoingHttpHeaders = {
      'access-control-allow-origin': origin,
      'access-control-allow-methods': 'POST',
      'access-control-allow-headers': 'content-type, authorization',
      'access-control-max-age': '600',
      vary: 'Origin',
    };
    if (access.credentialsRequired) headers['access-control-allow-credentials'] = 'true';
    res.writeHead(204, headers);
    res.end();
  }

  function handleBody(req: IncomingMessage, res: ServerResponse, body: string): void {
    const remoteAddress = req.socket.remoteAddress ?? '';
    const text = dispatcher.handle(body, { remoteAddress, loopback: isLoopback(remoteAddress) });
    if (isThenable(text)) text.then((settled) => reply(req, res, settled));
    else reply(req, res, text);
  }

  function readBody(req: IncomingMessage, res: ServerResponse): void {
    const declared = req.headers['content-length'];
    if (declared !== undefined && Number(declared) > config.maxBodyBytes) {
      tooLarge(req, res);
      return;
    }
    inFlight++;
    let released = false;
    const release = () => {
      if (!released) {
        released = true;
        inFlight--;
      }
    };
    res.once('close', release);
    const chunks: Buffer[] = [];
    let size = 0;
    let overflowed = false;
    req.on('data', (chunk: Buffer) => {
      if (overflowed) return;
      size += chunk.length;
      if (size > config.maxBodyBytes) {
        overflowed = true;
        chunks.length = 0;
        tooLarge(req, res);
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => {
      if (overflowed) return;
      const body = (chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size)).toString(
        'utf8',
      );
      try {
        handleBody(req, res, body);
      } catch (err) {
        log?.error({ err }, 'RPC request failed');
        if (!res.headersSent) refuse(req, res, INTERNAL);
      }
    });
    req.on('error', release);
  }

  function tooLarge(req: IncomingMessage, res: ServerResponse): void {
    req.pause();
    const body = refusalBody({
      status: 413,
      code: RpcErrorCode.BODY_TOO_LARGE,
      reason: 'BODY_TOO_LARGE',
      message: `request body too large (limit ${config.maxBodyBytes} bytes)`,
    });
    res.writeHead(413, {
      'content-type': 'application/json',
      'content-length': Buffer.byteLength(body),
      connection: 'close',
    });
    // Stop reading at once: the rest of the body is never buffered.
    res.end(body, () => req.socket.destroy());
  }

  /** Failed credentials: answered late (slows guessing), unless the client left. */
  function refuseLater(req: IncomingMessage, res: ServerResponse, refusal: Refusal): void {
    const timer = setTimeout(() => refuse(req, res, refusal), refusal.delayMs);
    res.once('close', () => clearTimeout(timer));
  }

  /** A GET: a route of the table, else the `onGet` hook; true when answered. */
  function answerGet(req: IncomingMessage, res: ServerResponse): boolean {
    const route = routes.get(pathOf(req.url));
    if (route !== undefined) {
      route(req, res);
      return true;
    }
    return config.onGet?.(req, res) === true;
  }

  return function onRequest(req: IncomingMessage, res: ServerResponse): void {
    // Probes reveal nothing, so they answer whoever asks (docs/decisions.md).
    if (probes.size > 0 && req.method === 'GET') {
      const probe = probes.get(pathOf(req.url));
      if (probe !== undefined) {
        probe(req, res);
        return;
      }
    }
    const badHost = access.hostRefusal(req.headers.host);
    if (badHost !== undefined) {
      refuse(req, res, badHost);
      return;
    }
    // A preflight (OPTIONS with an Origin) is answered as such even when no origin is configured:
    // 403 ORIGIN_NOT_ALLOWED tells the browser's caller what is wrong, a 405 would not.
    if (req.method === 'OPTIONS' && (access.corsEnabled || req.headers.origin !== undefined)) {
      preflight(req, res);
      return;
    }
    const badCredentials = access.credentialsRefusal(req.headers.authorization);
    if (badCredentials !== undefined) {
      refuseLater(req, res, badCredentials);
      return;
    }
    if (req.method !== 'POST') {
      if (req.method === 'GET' && answerGet(req, res)) return;
      refuse(req, res, NOT_POST);
      return;
    }
    const contentType = req.headers['content-type'];
    if (contentType === undefined || !JSON_CONTENT_TYPE.test(contentType)) {
      refuse(req, res, NOT_JSON);
      return;
    }
    if (inFlight >= config.maxConcurrent) {
      refuse(req, res, BUSY);
      return;
    }
    readBody(req, res);
  };
}
