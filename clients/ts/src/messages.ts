/**
 * The protobuf messages of protos/tablehost/v1, parsed once from their .proto
 * texts (generated/protos.ts) by protobufjs, which runs in Node and in the
 * browser alike. Field names are the protos' own (snake_case), enums are
 * their names ("REJECT_REASON_NOT_YOUR_TURN"), 64-bit integers are numbers
 * (seqs and epoch milliseconds stay far below 2^53).
 */
import protobuf from "protobufjs";

import { PROTO_FILES } from "./generated/protos.js";

const root = new protobuf.Root();
for (const text of Object.values(PROTO_FILES)) protobuf.parse(text, root, { keepCase: true });
root.resolveAll();

const types = new Map<string, protobuf.Type>();

function messageType(name: string): protobuf.Type {
  let found = types.get(name);
  if (found === undefined) {
    found = root.lookupType(`tablehost.v1.${name}`);
    types.set(name, found);
  }
  return found;
}

/** The bytes of message `name` built from a plain object; a field of the wrong type throws. */
export function encodeMessage(name: string, value: object): Uint8Array {
  const type = messageType(name);
  const message = type.fromObject(value); // enum names become their numbers here
  const problem = type.verify(message);
  if (problem !== null) throw new TypeError(`${name}: ${problem}`);
  return type.encode(message).finish();
}

/** Message `name` as a plain object with every field present (defaults filled in). */
export function decodeMessage<T>(name: string, bytes: Uint8Array): T {
  const type = messageType(name);
  return type.toObject(type.decode(bytes), { longs: Number, enums: String, defaults: true, arrays: true, oneofs: true }) as T;
}

// -- the shapes used by the SDK ---------------------------------------------------

export interface Hello { seat_token: string; last_seq: number; entropy: Uint8Array }
export interface Commit { act_id: string; action: Uint8Array }
export interface Ack { seq: number; view_hash: string }
export type ClientMessage = { hello: Hello } | { commit: Commit } | { ack: Ack };

export interface Snapshot { seq: number; view: Uint8Array; view_hash: string; seat: number; table_id: string }
export interface Delta { seq: number; act_id: string; delta: Uint8Array; view_hash: string; automatic: boolean }
export interface Rejection { act_id: string; reason: string; message: string }
export interface GameOver { seq: number; result: Uint8Array; scores: number[]; winner: number; record: Uint8Array }
export interface Accepted { act_id: string; seq: number }
export interface ServerMessage {
  kind?: "snapshot" | "delta" | "rejection" | "game_over" | "accepted";
  snapshot?: Snapshot;
  delta?: Delta;
  rejection?: Rejection;
  game_over?: GameOver;
  accepted?: Accepted;
}

export interface TableAssignment {
  table_id: string;
  endpoint: string;
  seat: number;
  seat_token: string;
  game: string;
  display_names: string[];
  ticket: string;
  deal_commitment: string;
}
export interface TableLocation { table_id: string; endpoint: string; running: boolean }
export interface PrivateTable { code: string; game: string; seats: number }

export interface Standing {
  place: number; player: string; points: number; tiebreaks: number[]; games: number; wins: number; byes: number;
  rating: number; withdrawn: boolean;
}
export interface TournamentStatus {
  tournament_id: string; name: string; game: string; format: string; state: string; round: number; rounds: number;
  players: number; tables_pending: number; tiebreak_names: string[]; standings: Standing[]; finish_reason: string;
  games_played: number; next_page_token: string; standings_total: number; start_by_ms: number; organiser: string;
}
export interface TournamentCreated { tournament_id: string; organiser_key: string; organiser: string; start_by_ms: number }
export interface Registration { tournament_id: string; player: string; player_key: string }
export interface TableResult {
  table_id: string; round: number; players: string[]; points: number[]; places: number[]; scores: number[]; forfeited: boolean[];
}
export interface TournamentResults {
  tournament_id: string; results: TableResult[]; byes_round: number[]; byes_player: string[]; next_page_token: string;
  results_total: number;
}
export interface TournamentEvent {
  event?: "status" | "round_started" | "round_ended";
  status?: TournamentStatus;
  round_started?: { round: number; table?: TableAssignment; bye: boolean };
  round_ended?: { round: number; standings: Standing[]; standings_total: number };
}
