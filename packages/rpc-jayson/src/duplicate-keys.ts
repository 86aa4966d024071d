/**
 * JSON.parse keeps only the last of repeated keys; the spec's blockchainStart example repeats `mine`
 * (first = mine wallet, second = share wallet). This re-reads the raw body with jsonc-parser to
 * recover every occurrence, in order.
 */
import type { Node as JsonNode } from 'jsonc-parser';
import { InvalidParamsError } from './errors.js';
import { exactNodeValue, type LazyTree, sameJsonValue } from './exact-json.js';

export { LazyTree } from './exact-json.js';

function propertyValue(object: JsonNode, key: string): JsonNode | undefined {
  let found: JsonNode | undefined;
  for (const property of object.children ?? []) {
    // JSON.parse keeps the last occurrence; so does this.
    if (property.children?.[0]?.value === key) found = property.children[1];
  }
  return found;
}

/**
 * Params with repeated keys spread over their names: the n-th occurrence of `key` fills the n-th
 * name of `duplicateKeys[key]`. A request that also names that param explicitly must give it the
 * same value, and a key may not repeat more often than it has names: either is a -32602 naming the
 * param, never a silent choice. `requestIndex` is the position in a batch, or undefined for a single
 * request.
 */
export function recoverDuplicateKeys(
  tree: LazyTree,
  requestIndex: number | undefined,
  duplicateKeys: Readonly<Record<string, readonly string[]>>,
  params: Record<string, unknown>,
): Record<string, unknown> {
  try {
    return recover(tree, requestIndex, duplicateKeys, params);
  } catch (error) {
    // A value nested too deeply for the recursive tree walk (JSON.parse took it): the params stay
    // as JSON.parse left them, and the coercion judges them. (Their numbers are exact: a body with
    // a number JSON.parse rounds was read from the tree already, or refused.)
    if (error instanceof RangeError) return params;
    throw error;
  }
}

function recover(
  tree: LazyTree,
  requestIndex: number | undefined,
  duplicateKeys: Readonly<Record<string, readonly string[]>>,
  params: Record<string, unknown>,
): Record<string, unknown> {
  const root = tree.root;
  const request = requestIndex === undefined ? root : root?.children?.[requestIndex];
  if (request?.type !== 'object') return params;
  const paramsNode = propertyValue(request, 'params');
  if (paramsNode?.type !== 'object') return params;
  let out = params;
  for (const key in duplicateKeys) {
    const names = duplicateKeys[key]!;
    const occurrences: JsonNode[] = [];
    for (const property of paramsNode.children ?? []) {
      if (property.children?.[0]?.value === key && property.children[1]) {
        occurrences.push(property.children[1]);
      }
    }
    if (occurrences.length < 2) continue;
    if (occurrences.length > names.length) {
      throw new InvalidParamsError(
        `parameter '${key}' is repeated ${occurrences.length} times; it may appear at most ${names.length} times (${names.join(', ')})`,
        key,
      );
    }
    if (out === params) out = { ...params };
    for (let i = 0; i < occurrences.length; i++) {
      const name = names[i]!;
      const value = exactNodeValue(occurrences[i]!, tree.text);
      if (i > 0 && name !== key && Object.hasOwn(params, name)) {
        if (!sameJsonValue(params[name], value)) {
          throw new InvalidParamsError(
            `parameter '${name}' is given twice with different values: as '${name}' and as the repeated '${key}'`,
            name,
          );
        }
        continue;
      }
      out[name] = value;
    }
  }
  return out;
}
