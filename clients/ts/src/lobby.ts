/**
 * The front door's calls (docs/protocol.md section 1): the Lobby service and
 * the Tournaments service, over any transport.
 */
import { encode, Value, WireMap } from "./codec.js";
import {
  decodeMessage, encodeMessage, PrivateTable, Registration, TableAssignment, TableLocation, TournamentCreated,
  TournamentEvent, TournamentResults, TournamentStatus,
} from "./messages.js";
import { RpcError, Status, Transport } from "./transport.js";

const LOBBY = "/tablehost.v1.Lobby/";
const TOURNAMENTS = "/tablehost.v1.Tournaments/";
/** Every call but the joins answers at once; 10 s is ample (docs/protocol.md, "Timeouts and deadlines"). */
const CALL_TIMEOUT_MS = 10_000;

/** The table no longer runs: it finished, was closed, or its room is gone. */
export class TableNotRunning extends Error {}

export interface JoinOptions {
  game: string;
  displayName?: string;
  /** The player's idempotency key for this wait; a random one when omitted. */
  ticket?: string;
  variant?: string;
  /** 0: the game's default. */
  seats?: number;
  /** The game's join data (Duel: `{deck: "mage-basic"}`), sent as canonical msgpack. */
  joinData?: WireMap;
  /** Leaving the queue: abort the signal (the host forgets the ticket at once). */
  signal?: AbortSignal;
}

export function randomTicket(): string {
  const bytes = new Uint8Array(12);
  globalThis.crypto.getRandomValues(bytes);
  return `t-${Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("")}`;
}

function joinData(data: WireMap | undefined): Uint8Array {
  return data === undefined ? new Uint8Array() : encode(data as Value);
}

export class LobbyClient {
  constructor(readonly transport: Transport) {}

  private async call<T>(path: string, requestType: string, request: object, answerType: string,
                        options: { timeoutMs?: number; signal?: AbortSignal } = { timeoutMs: CALL_TIMEOUT_MS }): Promise<T> {
    const answer = await this.transport.unary(path, encodeMessage(requestType, request), options);
    return decodeMessage<T>(answerType, answer);
  }

  /** Waits in the queue until a table is filled (no deadline: as long as other players take). */
  joinQueue(options: JoinOptions): Promise<TableAssignment> {
    return this.call(`${LOBBY}JoinQueue`, "JoinQueueRequest", {
      game: options.game, variant: options.variant ?? "", display_name: options.displayName ?? "",
      ticket: options.ticket ?? randomTicket(), join_data: joinData(options.joinData), seats: options.seats ?? 0,
    }, "TableAssignment", { signal: options.signal });
  }

  /** Whether the ticket was waiting (and now is not). */
  async leaveQueue(ticket: string): Promise<boolean> {
    try {
      return (await this.call<{ removed: boolean }>(`${LOBBY}LeaveQueue`, "LeaveQueueRequest", { ticket }, "LeaveQueueResponse")).removed;
    } catch (error) {
      if (error instanceof RpcError && error.code === Status.NOT_FOUND) return false;
      throw error;
    }
  }

  createPrivateTable(game: string, options: { variant?: string; seats?: number; turnTimeoutMs?: number } = {}): Promise<PrivateTable> {
    return this.call(`${LOBBY}CreatePrivateTable`, "CreatePrivateTableRequest", {
      game, variant: options.variant ?? "", seats: options.seats ?? 0, turn_timeout_ms: options.turnTimeoutMs ?? 0,
    }, "PrivateTable");
  }

  joinPrivateTable(code: string, options: Omit<JoinOptions, "game" | "variant" | "seats"> = {}): Promise<TableAssignment> {
    return this.call(`${LOBBY}JoinPrivateTable`, "JoinPrivateTableRequest", {
      code, display_name: options.displayName ?? "", ticket: options.ticket ?? randomTicket(),
      join_data: joinData(options.joinData),
    }, "TableAssignment", { signal: options.signal });
  }

  spectate(tableId: string): Promise<TableAssignment> {
    return this.call(`${LOBBY}Spectate`, "SpectateRequest", { table_id: tableId }, "TableAssignment");
  }

  /** Where the table is served now: its endpoint, or null while it moves between rooms; TableNotRunning once it is gone. */
  async lookupTable(tableId: string): Promise<string | null> {
    try {
      const location = await this.call<TableLocation>(`${LOBBY}LookupTable`, "LookupTableRequest", { table_id: tableId }, "TableLocation");
      return location.running ? location.endpoint : null;
    } catch (error) {
      if (error instanceof RpcError && error.code === Status.NOT_FOUND) throw new TableNotRunning(error.details);
      throw error;
    }
  }

  // -- tournaments ------------------------------------------------------------------

  createTournament(request: {
    name: string; game: string; format: "SWISS" | "ROUND_ROBIN" | "ELIMINATION" | "TABLE_ROUNDS"; organiser_token: string;
    rounds?: number; seats?: number; turn_timeout_ms?: number; max_players?: number; no_show_after_s?: number; start_within_s?: number;
  }): Promise<TournamentCreated> {
    return this.call(`${TOURNAMENTS}CreateTournament`, "CreateTournamentRequest", request, "TournamentCreated");
  }

  register(tournamentId: string, player: string, data?: WireMap): Promise<Registration> {
    return this.call(`${TOURNAMENTS}Register`, "RegisterRequest", { tournament_id: tournamentId, player, join_data: joinData(data) }, "Registration");
  }

  async withdraw(tournamentId: string, player: string, key: string): Promise<void> {
    await this.call(`${TOURNAMENTS}Withdraw`, "WithdrawRequest", { tournament_id: tournamentId, player, key }, "WithdrawResponse");
  }

  startTournament(tournamentId: string, organiserKey: string): Promise<TournamentStatus> {
    return this.call(`${TOURNAMENTS}StartTournament`, "StartTournamentRequest", { tournament_id: tournamentId, organiser_key: organiserKey }, "TournamentStatus");
  }

  getTournament(tournamentId: string, page: { pageSize?: number; pageToken?: string } = {}): Promise<TournamentStatus> {
    return this.call(`${TOURNAMENTS}GetTournament`, "GetTournamentRequest",
      { tournament_id: tournamentId, page_size: page.pageSize ?? 0, page_token: page.pageToken ?? "" }, "TournamentStatus");
  }

  getResults(tournamentId: string, page: { pageSize?: number; pageToken?: string } = {}): Promise<TournamentResults> {
    return this.call(`${TOURNAMENTS}GetResults`, "GetTournamentRequest",
      { tournament_id: tournamentId, page_size: page.pageSize ?? 0, page_token: page.pageToken ?? "" }, "TournamentResults");
  }

  /**
   * The tournament's events as they come: a status first, then (for a player
   * named with its key) each round's table or bye, each round's standings, and
   * a status at every change. Ends when the tournament is over.
   */
  async *watchTournament(tournamentId: string, player?: { player: string; playerKey: string }): AsyncGenerator<TournamentEvent> {
    const events: TournamentEvent[] = [];
    let ended: { code: number; details: string } | null = null;
    let wake: (() => void) | null = null;
    const path = `${TOURNAMENTS}WatchTournament`;
    const stream = this.transport.serverStream(path, encodeMessage("WatchTournamentRequest", {
      tournament_id: tournamentId, player: player?.player ?? "", player_key: player?.playerKey ?? "",
    }), {
      message: (bytes) => {
        events.push(decodeMessage<TournamentEvent>("TournamentEvent", bytes));
        wake?.();
      },
      end: (status) => {
        ended = status;
        wake?.();
      },
    });
    try {
      for (;;) {
        const event = events.shift();
        if (event !== undefined) {
          yield event;
          continue;
        }
        if (ended !== null) {
          const { code, details } = ended;
          if (code !== Status.OK) throw new RpcError(path, code, details);
          return;
        }
        await new Promise<void>((resolve) => (wake = resolve));
        wake = null;
      }
    } finally {
      if (ended === null) stream.cancel();
    }
  }
}
