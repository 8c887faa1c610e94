/**
 * A load run with this SDK as the client: `tables` tables of random bots,
 * each seat joining the queue, connecting and playing one whole game, every
 * hash checked. What the host benchmark runs beside the Python bots
 * (tests/benchmarks/hostbench/moves.py), and what `scripts/load.mjs` prints.
 */
import { WireMap } from "./codec.js";
import { playSeat, PlayStats, RandomBot } from "./bots.js";
import { LobbyClient } from "./lobby.js";
import { TableSession } from "./session.js";

export interface LoadOptions {
  game: string;
  tables: number;
  seats: number;
  seed: number;
  joinData?: WireMap;
  timeoutMs: number;
}

export interface LoadSummary {
  ok: boolean;
  tables_expected: number;
  games_completed: number;
  moves: number;
  rejects: number;
  desyncs: number;
  errors: number;
  reconnects: number;
  hashes_checked: number;
  elapsed_s: number;
  moves_per_s: number;
  p50_ms: number;
  p99_ms: number;
  error_messages: string[];
}

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return 0;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

/** Plays the tables to their end (or the timeout) and sums up what the bots measured. */
export async function runTables(lobby: LobbyClient, options: LoadOptions): Promise<LoadSummary> {
  const stats: PlayStats = { moves: 0, rejects: 0, roundTripsMs: [] };
  const errors: string[] = [];
  const sessions: TableSession[] = [];
  let completed = 0;
  const started = performance.now();
  const run = `${options.seed}-${Date.now().toString(36)}`;
  const seat = async (index: number): Promise<void> => {
    try {
      const assignment = await lobby.joinQueue({
        game: options.game, seats: options.seats, displayName: `ts-${index}`, ticket: `ts-load-${run}-${index}`,
        joinData: options.joinData,
      });
      const session = await TableSession.connect(lobby, assignment);
      sessions.push(session);
      await playSeat(session, new RandomBot(options.seed * 100_003 + index), stats);
      if (session.seat === 0) completed++;
      session.close();
    } catch (error) {
      errors.push(String(error));
    }
  };
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timedOut = new Promise<"timeout">((resolve) => (timer = setTimeout(() => resolve("timeout"), options.timeoutMs)));
  const players = Array.from({ length: options.tables * options.seats }, (_, index) => seat(index));
  const outcome = await Promise.race([Promise.all(players), timedOut]);
  clearTimeout(timer);
  if (outcome === "timeout") errors.push(`not done within ${options.timeoutMs} ms`);
  const elapsed = (performance.now() - started) / 1000;
  const trips = [...stats.roundTripsMs].sort((a, b) => a - b);
  const desyncs = sessions.reduce((sum, s) => sum + s.desyncs, 0);
  for (const session of sessions) session.close();
  return {
    ok: errors.length === 0 && desyncs === 0 && completed === options.tables,
    tables_expected: options.tables,
    games_completed: completed,
    moves: stats.moves,
    rejects: stats.rejects,
    desyncs,
    errors: errors.length,
    reconnects: sessions.reduce((sum, s) => sum + s.reconnects, 0),
    hashes_checked: sessions.reduce((sum, s) => sum + s.hashesChecked, 0),
    elapsed_s: Math.round(elapsed * 1000) / 1000,
    moves_per_s: Math.round((stats.moves / elapsed) * 10) / 10,
    p50_ms: percentile(trips, 50),
    p99_ms: percentile(trips, 99),
    error_messages: errors.slice(0, 5),
  };
}
