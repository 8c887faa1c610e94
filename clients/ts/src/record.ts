/**
 * Checking a finished game's deal from what one stream received
 * (docs/protocol.md section 9, verifying steps 1 to 3, the ones that need no
 * game rules): the stream holds together hash by hash, the commitment the
 * views showed is the one the lobby gave before the hello, the revealed seed
 * and salt open it, the game record names the same seed and salt, and the
 * deal mixed in this client's entropy. Step 4, replaying the record with the
 * rules, is `tablehost verify FILE` on the saved game (`toJson`).
 */
import { sha256 } from "@noble/hashes/sha2";
import { bytesToHex, hexToBytes } from "@noble/hashes/utils";

import { applyDelta, decode, isWireMap, View, viewHash, WireMap } from "./codec.js";
import { decodeMessage, ServerMessage } from "./messages.js";
import { TableSession } from "./session.js";

export const RECEIVED_GAME_FORMAT = "tablehost-received-game/1";

/** The first point where what was received disagrees: a seq ("seq 12"), "record", "commitment" or "deal". */
export class RecordError extends Error {
  constructor(readonly where: string, readonly what: string) {
    super(`${where}: ${what}`);
  }
}

export interface ReceivedGame {
  tableId: string;
  seat: number;
  game: string;
  dealCommitment: string;
  entropy: Uint8Array;
  messages: Uint8Array[];
}

/** What a session recorded (`record: true`), once its game is over. */
export function receivedGame(session: TableSession): ReceivedGame {
  return {
    tableId: session.tableId, seat: session.assignment.seat, game: session.assignment.game,
    dealCommitment: session.assignment.deal_commitment, entropy: session.entropy, messages: [...session.received],
  };
}

function base64(bytes: Uint8Array): string {
  let text = "";
  for (const byte of bytes) text += String.fromCharCode(byte);
  return btoa(text);
}

/** The saved form `tablehost verify FILE` reads. */
export function toJson(game: ReceivedGame): string {
  return JSON.stringify({
    format: RECEIVED_GAME_FORMAT, table_id: game.tableId, seat: game.seat, game: game.game,
    deal_commitment: game.dealCommitment, entropy: bytesToHex(game.entropy), messages: game.messages.map(base64),
  }, null, 1);
}

export function commitment(seedHex: string, saltHex: string): string {
  try {
    const salt = hexToBytes(saltHex);
    const seed = hexToBytes(seedHex);
    const joined = new Uint8Array(salt.length + seed.length);
    joined.set(salt);
    joined.set(seed, salt.length);
    return bytesToHex(sha256(joined));
  } catch (error) {
    throw new RecordError("commitment", `the revealed seed or salt is not hex: ${String(error)}`);
  }
}

export interface CheckedDeal {
  published: Map<number, string>;
  record: WireMap;
  seed: string;
  salt: string;
  helloBeforeDeal: boolean;
}

function fairnessOf(view: View): WireMap {
  const fairness = view["fairness"];
  return isWireMap(fairness) ? fairness : (Object.create(null) as WireMap);
}

/** Steps 1 to 3; throws RecordError at the first disagreement. */
export function checkDeal(game: ReceivedGame): CheckedDeal {
  const published = new Map<number, string>();
  const publish = (seq: number, hash: string): void => {
    const earlier = published.get(seq);
    if (earlier !== undefined && earlier !== hash) throw new RecordError(`seq ${seq}`, `two view hashes were published for it: ${earlier} and ${hash}`);
    published.set(seq, hash);
  };
  let view: View | null = null;
  let first: View | null = null;
  let seq = -1;
  let record: WireMap | null = null;
  for (const bytes of game.messages) {
    const message = decodeMessage<ServerMessage>("ServerMessage", bytes);
    if (message.kind === "snapshot") {
      const snapshot = message.snapshot!;
      const decoded = decode(snapshot.view);
      if (!isWireMap(decoded)) throw new RecordError(`seq ${snapshot.seq}`, "a snapshot's view is not a map");
      if (viewHash(decoded) !== snapshot.view_hash) throw new RecordError(`seq ${snapshot.seq}`, "the snapshot's view does not have its hash");
      view = decoded;
      seq = snapshot.seq;
      publish(seq, snapshot.view_hash);
    } else if (message.kind === "delta") {
      const delta = message.delta!;
      if (view !== null && delta.seq === seq + 1) {
        try {
          view = applyDelta(view, decode(delta.delta));
        } catch (error) {
          throw new RecordError(`seq ${delta.seq}`, `the delta does not apply: ${String(error)}`);
        }
        if (viewHash(view) !== delta.view_hash) throw new RecordError(`seq ${delta.seq}`, "the delta gives a view with another hash than its message says");
        seq = delta.seq;
      } else if (delta.seq > seq) view = null; // a gap: the next snapshot brings the view back
      publish(delta.seq, delta.view_hash);
    } else if (message.kind === "game_over") {
      const plain = message.game_over!.record.length > 0 ? decode(message.game_over!.record) : null;
      if (!isWireMap(plain)) throw new RecordError("record", "the game over carried no game record");
      record = plain;
    }
    if (first === null && view !== null) first = view;
  }
  if (record === null) throw new RecordError("record", "the stream never received the game's end");
  if (first === null || view === null) throw new RecordError("record", "the stream holds no view");
  const shown = fairnessOf(first)["commitment"];
  if (shown !== game.dealCommitment) throw new RecordError("seq 0", `the views show commitment ${String(shown)}, but the lobby gave ${game.dealCommitment}`);
  const final = fairnessOf(view);
  if (typeof final["seed"] !== "string" || typeof final["salt"] !== "string") throw new RecordError(`seq ${seq}`, "the final view reveals no seed");
  const seed = final["seed"];
  const salt = final["salt"];
  if (commitment(seed, salt) !== game.dealCommitment) throw new RecordError("commitment", "the revealed seed and salt do not open the commitment");
  const header = isWireMap(record["header"]) ? record["header"] : (Object.create(null) as WireMap);
  if (header["seed"] !== seed || header["salt"] !== salt) throw new RecordError("record", "the game record's seed and salt are not the ones the final view revealed");
  const helloBeforeDeal = first["stage"] === "dealing";
  if (helloBeforeDeal && game.seat >= 0) {
    const commands = Array.isArray(record["commands"]) ? record["commands"] : [];
    const deal = isWireMap(commands[0]) ? commands[0] : null;
    const action = deal !== null && deal["seat"] === -1 && isWireMap(deal["action"]) ? deal["action"] : null;
    const mixed = action !== null && Array.isArray(action["entropy"]) ? action["entropy"] : null;
    if (mixed === null || mixed[game.seat] !== bytesToHex(game.entropy)) {
      throw new RecordError("deal", `seat ${game.seat} sent entropy ${bytesToHex(game.entropy)} before the deal, but the deal mixed in ${JSON.stringify(mixed)}`);
    }
  }
  return { published, record, seed, salt, helloBeforeDeal };
}
