import { catalogue, METHOD_NAMES, type MethodSpec, type OpenRpcDocument } from '@chain/spec';
import jsonSchemaMetaSchema from '@json-schema-tools/meta-schema';
import metaSchema from '@open-rpc/meta-schema';
import { Ajv } from 'ajv';
import { afterEach, describe, expect, it } from 'vitest';
import { coerceParams, compileParamTable } from './coercion.js';
import { startTestServer, type TestServer } from './test-server.js';

let running: TestServer | undefined;
afterEach(async () => {
  await running?.server.close();
  running = undefined;
});

async function discover(): Promise<OpenRpcDocument> {
  running = await startTestServer({ apiVersion: '1.2.3' });
  const reply = await running.call('rpc.discover');
  expect(reply.error).toBeUndefined();
  return reply.result as OpenRpcDocument;
}

/**
 * Ajv (draft-07, as OpenRPC's meta-schema is written) with the JSON Schema meta-schema that
 * OpenRPC's refers to (https://meta.json-schema.tools) loaded from its package: nothing fetched.
 */
function offlineAjv(): Ajv {
  const ajv = new Ajv({ strict: false, allErrors: true, validateSchema: false });
  // Referred to both with and without the trailing slash of its $id.
  const { $id, ...withoutId } = jsonSchemaMetaSchema as { $id: string };
  ajv.addSchema(withoutId, $id);
  ajv.addSchema(withoutId, $id.replace(/\/$/, ''));
  for (const format of ['uri-reference', 'uri', 'email', 'regex']) ajv.addFormat(format, true);
  return ajv;
}

describe('rpc.discover', () => {
  it('answers an OpenRPC 1.2 document that the official meta-schema accepts', async () => {
    const document = await discover();
    expect(document.openrpc).toMatch(/^1\.2\.\d+$/);
    expect(document.info.version).toBe('1.2.3');
    const validate = offlineAjv().compile(metaSchema as object);
    const valid = validate(document);
    expect(validate.errors ?? [], JSON.stringify(validate.errors?.slice(0, 3))).toEqual([]);
    expect(valid).toBe(true);
    // The validator does refuse a broken document.
    const broken = structuredClone(document) as unknown as { methods: Record<string, unknown>[] };
    delete broken.methods[0]!.name;
    expect(validate(broken)).toBe(false);
    const badParam = structuredClone(document);
    (badParam.methods[0]!.params[0]!.schema as Record<string, unknown>).type = 'no-such-type';
    expect(validate(badParam)).toBe(false);
  });

  it('describes every catalogue method with its params, result, errors and an example', async () => {
    const document = await discover();
    expect(document.methods.map((method) => method.name)).toEqual([...METHOD_NAMES]);
    for (const method of document.methods) {
      const spec: MethodSpec = catalogue[method.name as keyof typeof catalogue];
      expect(method.summary).toBe(spec.summary);
      expect(
        method.params.map((param) => [param.name, param.required]),
        method.name,
      ).toEqual(
        Object.entries(spec.params).map(([name, param]) => [name, param.presence === 'required']),
      );
      expect(method.result.name).toBe(spec.result.name);
      expect(method.examples.length).toBeGreaterThan(0);
      for (const error of method.errors) expect(Number.isInteger(error.code)).toBe(true);
    }
    const sendTo = document.methods.find((method) => method.name === 'sendTo')!;
    expect(sendTo.errors.map((error) => error.code)).toEqual(
      expect.arrayContaining([-32602, 1002, 1030, 1031, 1034]),
    );
    expect(sendTo.params.find((param) => param.name === 'passphrase')?.schema.writeOnly).toBe(true);
    for (const ref of JSON.stringify(document).matchAll(/"#\/components\/schemas\/([^"]+)"/g)) {
      expect(document.components.schemas[ref[1]!], ref[1]).toBeDefined();
    }
  });

  it("gives schemas that hold the examples, and examples that the server's coercion accepts", async () => {
    const document = await discover();
    const ajv = offlineAjv();
    for (const method of document.methods) {
      const spec: MethodSpec = catalogue[method.name as keyof typeof catalogue];
      const table = compileParamTable(spec);
      for (const example of method.examples) {
        const byName = Object.fromEntries(example.params.map((param) => [param.name, param.value]));
        for (const param of method.params) {
          const value = byName[param.name];
          if (value === undefined) continue;
          const validate = ajv.compile(param.schema);
          expect(validate(value), `${method.name}.${param.name} = ${JSON.stringify(value)}`).toBe(
            true,
          );
        }
        expect(() => coerceParams(table, byName), method.name).not.toThrow();
      }
    }
  });

  it('has schemas that refuse what coercion refuses', async () => {
    const document = await discover();
    const ajv = offlineAjv();
    const schemaOf = (method: string, param: string) =>
      ajv.compile(
        document.methods
          .find((entry) => entry.name === method)!
          .params.find((entry) => entry.name === param)!.schema,
      );
    expect(schemaOf('getWalletInfo', 'wallet')('CH12')).toBe(false);
    expect(schemaOf('findOperation', 'ophash')('ab')).toBe(false);
    expect(schemaOf('findOperation', 'ophash')('ab'.repeat(32))).toBe(true);
    expect(schemaOf('getBlockInfo', 'block')(-1)).toBe(false);
    expect(schemaOf('createToken', 'decimal')(19)).toBe(false);
    expect(schemaOf('adminToken', 'method')('nope')).toBe(false);
  });
});
