// The session's recovery paths, against a scripted room (an in-memory
// Transport that answers as docs/protocol.md section 2 says a room does):
// a delta that does not apply is acked with a hash that is not the host's
// and the snapshot that answers it repairs the view; a gap reopens the
// stream from the last seq; the endings that must not be retried are not.
import assert from "node:assert/strict";
import { test } from "node:test";

import {
  ClientMessage, ClosedByAdministrator, decodeMessage, encode, encodeMessage, LobbyClient, Status, StreamHandlers,
  StreamReplaced, TableAssignment, TableSession, TableStream, Transport, Value, View, viewHash, wireMap,
} from "../src/index.js";

class ScriptedRoom implements Transport {
  streams: { handlers: StreamHandlers; sent: ClientMessage[]; closed: boolean }[] = [];
  onHello: (room: ScriptedRoom, lastSeq: number) => void = () => undefined;

  unary(): Promise<Uint8Array> {
    return Promise.reject(new Error("no lobby in this test"));
  }
  serverStream(): never {
    throw new Error("no lobby in this test");
  }
  openTable(_endpoint: string, handlers: StreamHandlers): TableStream {
    const stream = { handlers, sent: [] as ClientMessage[], closed: false };
    this.streams.push(stream);
    return {
      send: (bytes) => {
        const message = decodeMessage<ClientMessage & { kind?: string }>("ClientMessage", bytes);
        stream.sent.push(message);
        if ("hello" in message && message.hello) this.onHello(this, message.hello.last_seq);
      },
      closeSend: () => (stream.closed = true),
      cancel: () => (stream.closed = true),
    };
  }
  close(): void {}

  get current() {
    return this.streams[this.streams.length - 1]!;
  }
  snapshot(seq: number, view: View): void {
    this.current.handlers.message(encodeMessage("ServerMessage", {
      snapshot: { seq, view: encode(view), view_hash: viewHash(view), seat: 0, table_id: "t-1" },
    }));
  }
  delta(seq: number, ops: Value, after: View): void {
    this.current.handlers.message(encodeMessage("ServerMessage", {
      delta: { seq, act_id: "", delta: encode(ops), view_hash: viewHash(after), automatic: false },
    }));
  }
  end(code: number, details: string): void {
    this.current.handlers.end({ code, details });
  }
  acks(): { seq: number; view_hash: string }[] {
    return this.streams.flatMap((s) => s.sent.flatMap((m) => ("ack" in m && m.ack ? [m.ack] : [])));
  }
}

const ASSIGNMENT: TableAssignment = {
  table_id: "t-1", endpoint: "room:1", seat: 0, seat_token: "token", game: "test", display_names: [], ticket: "",
  deal_commitment: "",
};
const V1 = wireMap([["n", 1], ["hand", ["3C"]]]);
const V2 = wireMap([["n", 2], ["hand", ["3C"]]]);
const V3 = wireMap([["n", 3], ["hand", ["3C"]]]);

function session(room: ScriptedRoom): Promise<TableSession> {
  return TableSession.connect(new LobbyClient(room), ASSIGNMENT, { connectTimeoutMs: 2_000 });
}

test("a delta that does not apply is acked with a hash not the host's, and the snapshot repairs the view", async () => {
  const room = new ScriptedRoom();
  room.onHello = (r) => r.snapshot(1, V1);
  const s = await session(room);
  room.delta(2, [[["missing"]]], V2); // deletes a key the view lacks
  assert.equal(s.synchronized, false);
  assert.deepEqual(s.view, V1, "the view before the delta is kept whole");
  assert.equal(s.seq, 2);
  assert.deepEqual(room.acks(), [{ seq: 2, view_hash: "0".repeat(64) }]);
  room.snapshot(2, V2);
  assert.equal(s.synchronized, true);
  assert.deepEqual(s.view, V2);
  room.delta(3, [[["n"], 3]], V3);
  assert.deepEqual(s.view, V3);
  assert.equal(s.desyncs, 1);
  s.close();
});

test("a gap in the seqs reopens the stream from the last seq held", async () => {
  const room = new ScriptedRoom();
  const hellos: number[] = [];
  room.onHello = (r, lastSeq) => {
    hellos.push(lastSeq);
    if (lastSeq === 0) r.snapshot(1, V1);
    else queueMicrotask(() => r.delta(2, [[["n"], 2]], V2));
  };
  const s = await session(room);
  room.delta(3, [[["n"], 3]], V3); // seq 2 never came
  await s.waitFor(() => s.seq === 2, 2_000, "the missing delta");
  assert.deepEqual(hellos, [0, 1]);
  assert.equal(s.gaps, 1);
  assert.ok(room.streams[0]!.closed, "the stream with the gap was dropped");
  assert.deepEqual(s.view, V2);
  s.close();
});

test("a replaced stream and an administrator's closing are not retried", async () => {
  for (const [code, kind] of [[Status.ABORTED, StreamReplaced], [Status.FAILED_PRECONDITION, ClosedByAdministrator]] as const) {
    const room = new ScriptedRoom();
    room.onHello = (r) => r.snapshot(1, V1);
    const s = await session(room);
    room.end(code, "gone");
    await assert.rejects(s.waitForRequest(), kind);
    assert.equal(room.streams.length, 1, "no new stream was opened");
  }
});

test("a dropped stream reconnects with its last seq", async () => {
  const room = new ScriptedRoom();
  const hellos: number[] = [];
  room.onHello = (r, lastSeq) => {
    hellos.push(lastSeq);
    if (lastSeq === 0) r.snapshot(1, V1);
  };
  const s = await session(room);
  room.delta(2, [[["n"], 2]], V2);
  room.end(Status.RESOURCE_EXHAUSTED, "fell behind");
  await s.waitFor(() => room.streams.length === 2, 2_000, "a new stream");
  assert.deepEqual(hellos, [0, 2]);
  s.close();
});
