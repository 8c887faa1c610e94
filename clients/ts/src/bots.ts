/**
 * A bot that knows no rules: asked to act, it picks one of the actions the
 * host listed (`request.legal_actions`), or the request's default when the
 * choice is too large to list. Valid for every game the host runs, so any
 * rejection it receives is a finding about the host.
 */
import { isWireMap, View, WireMap } from "./codec.js";
import { GameResult, TableSession } from "./session.js";

/** A small seeded generator (mulberry32), so a bot's game can be repeated. */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** What may be sent for the view's request: its legal actions, else its default alone. */
export function choices(view: View): WireMap[] {
  const request = view["request"];
  if (!isWireMap(request)) return [];
  const listed = request["legal_actions"];
  if (Array.isArray(listed) && listed.length > 0) return listed.filter(isWireMap);
  const fallback = request["default"];
  return isWireMap(fallback) ? [fallback] : [];
}

export class RandomBot {
  private readonly random: () => number;
  constructor(seed = 0) {
    this.random = seededRandom(seed);
  }
  choose(view: View): WireMap {
    const options = choices(view);
    if (options.length === 0) throw new Error(`the view of seat ${String(view["seat"])} lists no legal action and no default`);
    return options[Math.floor(this.random() * options.length)]!;
  }
}

export interface PlayStats {
  moves: number;
  rejects: number;
  roundTripsMs: number[];
}

/**
 * Plays the session's seat to the end of the game. After a rejection the bot
 * waits for the table to move on before choosing again; after RATE_LIMITED it
 * pauses and retries. `beforeMove` is awaited each time the seat is asked
 * (a bot that thinks a while, so a person can follow); the bot then chooses
 * from the view as it is, if the seat is still asked.
 */
export async function playSeat(session: TableSession, bot: RandomBot, stats: PlayStats = { moves: 0, rejects: 0, roundTripsMs: [] },
                               beforeMove?: (session: TableSession) => Promise<void>): Promise<GameResult> {
  let afterSeq = -1;
  for (;;) {
    let view = await session.waitForRequest(afterSeq);
    if (view === null) return session.waitGameOver();
    if (beforeMove !== undefined) {
      await beforeMove(session);
      view = session.view;
      if (session.gameOver || session.request === null) {
        afterSeq = -1;
        continue;
      }
    }
    const seqOfView = session.seq;
    const outcome = await session.commit(bot.choose(view));
    stats.roundTripsMs.push(outcome.roundTripMs);
    if (outcome.accepted) {
      stats.moves++;
      afterSeq = -1;
    } else {
      stats.rejects++;
      if (outcome.reason === "REJECT_REASON_RATE_LIMITED") await new Promise((resolve) => setTimeout(resolve, 200));
      else afterSeq = seqOfView;
    }
  }
}
