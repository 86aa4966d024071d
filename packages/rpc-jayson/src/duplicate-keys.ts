/**
 * JSON.parse keeps only the last of repeated keys; the spec's blockchainStart example repeats `mine`
 * (first = mine wallet, second = share wallet). This re-reads the raw body with jsonc-parser to
 * recover every occurrence, in order.
 */
import { getNodeValue, type Node as JsonNode, parseTree } from 'jsonc-parser';

/** The syntax tree of a body JSON.parse accepted, parsed at most once per HTTP request. */
export class LazyTree {
  private tree: JsonNode | undefined;
  private parsed = false;

  constructor(private readonly body: string) {}

  get root(): JsonNode | undefined {
    if (!this.parsed) {
      this.parsed = true;
      try {
        this.tree = parseTree(this.body);
      } catch {
        // The tree parser recurses and overflows the stack on nesting that JSON.parse accepts;
        // such a body has no repeated keys to recover, and its params meet the coercion as parsed.
        this.tree = undefined;
      }
    }
    return this.tree;
  }
}

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
 * name of `duplicateKeys[key]`, unless the request also names that param explicitly.
 * `requestIndex` is the position in a batch, or undefined for a single request.
 */
export function recoverDuplicateKeys(
  tree: LazyTree,
  requestIndex: number | undefined,
  duplicateKeys: Readonly<Record<string, readonly string[]>>,
  params: Record<string, unknown>,
): Record<string, unknown> {
  try {
    return recover(tree, requestIndex, duplicateKeys, params);
  } catch {
    // A value nested too deeply for the recursive tree walk (JSON.parse took it): the params stay
    // as JSON.parse left them, and the coercion judges them.
    return params;
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
    if (out === params) out = { ...params };
    const count = Math.min(occurrences.length, names.length);
    for (let i = 0; i < count; i++) {
      const name = names[i]!;
      if (i > 0 && name !== key && Object.hasOwn(params, name)) continue;
      out[name] = getNodeValue(occurrences[i]!);
    }
  }
  return out;
}
