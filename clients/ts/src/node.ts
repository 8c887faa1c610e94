/**
 * The gRPC transport for Node (@grpc/grpc-js): the lobby and tournament calls
 * on one channel to the front door, and each table stream on a connection of
 * its own. grpc-js shares one connection between every client of one target
 * unless `grpc.use_local_subchannel_pool` is set, and a room takes at most 16
 * streams on one connection: without the option a process playing more seats
 * than that would see the 17th stream wait for another to end.
 */
import { createHash } from "node:crypto";

import * as grpc from "@grpc/grpc-js";

import { useSha256 } from "./codec.js";

import { CallStatus, OpenStream, RpcError, StreamHandlers, TableStream, Transport } from "./transport.js";

// Node's own SHA-256 for view hashes: the portable one costs the client more
// than anything else on a delta.
useSha256((bytes) => createHash("sha256").update(bytes).digest("hex"));

const identity = (bytes: Uint8Array): Buffer => Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
const raw = (bytes: Buffer): Uint8Array => new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength);

export interface GrpcOptions {
  /** PEM of the certificate authority for a host started with --tls-cert; plaintext without it. */
  tlsRootCert?: Uint8Array;
  /** A player token for a host that proves players (`authorization: Bearer TOKEN` on lobby calls). */
  playerToken?: string;
}

const KEEPALIVE = {
  // The host allows a ping every 10 s at most; 15 s with 5 s to answer ends a
  // silent connection within about 20 s, as the Python SDK does.
  "grpc.keepalive_time_ms": 15_000,
  "grpc.keepalive_timeout_ms": 5_000,
  "grpc.keepalive_permit_without_calls": 0,
};

export class GrpcTransport implements Transport {
  private readonly credentials: grpc.ChannelCredentials;
  private readonly lobby: grpc.Client;
  private readonly tables = new Set<grpc.Client>();

  constructor(readonly target: string, private readonly options: GrpcOptions = {}) {
    this.credentials = options.tlsRootCert
      ? grpc.credentials.createSsl(Buffer.from(options.tlsRootCert))
      : grpc.credentials.createInsecure();
    this.lobby = new grpc.Client(target, this.credentials, KEEPALIVE);
  }

  private metadata(): grpc.Metadata {
    const metadata = new grpc.Metadata();
    if (this.options.playerToken) metadata.set("authorization", `Bearer ${this.options.playerToken}`);
    return metadata;
  }

  unary(path: string, request: Uint8Array, options: { timeoutMs?: number; signal?: AbortSignal } = {}): Promise<Uint8Array> {
    return new Promise((resolve, reject) => {
      const callOptions: grpc.CallOptions = options.timeoutMs ? { deadline: Date.now() + options.timeoutMs } : {};
      const call = this.lobby.makeUnaryRequest(path, identity, raw, request, this.metadata(), callOptions,
        (error: grpc.ServiceError | null, answer?: Uint8Array) => {
          options.signal?.removeEventListener("abort", cancel);
          if (error) reject(new RpcError(path, error.code, error.details));
          else resolve(answer!);
        });
      const cancel = (): void => call.cancel();
      options.signal?.addEventListener("abort", cancel, { once: true });
    });
  }

  serverStream(path: string, request: Uint8Array, handlers: StreamHandlers): OpenStream {
    const call = this.lobby.makeServerStreamRequest(path, identity, raw, request, this.metadata());
    wire(call, handlers);
    return { cancel: () => call.cancel() };
  }

  openTable(endpoint: string, handlers: StreamHandlers): TableStream {
    const client = new grpc.Client(endpoint, this.credentials, { ...KEEPALIVE, "grpc.use_local_subchannel_pool": 1 });
    this.tables.add(client);
    const call = client.makeBidiStreamRequest("/tablehost.v1.Table/Play", identity, raw, new grpc.Metadata());
    wire(call, {
      message: handlers.message,
      end: (status) => {
        this.tables.delete(client);
        client.close();
        handlers.end(status);
      },
    });
    return {
      send: (bytes) => void call.write(bytes),
      closeSend: () => call.end(),
      cancel: () => call.cancel(),
    };
  }

  close(): void {
    this.lobby.close();
    for (const client of this.tables) client.close();
    this.tables.clear();
  }
}

function wire(call: grpc.ClientReadableStream<Uint8Array> | grpc.ClientDuplexStream<Uint8Array, Uint8Array>, handlers: StreamHandlers): void {
  let ended = false;
  const end = (status: CallStatus): void => {
    if (!ended) {
      ended = true;
      handlers.end(status);
    }
  };
  call.on("data", (bytes: Uint8Array) => handlers.message(bytes));
  // 'status' comes once the call is over, after every message was delivered.
  call.on("status", (status: grpc.StatusObject) => end({ code: status.code, details: status.details }));
  call.on("error", () => undefined); // the status event carries the same ending
}
