/**
 * rpc.discover: the OpenRPC 1.2 document of the API, generated from the method catalogue
 * (@chain/spec), so it never disagrees with what the dispatcher accepts. Params get JSON Schemas
 * from their kinds and bounds (as coercion.ts reads them), results a schema from the result's
 * documented name, errors the codes of @chain/spec's tables by what the params and result are, and
 * each method an example call built from its params.
 */
import {
  type AnyParam,
  catalogue,
  DOMAIN_ERROR_CODES,
  type JsonSchema,
  type MethodSpec,
  type OpenRpcDocument,
  type OpenRpcError,
  type OpenRpcExample,
  type OpenRpcMethod,
  PROTOCOL_ERRORS,
} from '@chain/spec';

/** The OpenRPC version the document follows. */
export const OPENRPC_VERSION = '1.2.6';

const WALLET_PATTERN = '^[A-Za-z]{2}[0-9a-fA-F]{46}$';
const EXAMPLE_WALLET = 'CH9902a8b44852846d33360cac3217328266b04e61ce12b1';
const SCALAR_SCHEMAS: Record<string, JsonSchema> = {
  integer: { type: 'integer' },
  boolean: { type: 'boolean' },
  string: { type: 'string' },
};
const SCALAR_EXAMPLES: Record<string, unknown> = { integer: 1, boolean: true, string: 'text' };

/** Results that are an operation the node accepted: they can fail the mempool's checks. */
const OPERATION_RESULTS = new Set([
  'OperationObject',
  'CreateTokenResult',
  'HardwareCheckResult',
  'ExecuteRawResult',
]);

function hexSchema(param: AnyParam): JsonSchema {
  const { exactBytes, maxBytes } = param.bounds;
  const pairs =
    exactBytes !== undefined ? `{${exactBytes}}` : maxBytes !== undefined ? `{0,${maxBytes}}` : '*';
  return { type: 'string', pattern: `^(?:0x)?(?:[0-9a-fA-F]{2})${pairs}$` };
}

/** The JSON Schema of what the server accepts for one param (coercion.ts's rules). */
export function paramSchema(param: AnyParam): JsonSchema {
  const { bounds } = param;
  let schema: JsonSchema;
  switch (param.kind) {
    case 'integer':
      // A safe integer, or a decimal string of one.
      schema = { type: ['integer', 'string'], pattern: '^-?[0-9]+$' };
      if (bounds.min !== undefined) schema.minimum = bounds.min;
      if (bounds.max !== undefined) schema.maximum = bounds.max;
      break;
    case 'boolean':
      schema = { enum: [true, false, 'true', 'false'] };
      break;
    case 'amount':
      // Stays exact: a decimal string (or a non-negative JSON number, read as written).
      schema = { type: ['string', 'number'], pattern: '^[0-9]+(?:\\.[0-9]+)?$', minimum: 0 };
      break;
    case 'hex':
      schema = hexSchema(param);
      break;
    case 'wallet':
      schema = {
        type: 'string',
        pattern: param.bounds.ethereum
          ? `${WALLET_PATTERN}|^(0x)?[0-9a-fA-F]{40}$`
          : WALLET_PATTERN,
      };
      break;
    case 'object':
      schema = { type: 'object' };
      break;
    case 'enum':
      schema = { type: 'string', enum: [...(bounds.values ?? [])] };
      break;
    default:
      schema = { type: 'string' };
      if (bounds.minLength !== undefined) schema.minLength = bounds.minLength;
      if (bounds.maxLength !== undefined) schema.maxLength = bounds.maxLength;
  }
  if (param.presence === 'defaulted') schema.default = param.defaultValue;
  if (param.isSecret) schema.writeOnly = true;
  return schema;
}

/** A value the server accepts for the param, for the method's example. */
function exampleValue(name: string, param: AnyParam): unknown {
  if (param.presence === 'defaulted') return param.defaultValue;
  const { bounds } = param;
  switch (param.kind) {
    case 'integer':
      return bounds.min ?? 0;
    case 'boolean':
      return true;
    case 'amount':
      return '1.5';
    case 'hex':
      return '00'.repeat(bounds.exactBytes ?? Math.min(bounds.maxBytes ?? 4, 4));
    case 'wallet':
      return EXAMPLE_WALLET;
    case 'object':
      return {};
    case 'enum':
      return bounds.values?.[0] ?? '';
    default:
      return param.isSecret ? 'correct horse' : name === 'ip' ? '127.0.0.1' : 'text';
  }
}

/** The schema of a result by its documented name: `T`, `T[]` or `A | B`. */
function resultSchema(name: string, schemas: Record<string, JsonSchema>): JsonSchema {
  const alternatives = name.split(' | ');
  if (alternatives.length > 1) {
    return { oneOf: alternatives.map((alternative) => resultSchema(alternative, schemas)) };
  }
  if (name.endsWith('[]'))
    return { type: 'array', items: resultSchema(name.slice(0, -2), schemas) };
  const scalar = SCALAR_SCHEMAS[name];
  if (scalar !== undefined) return { ...scalar };
  schemas[name] ??= {
    title: name,
    type: 'object',
    description: `The ${name} object: its fields are listed in docs/rpc.md.`,
  };
  return { $ref: `#/components/schemas/${name}` };
}

function methodResultSchema(spec: MethodSpec, schemas: Record<string, JsonSchema>): JsonSchema {
  const schema = resultSchema(spec.result.name, schemas);
  if (!spec.nestedResult) return schema;
  return {
    type: 'object',
    required: ['result', 'id', 'jsonrpc'],
    properties: { result: schema, id: { type: 'integer' }, jsonrpc: { const: '2.0' } },
  };
}

function protocolError(reason: keyof typeof PROTOCOL_ERRORS): OpenRpcError {
  const { code, when } = PROTOCOL_ERRORS[reason];
  return { code, message: when, data: { reason } };
}

function domainError(reason: keyof typeof DOMAIN_ERROR_CODES, when: string): OpenRpcError {
  return { code: DOMAIN_ERROR_CODES[reason], message: when, data: { reason } };
}

/** The errors a method can answer, by what its params and result are (as docs/rpc.md lists them). */
function methodErrors(spec: MethodSpec): OpenRpcError[] {
  const params = Object.entries(spec.params);
  const has = (test: (param: AnyParam, key: string) => boolean) =>
    params.some(([key, param]) => test(param, key));
  const producesOperation = OPERATION_RESULTS.has(spec.result.name);
  const errors: OpenRpcError[] = [];
  if (params.length > 0) errors.push(protocolError('INVALID_PARAMS'));
  if (spec.keyMaterial) errors.push(protocolError('KEYS_NOT_ALLOWED'));
  if (has((param) => param.kind === 'wallet')) {
    errors.push(
      domainError('INVALID_ACCOUNT', 'an address malformed, of another network or unknown'),
    );
  }
  if (has((param, key) => param.isSecret && key !== 'priv' && key !== 'private')) {
    errors.push(
      domainError('NOT_FOUND', 'the wallet is not in the key store'),
      domainError('WALLET_LOCKED', 'the wallet is locked'),
      domainError('WRONG_PASSPHRASE', 'wrong passphrase'),
      domainError('TOO_MANY_ATTEMPTS', 'too many passphrase checks waiting: retry later'),
    );
  }
  if (has((param) => param.kind === 'amount')) {
    errors.push(domainError('INVALID_AMOUNT', 'malformed, too precise or too large amount'));
  }
  if (has((_param, key) => key === 'block'))
    errors.push(domainError('INVALID_BLOCK', 'no such block'));
  if (producesOperation) {
    errors.push(
      domainError('INSUFFICIENT_FUNDS', 'not enough spendable balance for amount and fee'),
      domainError('INACTIVE_ACCOUNT', 'the signer is not an active wallet'),
      domainError('DUPLICATE_OPERATION', 'the same operation again'),
      domainError('MEMPOOL_FULL', 'the mempool is full: retry after the next block'),
    );
    if (spec.group === 'token') errors.push(domainError('TOKEN_RULE', 'a token rule'));
  }
  if (spec.group === 'participation') {
    errors.push(domainError('PARTICIPATION_RULE', 'a rule of the participation procedure'));
  }
  if (has((_param, key) => key === 'ip' || key === 'nodes')) {
    errors.push(domainError('INVALID_DATA', 'not an IP address or ip:port'));
  }
  errors.push(protocolError('INTERNAL_ERROR'));
  return errors;
}

function methodExample(spec: MethodSpec): OpenRpcExample {
  const example: OpenRpcExample = {
    name: `${spec.name} example`,
    params: Object.entries(spec.params).map(([name, param]) => ({
      name,
      value: exampleValue(name, param),
    })),
  };
  const scalar = SCALAR_EXAMPLES[spec.result.name];
  if (scalar !== undefined) example.result = { name: 'result', value: scalar };
  return example;
}

function describeMethod(spec: MethodSpec, schemas: Record<string, JsonSchema>): OpenRpcMethod {
  const notes = [
    spec.readOnly ? 'Read-only: safe to retry.' : 'Changes state: not safe to retry blindly.',
    spec.keyMaterial ? 'Carries private keys: refused off loopback unless keys are allowed.' : '',
    spec.nestedResult
      ? 'The reply\'s result is { "result": <value>, "id", "jsonrpc": "2.0" }.'
      : '',
  ].filter(Boolean);
  return {
    name: spec.name,
    summary: spec.summary,
    description: notes.join(' '),
    tags: [{ name: spec.group }],
    paramStructure: 'either',
    params: Object.entries(spec.params).map(([name, param]) => ({
      name,
      required: param.presence === 'required',
      ...(param.isSecret ? { description: 'secret: never logged' } : {}),
      schema: paramSchema(param),
    })),
    result: { name: spec.result.name, schema: methodResultSchema(spec, schemas) },
    errors: methodErrors(spec),
    examples: [methodExample(spec)],
  };
}

/** The whole document, every catalogue method in catalogue order. */
export function openRpcDocument(version: string): OpenRpcDocument {
  const schemas: Record<string, JsonSchema> = {};
  const methods = Object.values(catalogue as Record<string, MethodSpec>).map((spec) =>
    describeMethod(spec, schemas),
  );
  return {
    openrpc: OPENRPC_VERSION,
    info: {
      title: 'chain-node JSON-RPC',
      version,
      description:
        'JSON-RPC 2.0 over HTTP POST. Error replies carry data.reason (and data.param for a bad param).',
    },
    methods,
    components: { schemas },
  };
}
