/**
 * The browser's transport: the front door's web gateway (`tablehost serve
 * --web-port`, docs/protocol.md "Browsers"). Browsers cannot open a
 * bidirectional gRPC stream, so the gateway carries the same messages another
 * way: a unary call is an HTTP POST of the request's protobuf bytes to
 * `/v1/rpc/<service>/<method>`, and a stream (a table's Play, WatchTournament)
 * is a WebSocket at `/v1/stream/<service>/<method>` whose binary frames are
 * the messages each way and whose last frame, a text one, is the status the
 * call ended with: `{"code", "details"}`. The gateway relays each to the
 * host's own gRPC services, so tokens, bounds and rate limits are the same.
 */
import { CallStatus, OpenStream, RpcError, Status, StreamHandlers, TableStream, Transport } from "./transport.js";

export interface WebOptions {
  /** A player token for a host that proves players: the `Authorization` header of each call. */
  playerToken?: string;
  /** The WebSocket class (the browser's by default; Node 20 has one behind --experimental-websocket). */
  WebSocket?: typeof WebSocket;
}

export class WebTransport implements Transport {
  private readonly sockets = new Set<WebSocket>();
  private readonly socketClass: typeof WebSocket;

  /** `base`: the gateway's origin, e.g. "http://127.0.0.1:50054" (in the page it serves: location.origin). */
  constructor(readonly base: string, private readonly options: WebOptions = {}) {
    this.socketClass = options.WebSocket ?? globalThis.WebSocket;
  }

  async unary(path: string, request: Uint8Array, options: { timeoutMs?: number; signal?: AbortSignal } = {}): Promise<Uint8Array> {
    const signals = [options.signal, options.timeoutMs ? AbortSignal.timeout(options.timeoutMs) : undefined].filter((s) => s !== undefined);
    const headers: Record<string, string> = { "content-type": "application/x-protobuf" };
    if (this.options.playerToken) headers["authorization"] = `Bearer ${this.options.playerToken}`;
    let response: Response;
    try {
      response = await fetch(`${this.base}/v1/rpc${path}`, {
        method: "POST", body: request as Uint8Array<ArrayBuffer>, headers, signal: signals.length > 0 ? AbortSignal.any(signals) : undefined,
      });
    } catch (error) {
      const aborted = options.signal?.aborted === true;
      throw new RpcError(path, aborted ? Status.CANCELLED : Status.UNAVAILABLE, String(error));
    }
    const body = new Uint8Array(await response.arrayBuffer());
    if (response.ok) return body;
    let status: CallStatus = { code: Status.UNKNOWN, details: `HTTP ${response.status}` };
    try {
      status = JSON.parse(new TextDecoder().decode(body)) as CallStatus;
    } catch {
      // not the gateway's answer (a proxy's page): keep the HTTP status
    }
    throw new RpcError(path, status.code, status.details);
  }

  private socket(path: string, handlers: StreamHandlers, first?: Uint8Array): WebSocket {
    const url = `${this.base.replace(/^http/, "ws")}/v1/stream${path}`;
    const socket = new this.socketClass(url);
    socket.binaryType = "arraybuffer";
    this.sockets.add(socket);
    let ended = false;
    const end = (status: CallStatus): void => {
      if (ended) return;
      ended = true;
      this.sockets.delete(socket);
      handlers.end(status);
    };
    socket.onopen = () => {
      if (this.options.playerToken) socket.send(JSON.stringify({ authorization: `Bearer ${this.options.playerToken}` }));
      if (first !== undefined) socket.send(first);
    };
    socket.onmessage = (event: MessageEvent) => {
      if (typeof event.data === "string") {
        end(JSON.parse(event.data) as CallStatus);
        socket.close();
      } else handlers.message(new Uint8Array(event.data as ArrayBuffer));
    };
    socket.onclose = (event: CloseEvent) => end({ code: Status.UNAVAILABLE, details: `the gateway closed the connection (${event.code} ${event.reason})` });
    return socket;
  }

  serverStream(path: string, request: Uint8Array, handlers: StreamHandlers): OpenStream {
    const socket = this.socket(path, handlers, request);
    return { cancel: () => socket.close() };
  }

  openTable(_endpoint: string, handlers: StreamHandlers): TableStream {
    // The gateway finds the table's room from the seat token in the hello.
    const queued: Uint8Array[] = [];
    const socket = this.socket("/tablehost.v1.Table/Play", handlers);
    const previous = socket.onopen;
    socket.onopen = (event) => {
      previous?.call(socket, event);
      for (const bytes of queued.splice(0)) socket.send(bytes);
    };
    return {
      send: (bytes) => {
        if (socket.readyState === socket.CONNECTING) queued.push(bytes);
        else if (socket.readyState === socket.OPEN) socket.send(bytes);
      },
      closeSend: () => {
        if (socket.readyState === socket.OPEN) socket.send(JSON.stringify({ half_close: true }));
      },
      cancel: () => socket.close(),
    };
  }

  close(): void {
    for (const socket of this.sockets) socket.close();
    this.sockets.clear();
  }
}
