import { readFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type AnyParam, catalogue, METHOD_NAMES } from '@chain/rpc-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type NodeProcess, startNode } from './harness/node-process';
import { domainErrorRows } from './harness/rpc-error-rows';
import {
  EXAMPLE_NODE_ARGS,
  exampleKey,
  type RpcExample,
  runRpcExamples,
} from './harness/rpc-examples';
import {
  type DocumentedExample,
  GENERATE_COMMAND,
  parseDocumentedExamples,
  parseDocumentedParams,
  shapeDifferences,
} from './harness/rpc-reference';

// docs/rpc.md against a real node: every method is documented with the catalogue's params, and
// every documented example, replayed on a fresh node by the same session, still gets a reply of
// the documented shape (same keys and JSON types; errors with the same code and reason).
const RPC_REFERENCE = join(
  resolve(fileURLToPath(import.meta.url), '../../../..'),
  'docs',
  'rpc.md',
);
const REGENERATE = `docs/rpc.md is out of date; regenerate it: ${GENERATE_COMMAND}`;

let markdown: string;
let documented: Map<string, DocumentedExample>;
let node: NodeProcess;
let replayed: Map<string, RpcExample>;

beforeAll(async () => {
  markdown = await readFile(RPC_REFERENCE, 'utf8');
  documented = parseDocumentedExamples(markdown);
  node = await startNode({ args: EXAMPLE_NODE_ARGS });
  const examples = await runRpcExamples(node);
  replayed = new Map(examples.map((example) => [exampleKey(example), example]));
}, 90_000);

afterAll(async () => {
  await node?.stop();
});

describe('docs/rpc.md', () => {
  it('documents every method of the catalogue with its params', () => {
    const params = parseDocumentedParams(markdown);
    for (const name of METHOD_NAMES) {
      const spec = (catalogue as Record<string, { params: Record<string, AnyParam> }>)[name]!;
      expect(params.get(name), `${name} has no section`).toBeDefined();
      expect(params.get(name), `params of ${name}`).toEqual(Object.keys(spec.params));
      expect(documented.has(`${name}#0`), `${name} has no example`).toBe(true);
    }
  });

  it("lists each domain code's reasons as @chain/spec's tables give them", () => {
    const missing = domainErrorRows().filter((row) => !markdown.includes(`\n${row}\n`));
    expect(missing, REGENERATE).toEqual([]);
  });

  it('documents every example of the session, and no other', () => {
    expect([...documented.keys()].sort(), REGENERATE).toEqual([...replayed.keys()].sort());
  });

  it('has examples whose replies still have the shape of a real node', () => {
    const problems: string[] = [];
    for (const [key, doc] of documented) {
      const real = replayed.get(key);
      if (real === undefined) continue; // reported by the test above
      const request = shapeDifferences(doc.request, real.request, `${key} request`);
      const reply = shapeDifferences(doc.reply, real.reply, `${key} reply`);
      problems.push(...request, ...reply);
      if (doc.reply.error !== undefined && real.reply.error !== undefined) {
        const was = `${doc.reply.error.code} ${doc.reply.error.data?.reason}`;
        const now = `${real.reply.error.code} ${real.reply.error.data?.reason}`;
        if (was !== now) problems.push(`${key}: documented error ${was}, the node answered ${now}`);
      }
    }
    expect(problems, REGENERATE).toEqual([]);
  });

  it('shows real replies: a JSON-RPC 2.0 reply to each request, with its id as a string', () => {
    for (const [key, { request, reply }] of documented) {
      expect(reply.jsonrpc, key).toBe('2.0');
      expect(reply.id, key).toBe(String(request.id));
      expect('result' in reply !== 'error' in reply, key).toBe(true);
    }
  });
});
