/**
 * `@chain/p2p-libp2p/testing`: a peer driven by hand (plain libp2p, none of this package's rules),
 * for tools that need a hostile peer outside this package's tests (the network lab).
 */

export { forgeServedSnapshots } from './forged-snapshots';
export {
  blocksTopic,
  type HostileHost,
  helloFor,
  openHostileHost,
  opsTopic,
  sayHello,
} from './hostile-peer';
