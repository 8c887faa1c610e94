/**
 * A seat (or a spectator) at a table: the stream of docs/protocol.md section 2.
 *
 * The session holds the view the room published, applies each delta to a
 * copy, checks every view hash, acks a mismatch at once (and one change in
 * 16 otherwise), and reconnects with its last seq when a stream drops, asking
 * the lobby where the table is when the room no longer serves it. Commits
 * carry act_ids, so a commit sent again after a reconnect is never applied
 * twice.
 */
import { applyDelta, decode, encodeAction, isWireMap, View, viewHash, WireMap } from "./codec.js";
import { LobbyClient, TableNotRunning } from "./lobby.js";
import { decodeMessage, encodeMessage, ServerMessage, TableAssignment } from "./messages.js";
import { CallStatus, RpcError, Status, statusName, TableStream } from "./transport.js";

export const ACK_EVERY = 16;
/** The hash sent for a delta that would not apply: anything not the host's brings a snapshot. */
const UNCOMPUTED_HASH = "0".repeat(64);
const MAX_ACT_ID_BYTES = 64;
const MAX_PENDING_COMMITS = 64;
const FIRST_BACKOFF_MS = 100;
const MAX_BACKOFF_MS = 2_000;
const utf8 = new TextEncoder();

export class SessionDisconnected extends Error {}
/** Another stream for this seat took over: never reconnect on your own (two sessions would take the seat in turn). */
export class StreamReplaced extends SessionDisconnected {}
export class SeatTokenRejected extends SessionDisconnected {}
/** The table is gone: finished and closed, or closed unfinished. */
export class TableClosed extends SessionDisconnected {}
/** An administrator closed the table or took this seat. */
export class ClosedByAdministrator extends TableClosed {}
/** A seat never came before the deal: join the queue again. */
export class TableCancelled extends TableClosed {}
/** The room sent bytes that are not the protocol: nothing after them can be trusted. */
export class ProtocolViolation extends SessionDisconnected {}

export interface CommitOutcome {
  actId: string;
  accepted: boolean;
  /** The seq that applied it (accepted only). */
  seq: number;
  /** The rejection's reason, e.g. "REJECT_REASON_NOT_YOUR_TURN" (rejected only). */
  reason: string;
  message: string;
  /** Accepted earlier: the room answered a repeated act_id with the seq that applied it. */
  duplicate: boolean;
  roundTripMs: number;
}

export interface GameResult {
  winner: number;
  scores: number[];
  result: WireMap;
  seq: number;
  /** The game record (section 9), canonical msgpack; empty when the host sent none. */
  record: Uint8Array;
}

export interface ViewUpdate {
  kind: "snapshot" | "delta" | "game_over" | "disconnected";
  seq: number;
  view: View;
  actId?: string;
  automatic?: boolean;
}

export interface SessionOptions {
  /** Bytes mixed into the deal (section 9); 32 random bytes when omitted. */
  entropy?: Uint8Array;
  /** Keep every message received, for checking the deal afterwards (record.ts). */
  record?: boolean;
  /** Reconnect by itself when a stream drops (default true). */
  autoReconnect?: boolean;
  maxReconnectAttempts?: number;
  ackEvery?: number;
  /** How long connect() waits for the first view. */
  connectTimeoutMs?: number;
}

interface Pending {
  resolve(outcome: CommitOutcome): void;
  sentAt: number;
}

class Resync extends Error {}

function randomBytes(count: number): Uint8Array {
  const bytes = new Uint8Array(count);
  globalThis.crypto.getRandomValues(bytes);
  return bytes;
}

function backoffMs(retries: number): number {
  return retries === 0 ? 0 : Math.min(FIRST_BACKOFF_MS * 2 ** (retries - 1), MAX_BACKOFF_MS);
}

export class TableSession {
  readonly tableId: string;
  readonly entropy: Uint8Array;
  readonly received: Uint8Array[] = [];
  endpoint: string;
  desyncs = 0;
  hashesChecked = 0;
  rejects = 0;
  reconnects = 0;
  gaps = 0;
  result: GameResult | null = null;
  failure: SessionDisconnected | null = null;

  private viewNow: View = Object.create(null) as View;
  private haveView = false;
  private seqNow = 0;
  private seatNow: number;
  private acked = 0;
  private inStep = false;
  private stream: TableStream | null = null;
  private closed = false;
  private emptyReconnects = 0;
  private actIds = 0;
  private readonly pending = new Map<string, Pending>();
  private readonly waiters = new Set<() => void>();
  private readonly listeners = new Set<(update: ViewUpdate) => void>();
  private readonly options: Required<Omit<SessionOptions, "entropy">>;

  constructor(readonly lobby: LobbyClient, readonly assignment: TableAssignment, options: SessionOptions = {}) {
    this.tableId = assignment.table_id;
    this.endpoint = assignment.endpoint;
    this.seatNow = assignment.seat;
    this.entropy = options.entropy ?? randomBytes(32);
    this.options = {
      record: options.record ?? false,
      autoReconnect: options.autoReconnect ?? true,
      maxReconnectAttempts: options.maxReconnectAttempts ?? 6,
      ackEvery: options.ackEvery ?? ACK_EVERY,
      connectTimeoutMs: options.connectTimeoutMs ?? 30_000,
    };
  }

  /** Opens the stream and waits for the first view (a snapshot, or the deal's view). */
  static async connect(lobby: LobbyClient, assignment: TableAssignment, options: SessionOptions = {}): Promise<TableSession> {
    const session = new TableSession(lobby, assignment, options);
    session.open();
    await session.waitFor(() => session.haveView || session.result !== null, session.options.connectTimeoutMs, "the first view");
    return session;
  }

  get view(): View {
    return this.viewNow;
  }
  get seq(): number {
    return this.seqNow;
  }
  get seat(): number {
    return this.seatNow;
  }
  get gameOver(): boolean {
    return this.result !== null;
  }
  /** Whether the view agrees with the host's (false from a mismatch until the snapshot that repairs it). */
  get synchronized(): boolean {
    return this.inStep;
  }
  /** The seat's request, when the view asks it to act. */
  get request(): WireMap | null {
    const request = this.viewNow["request"];
    return isWireMap(request) ? request : null;
  }
  /** Whether the cards are dealt (a table first waits for every seat's hello). */
  get dealt(): boolean {
    return this.haveView && this.viewNow["stage"] !== "dealing";
  }

  /** Called with every change of the view, the game's end, and a session that stopped. Returns the unsubscriber. */
  onUpdate(listener: (update: ViewUpdate) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /**
   * Resolves when `ready()` holds; rejects with the session's failure, or
   * after `timeoutMs` (null: no limit).
   */
  waitFor<T>(ready: () => T | false | null | undefined, timeoutMs: number | null = null, what = "a change"): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      let timer: ReturnType<typeof setTimeout> | undefined;
      const check = (): void => {
        const value = ready();
        if (value !== false && value !== null && value !== undefined) {
          finish();
          resolve(value);
        } else if (this.failure !== null) {
          finish();
          reject(this.failure);
        } else if (this.closed) {
          finish();
          reject(new SessionDisconnected(`the session for table ${this.tableId} is closed`));
        }
      };
      const finish = (): void => {
        this.waiters.delete(check);
        if (timer !== undefined) clearTimeout(timer);
      };
      if (timeoutMs !== null) {
        timer = setTimeout(() => {
          finish();
          reject(new Error(`table ${this.tableId}: no ${what} within ${timeoutMs} ms`));
        }, timeoutMs);
      }
      this.waiters.add(check);
      check();
    });
  }

  /** The view once the seat is asked to act (after `afterSeq`, when given), or null once the game is over. */
  waitForRequest(afterSeq = -1, timeoutMs: number | null = null): Promise<View | null> {
    return this.waitFor<{ view: View | null }>(() => {
      if (this.result !== null) return { view: null };
      if (this.inStep && this.seqNow > afterSeq && this.request !== null && this.stream !== null) return { view: this.viewNow };
      return null;
    }, timeoutMs, "request").then((found) => found.view);
  }

  waitGameOver(timeoutMs: number | null = null): Promise<GameResult> {
    return this.waitFor(() => this.result, timeoutMs, "end of the game");
  }

  /**
   * Sends `action` and resolves with its outcome: the delta that carries its
   * act_id, or the rejection. Sending the same act_id again (after a
   * reconnect) is safe: the room never applies it twice.
   */
  commit(action: WireMap, actId?: string, timeoutMs = 10_000): Promise<CommitOutcome> {
    if (this.failure !== null) return Promise.reject(this.failure);
    const id = actId ?? `${this.seatNow}-${Date.now().toString(36)}-${++this.actIds}`;
    if (utf8.encode(id).length > MAX_ACT_ID_BYTES || id.length === 0) {
      return Promise.reject(new RangeError(`an act_id is 1 to ${MAX_ACT_ID_BYTES} bytes of UTF-8`));
    }
    if (this.pending.size >= MAX_PENDING_COMMITS && !this.pending.has(id)) {
      return Promise.reject(new RangeError(`${MAX_PENDING_COMMITS} commits already wait for their outcome`));
    }
    const bytes = encodeMessage("ClientMessage", { commit: { act_id: id, action: encodeAction(action) } });
    return new Promise<CommitOutcome>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(id);
        reject(new Error(`table ${this.tableId}: no outcome for act_id ${id} within ${timeoutMs} ms`));
      }, timeoutMs);
      this.pending.set(id, {
        sentAt: performance.now(),
        resolve: (outcome) => {
          clearTimeout(timer);
          this.pending.delete(id);
          resolve(outcome);
        },
      });
      if (this.stream === null) {
        this.pending.get(id)!.resolve(this.outcome(id, false, 0, "REJECT_REASON_UNSPECIFIED", "not connected"));
      } else this.stream.send(bytes);
    });
  }

  /** Drops the stream and opens a new one with the last seq (what a client does after a network change). */
  reconnect(): void {
    if (this.closed || this.failure !== null) throw this.failure ?? new SessionDisconnected("closed");
    this.stream?.cancel();
    this.stream = null;
    this.emptyReconnects = 0;
    this.reconnects++;
    this.open();
  }

  /** Leaves the table: half-closes the stream, so the room ends it OK. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.stream?.closeSend();
    this.stream = null;
    this.notify();
  }

  // -- the stream -------------------------------------------------------------------

  private open(): void {
    let refused: string | null = null;
    let resync = false;
    const stream = this.lobby.transport.openTable(this.endpoint, {
      message: (bytes) => {
        if (stream !== this.stream || resync) return;
        try {
          if (this.options.record) this.received.push(bytes);
          const message = decodeMessage<ServerMessage>("ServerMessage", bytes);
          if (message.kind === "rejection" && !message.rejection!.act_id && message.rejection!.reason === "REJECT_REASON_BAD_TOKEN") {
            refused = message.rejection!.message;
          }
          this.dispatch(message);
        } catch (error) {
          if (error instanceof Resync) {
            resync = true;
            stream.cancel();
            this.stream = null;
            this.open(); // again from the last seq: the room sends what is missing
          } else {
            this.fail(new ProtocolViolation(`table ${this.tableId} sent an invalid message: ${String(error)}`));
            stream.cancel();
          }
        }
      },
      end: (status) => {
        if (stream === this.stream) this.ended(status, refused);
      },
    });
    this.stream = stream;
    stream.send(encodeMessage("ClientMessage", {
      hello: { seat_token: this.assignment.seat_token, last_seq: this.haveView ? this.seqNow : 0, entropy: this.entropy },
    }));
    this.notify(); // connected again: a waiter for a request may act once the view is in step
  }

  private ended(status: CallStatus, refused: string | null): void {
    this.stream = null;
    const why = `${statusName(status.code)}: ${status.details}`;
    if (this.closed || this.failure !== null) return;
    if (this.result !== null) {
      this.notify(); // the game is over: the room closing the stream is the normal end
      return;
    }
    switch (status.code) {
      case Status.FAILED_PRECONDITION:
      case Status.PERMISSION_DENIED:
        return this.fail(new ClosedByAdministrator(`table ${this.tableId}, seat ${this.seatNow}: ${why}`));
      case Status.ABORTED:
        return this.fail(new StreamReplaced(`another stream for seat ${this.seatNow} of table ${this.tableId} took over (${why})`));
      case Status.UNAUTHENTICATED:
        return this.fail(new SeatTokenRejected(`table ${this.tableId} refused the seat token: ${refused ?? why}`));
      case Status.INTERNAL:
        return this.fail(new TableClosed(`table ${this.tableId} failed: ${why}`));
      case Status.NOT_FOUND:
        if (/cancelled before its deal/.test(status.details)) {
          return this.fail(new TableCancelled(`table ${this.tableId}: ${status.details}`));
        }
    }
    if (!this.options.autoReconnect || this.emptyReconnects >= this.options.maxReconnectAttempts) {
      return this.fail(new SessionDisconnected(`stream to table ${this.tableId} at ${this.endpoint} ended (${why})`));
    }
    const delay = backoffMs(this.emptyReconnects++);
    // Refused as not served here, or the room went away: ask the lobby where the table is now.
    const lookup = status.code === Status.NOT_FOUND || status.code === Status.UNAVAILABLE;
    setTimeout(() => void this.recover(lookup), delay);
  }

  private async recover(lookup: boolean): Promise<void> {
    if (this.closed || this.failure !== null) return;
    if (lookup) {
      try {
        const endpoint = await this.lobby.lookupTable(this.tableId);
        if (endpoint === null) return this.ended({ code: Status.UNAVAILABLE, details: "the table is moving between rooms" }, null);
        this.endpoint = endpoint;
      } catch (error) {
        if (error instanceof TableNotRunning) {
          const closed = this.dealt ? TableClosed : TableCancelled;
          return this.fail(new closed(`table ${this.tableId} was closed and no room serves it any more`));
        }
        const code = error instanceof RpcError ? error.code : Status.UNAVAILABLE;
        return this.ended({ code: code === Status.NOT_FOUND ? Status.UNAVAILABLE : code, details: String(error) }, null);
      }
    }
    this.reconnects++;
    this.open();
  }

  // -- what the room sends ----------------------------------------------------------

  private dispatch(message: ServerMessage): void {
    switch (message.kind) {
      case "snapshot": {
        const snapshot = message.snapshot!;
        const view = decode(snapshot.view);
        if (!isWireMap(view)) throw new TypeError("a snapshot's view is a map");
        this.viewNow = view;
        this.seqNow = snapshot.seq;
        this.acked = snapshot.seq;
        this.haveView = true;
        this.seatNow = snapshot.seat;
        this.emptyReconnects = 0;
        this.hashesChecked++;
        this.inStep = viewHash(view) === snapshot.view_hash;
        if (!this.inStep) this.desyncs++; // the codec's own fault: the host's whole view did not hash alike
        this.publish({ kind: "snapshot", seq: snapshot.seq, view });
        break;
      }
      case "delta":
        this.onDelta(message.delta!);
        break;
      case "rejection": {
        const rejection = message.rejection!;
        const pending = rejection.act_id ? this.pending.get(rejection.act_id) : undefined;
        if (pending !== undefined) {
          this.rejects++;
          pending.resolve(this.outcome(rejection.act_id, false, 0, rejection.reason, rejection.message));
        }
        break;
      }
      case "accepted": {
        const accepted = message.accepted!;
        const outcome = this.outcome(accepted.act_id, true, accepted.seq, "", "");
        this.pending.get(accepted.act_id)?.resolve({ ...outcome, duplicate: true });
        break;
      }
      case "game_over": {
        const over = message.game_over!;
        const result = over.result.length > 0 ? decode(over.result) : Object.create(null);
        if (!isWireMap(result)) throw new TypeError("a game's result is a map");
        this.result = { winner: over.winner, scores: over.scores, result, seq: over.seq, record: over.record };
        this.publish({ kind: "game_over", seq: over.seq, view: this.viewNow });
        break;
      }
      default:
        return; // a kind this SDK does not know: newer hosts may add some
    }
    this.notify();
  }

  private onDelta(delta: ServerMessage["delta"] & object): void {
    if (this.haveView && delta.seq <= this.seqNow) return; // replayed after a reconnect, already applied
    if (!this.haveView || delta.seq !== this.seqNow + 1) {
      this.gaps++;
      throw new Resync(`expected seq ${this.seqNow + 1}, got ${delta.seq}`);
    }
    let view = this.viewNow;
    let computed = UNCOMPUTED_HASH;
    try {
      view = applyDelta(this.viewNow, decode(delta.delta));
      computed = viewHash(view);
    } catch {
      view = this.viewNow; // keep the old view whole; the mismatching ack below brings a snapshot
    }
    this.viewNow = view;
    this.seqNow = delta.seq;
    this.emptyReconnects = 0;
    this.hashesChecked++;
    this.inStep = computed === delta.view_hash;
    if (!this.inStep) this.desyncs++;
    if (delta.act_id) this.pending.get(delta.act_id)?.resolve(this.outcome(delta.act_id, true, delta.seq, "", ""));
    this.publish({ kind: "delta", seq: delta.seq, view, actId: delta.act_id, automatic: delta.automatic });
    if (!this.inStep || delta.seq - this.acked >= this.options.ackEvery) {
      this.acked = delta.seq;
      this.stream?.send(encodeMessage("ClientMessage", { ack: { seq: delta.seq, view_hash: computed } }));
    }
  }

  private outcome(actId: string, accepted: boolean, seq: number, reason: string, message: string): CommitOutcome {
    const sentAt = this.pending.get(actId)?.sentAt ?? performance.now();
    return { actId, accepted, seq, reason, message, duplicate: false, roundTripMs: performance.now() - sentAt };
  }

  private publish(update: ViewUpdate): void {
    for (const listener of this.listeners) listener(update);
  }

  private notify(): void {
    for (const check of [...this.waiters]) check();
  }

  private fail(error: SessionDisconnected): void {
    if (this.failure !== null) return;
    this.failure = error;
    this.stream?.cancel();
    this.stream = null;
    for (const pending of [...this.pending.values()]) pending.resolve(this.outcome("", false, 0, "REJECT_REASON_UNSPECIFIED", error.message));
    this.publish({ kind: "disconnected", seq: this.seqNow, view: this.viewNow });
    this.notify();
  }
}
