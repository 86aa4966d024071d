// The fixture's worker entry: a worker thread does not inherit the parent's tsx loader.
import { register } from 'tsx/esm/api';

register();
await import('./heap-budget-fixture.ts');
