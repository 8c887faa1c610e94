/**
 * What the SDK needs from a connection to the host, so that one lobby client
 * and one table session serve Node (gRPC, node.ts) and the browser (the
 * front door's web gateway over fetch and WebSocket, web.ts).
 */

/** gRPC status codes, as both transports report a call's end. */
export const Status = {
  OK: 0, CANCELLED: 1, UNKNOWN: 2, INVALID_ARGUMENT: 3, DEADLINE_EXCEEDED: 4, NOT_FOUND: 5, ALREADY_EXISTS: 6,
  PERMISSION_DENIED: 7, RESOURCE_EXHAUSTED: 8, FAILED_PRECONDITION: 9, ABORTED: 10, OUT_OF_RANGE: 11,
  UNIMPLEMENTED: 12, INTERNAL: 13, UNAVAILABLE: 14, DATA_LOSS: 15, UNAUTHENTICATED: 16,
} as const;

const NAMES = new Map(Object.entries(Status).map(([name, code]) => [code as number, name]));

export function statusName(code: number): string {
  return NAMES.get(code) ?? `STATUS_${code}`;
}

/** How a call or stream ended. */
export interface CallStatus {
  code: number;
  details: string;
}

/** A call the host refused or that failed on the way: its gRPC status. */
export class RpcError extends Error {
  constructor(readonly path: string, readonly code: number, readonly details: string) {
    super(`${path}: ${statusName(code)}: ${details}`);
  }
  get codeName(): string {
    return statusName(this.code);
  }
}

export interface StreamHandlers {
  message(bytes: Uint8Array): void;
  /** Called once, last: OK or the status the stream ended with. */
  end(status: CallStatus): void;
}

export interface OpenStream {
  /** Ends the call from this side (the handlers hear CANCELLED, or nothing if it had ended). */
  cancel(): void;
}

export interface TableStream extends OpenStream {
  send(bytes: Uint8Array): void;
  /** Half-closes: tells the room this client sends nothing more. */
  closeSend(): void;
}

export interface Transport {
  /** A unary call by full method path ("/tablehost.v1.Lobby/JoinQueue"), request and answer as message bytes. */
  unary(path: string, request: Uint8Array, options?: { timeoutMs?: number; signal?: AbortSignal }): Promise<Uint8Array>;
  /** A server-streaming call (WatchTournament). */
  serverStream(path: string, request: Uint8Array, handlers: StreamHandlers): OpenStream;
  /** A table's Play stream at the endpoint of its assignment. */
  openTable(endpoint: string, handlers: StreamHandlers): TableStream;
  close(): void;
}
