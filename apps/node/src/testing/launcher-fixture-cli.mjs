// The stand-in CLI's entry: a worker thread does not inherit the parent's tsx loader.
import { register } from 'tsx/esm/api';

register();
await import('./launcher-fixture-cli.ts');
