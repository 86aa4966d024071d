/**
 * The delay relay's own process (relay-control.ts starts it with its plan as argv[2] and drives it
 * over the IPC channel): the lab's process is busy with RPC load and bookkeeping, and a stall there
 * must not delay the links.
 */
import { nodeAddress, relayAddress } from './netns';
import { createRelay } from './relay';
import { applyCommand, lagMeter, type RelayCommand, type RelayPlan } from './relay-control';

const plan = JSON.parse(process.argv[2]!) as RelayPlan;
const relay = createRelay({ ...plan, nodeAddress, relayAddress });
const lag = lagMeter();

process.on('message', (message: { id: number; command: RelayCommand }) => {
  applyCommand(relay, lag, message.command).then(
    (result) => process.send?.({ id: message.id, result: result ?? null }),
    (error: Error) => process.send?.({ id: message.id, error: error.message }),
  );
});
// The lab gone (crashed, killed): nothing to relay for.
process.on('disconnect', () => {
  void relay.close().finally(() => process.exit(0));
});
