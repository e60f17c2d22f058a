// When a client closes the server's input right after its last request (a script piping requests
// in, a client shutting down), the requests already read must still be answered before the server
// ends. This counts the requests the transport has received and not yet answered, and says when
// the last one has been.
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';

interface Transport {
  onmessage?: (message: JSONRPCMessage, extra?: never) => void;
  send(message: JSONRPCMessage, options?: unknown): Promise<void>;
}

const isRequest = (m: JSONRPCMessage): m is JSONRPCMessage & { id: string | number; method: string } => 'id' in m && 'method' in m;
const isResponse = (m: JSONRPCMessage): m is JSONRPCMessage & { id: string | number } => 'id' in m && !('method' in m);

/** Watches a connected transport; `drained()` resolves once every request received so far has its answer sent. */
export function watchRequests(transport: Transport): { drained: () => Promise<void> } {
  const open = new Set<string | number>();
  let wake: (() => void) | undefined;
  const received = transport.onmessage;
  transport.onmessage = (message, extra) => {
    if (isRequest(message)) open.add(message.id);
    received?.(message, extra);
  };
  const send = transport.send.bind(transport);
  transport.send = async (message, options) => {
    try {
      await send(message, options);
    } finally {
      if (isResponse(message)) open.delete(message.id);
      if (open.size === 0) wake?.();
    }
  };
  return {
    drained: () =>
      open.size === 0
        ? Promise.resolve()
        : new Promise<void>((resolve) => {
            wake = resolve;
          }),
  };
}
