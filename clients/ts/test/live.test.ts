// Full games of every built-in game against a live host, through the gRPC
// transport. tests/integration/test_ts_sdk.py starts the host and runs these
// with TABLEHOST_TARGET (and TABLEHOST_ORGANISER_TOKEN for the tournament);
// without them there is nothing to play against and every test fails.
import assert from "node:assert/strict";
import { test } from "node:test";

import { checkDeal, LobbyClient, playSeat, RandomBot, receivedGame, TableAssignment, TableSession, WireMap, wireMap } from "../src/index.js";
import { WebTransport } from "../src/index.js";
import { GrpcTransport } from "../src/node.js";

const target = process.env["TABLEHOST_TARGET"];
const webBase = process.env["TABLEHOST_WEB"];
const organiserToken = process.env["TABLEHOST_ORGANISER_TOKEN"];

type Kind = "grpc" | "web";
// Each test runs over both transports: gRPC as Node clients use it, and the
// web gateway as browsers do (Node's own WebSocket, --experimental-websocket).
const KINDS: Kind[] = ["grpc", "web"];
let kind: Kind = "grpc";

function lobby(): LobbyClient {
  if (kind === "web") {
    assert.ok(webBase, "TABLEHOST_WEB names no web gateway to play through");
    return new LobbyClient(new WebTransport(webBase));
  }
  assert.ok(target, "TABLEHOST_TARGET names no host to play against");
  return new LobbyClient(new GrpcTransport(target));
}

function both(name: string, options: { timeout: number }, body: () => Promise<void>): void {
  for (const each of KINDS) {
    test(`${name} [${each}]`, options, async () => {
      kind = each;
      await body();
    });
  }
}

async function seatAll(client: LobbyClient, game: string, seats: number, joinData?: WireMap): Promise<TableAssignment[]> {
  const run = `${kind}-${Date.now().toString(36)}`;
  return Promise.all(Array.from({ length: seats }, (_, i) =>
    client.joinQueue({ game, seats, displayName: `ts-${game}-${i}`, ticket: `ts-${game}-${run}-${i}`, joinData })));
}

async function playGame(game: string, seats: number, joinData?: WireMap): Promise<TableSession[]> {
  const client = lobby();
  try {
    const assignments = await seatAll(client, game, seats, joinData);
    assert.equal(new Set(assignments.map((a) => a.table_id)).size, 1, "the players were seated at one table");
    assert.deepEqual(assignments.map((a) => a.seat).sort(), Array.from({ length: seats }, (_, i) => i));
    const sessions = await Promise.all(assignments.map((a) => TableSession.connect(client, a, { record: true })));
    const results = await Promise.all(sessions.map((s, i) => playSeat(s, new RandomBot(i + 1))));
    for (const [i, session] of sessions.entries()) {
      assert.equal(session.desyncs, 0, `seat ${i}: hash mismatches`);
      assert.ok(session.hashesChecked > 2, `seat ${i} checked ${session.hashesChecked} hashes`);
      assert.equal(results[i]!.seq, results[0]!.seq, "every seat saw the same last seq");
      const checked = checkDeal(receivedGame(session));
      assert.ok(checked.helloBeforeDeal, "the hello came before the deal, so the entropy check ran");
    }
    for (const session of sessions) session.close();
    return sessions;
  } finally {
    client.transport.close();
  }
}

both("Big Two: four seats play to the end, every hash checked, every deal verified", { timeout: 120_000 }, async () => {
  const sessions = await playGame("bigtwo", 4);
  const result = sessions[0]!.result!;
  assert.ok(result.winner >= 0 && result.winner < 4);
  assert.deepEqual(result.result["cards_left"] !== undefined, true);
});

both("Duel: two decks play to the end", { timeout: 180_000 }, async () => {
  const sessions = await playGame("duel", 2, wireMap([["deck", "mage-basic"]]));
  assert.equal(sessions[0]!.result!.scores.length, 2);
});

both("Kingdoms: four seats play to the end", { timeout: 240_000 }, async () => {
  const sessions = await playGame("kingdoms", 4);
  assert.equal(sessions[0]!.result!.scores.length, 4);
});

both("a spectator follows a game, a seat reconnects with its last seq, and a repeated act_id is applied once", { timeout: 120_000 }, async () => {
  const client = lobby();
  try {
    const assignments = await seatAll(client, "bigtwo", 4);
    const sessions = await Promise.all(assignments.map((a) => TableSession.connect(client, a)));
    const watcher = await TableSession.connect(client, await client.spectate(assignments[0]!.table_id));
    assert.equal(watcher.seat, -1);
    await sessions[0]!.waitFor(() => sessions[0]!.dealt, 10_000, "deal");

    // The seat asked first commits, then sends the same act_id again.
    const asked = await Promise.race(sessions.map((s) => s.waitForRequest().then((view) => ({ s, view }))));
    const action = new RandomBot(7).choose(asked.view!);
    const first = await asked.s.commit(action, "ts-once");
    assert.ok(first.accepted, `${first.reason}: ${first.message}`);
    const again = await asked.s.commit(action, "ts-once");
    assert.ok(again.accepted && again.duplicate && again.seq === first.seq, "answered with the seq that applied it");

    // Drop a stream mid-game: the session comes back with the deltas it missed.
    sessions[1]!.reconnect();
    const results = await Promise.all(sessions.map((s, i) => playSeat(s, new RandomBot(20 + i))));
    const watched = await watcher.waitGameOver(30_000);
    assert.equal(watched.seq, results[0]!.seq);
    assert.ok(watcher.request === null, "a spectator is never asked");
    for (const session of [...sessions, watcher]) assert.equal(session.desyncs, 0);
    assert.ok(sessions[1]!.reconnects >= 1);
    for (const session of [...sessions, watcher]) session.close();
  } finally {
    client.transport.close();
  }
});

both("a tournament: register, watch the rounds, play each round's table", { timeout: 240_000 }, async () => {
  assert.ok(organiserToken, "TABLEHOST_ORGANISER_TOKEN is not set");
  const client = lobby();
  try {
    const created = await client.createTournament({ name: "ts sdk", game: "duel", format: "SWISS", rounds: 2, organiser_token: organiserToken });
    const deck = wireMap([["deck", "hunter-basic"]]);
    const players = await Promise.all(["ann", "bo", "cy", "di"].map((name) => `ts-${name}-${kind}`).map((name) => client.register(created.tournament_id, name, deck)));
    const seen: string[] = [];
    const plays = players.map(async (registration, i) => {
      const played: number[] = [];
      for await (const event of client.watchTournament(created.tournament_id, { player: registration.player, playerKey: registration.player_key })) {
        seen.push(event.event!);
        if (event.event === "round_started" && event.round_started!.table) {
          const session = await TableSession.connect(client, event.round_started!.table);
          await playSeat(session, new RandomBot(40 + i));
          assert.equal(session.desyncs, 0);
          session.close();
          played.push(event.round_started!.round);
        }
      }
      return played;
    });
    const status = await client.startTournament(created.tournament_id, created.organiser_key);
    assert.equal(status.state, "running");
    const played = await Promise.all(plays);
    assert.deepEqual(played, [[1, 2], [1, 2], [1, 2], [1, 2]]);
    const final = await client.getTournament(created.tournament_id);
    assert.equal(final.state, "finished");
    assert.equal(final.standings.length, 4);
    // Round 1's standings come as round 2 starts; the last round's in the final status.
    assert.ok(seen.includes("round_ended"), `events seen: ${seen.join(", ")}`);
    const results = await client.getResults(created.tournament_id);
    assert.equal(results.results_total, 4);
  } finally {
    client.transport.close();
  }
});
