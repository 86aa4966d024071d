import { readFile } from 'node:fs/promises';
import { createDevGenesis, type Genesis, parseGenesis } from '@chain/ledger';
import type { NodeOptions } from './options';

/** The genesis of `--genesis FILE`, or the embedded dev network's without one. */
export async function loadGenesis(options: Pick<NodeOptions, 'genesis'>): Promise<Genesis> {
  if (!options.genesis) return createDevGenesis();
  return parseGenesis(JSON.parse(await readFile(options.genesis, 'utf8')));
}
