import { StreamState, YamuxStream } from '@chainsafe/libp2p-yamux/stream';

/** What the window update reads of a yamux stream (private fields of YamuxStream). */
interface WindowFields {
  state: StreamState;
  recvWindow: number;
  recvWindowCapacity: number;
  sendWindowUpdate(): void;
}

let installed = false;

/**
 * js-yamux (8.0) answers every data frame it reads with a window-update frame, so each gossip
 * message a peer sends costs two frames on the connection: two noise encryptions, two socket
 * writes, two reads and decryptions. go-yamux and rust-yamux grant credit once half the receive
 * window is consumed; this makes js-yamux do the same. A plain update (an established stream, no
 * flag to carry) waits until half the window was read: the sender then still has at least the other
 * half to send into, so it never waits for credit that would have come earlier. Updates that carry
 * a flag (the SYN or ACK of a new stream) go at once, as before.
 *
 * Installed once, on the prototype (the muxer builds its streams itself); both ends keep speaking
 * yamux as specified: fewer updates are a receiver's choice.
 */
export function grantYamuxWindowAtHalf(): void {
  if (installed) return;
  installed = true;
  const proto = YamuxStream.prototype as unknown as WindowFields;
  const sendEveryTime = proto.sendWindowUpdate;
  proto.sendWindowUpdate = function (this: WindowFields): void {
    if (
      this.state === StreamState.Established &&
      this.recvWindow - this.recvWindowCapacity < this.recvWindow / 2
    ) {
      return;
    }
    sendEveryTime.call(this);
  };
}
