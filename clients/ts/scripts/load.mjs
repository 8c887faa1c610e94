#!/usr/bin/env node
// A load run with the TypeScript SDK as the client (src/load.ts), printing one
// JSON line: npm run build first, then
//   node scripts/load.mjs --target HOST:PORT --tables N [--game bigtwo] [--seats K]
//                         [--join-data JSON] [--seed S] [--timeout SECONDS] [--wait-go]
// --wait-go prints {"ready": true} once loaded and starts on the first line of
// stdin, so a benchmark can start several such processes together. The
// summary's client_cpu_s is this process's CPU while it played.
import { parseArgs } from "node:util";
import { createInterface } from "node:readline";

import { LobbyClient, runTables } from "../dist/src/index.js";
import { GrpcTransport } from "../dist/src/node.js";

const { values } = parseArgs({
  options: {
    target: { type: "string" }, tables: { type: "string" }, game: { type: "string", default: "bigtwo" },
    seats: { type: "string", default: "0" }, "join-data": { type: "string" }, seed: { type: "string", default: "1" },
    timeout: { type: "string", default: "240" }, "wait-go": { type: "boolean", default: false },
  },
});
if (!values.target || !values.tables) {
  console.error("usage: load.mjs --target HOST:PORT --tables N [--game G] [--seats K] [--join-data JSON] [--seed S] [--timeout S] [--wait-go]");
  process.exit(2);
}
const seatsByGame = { bigtwo: 4, duel: 2, kingdoms: 5 };
const seats = Number(values.seats) || seatsByGame[values.game] || 4;
const joinData = values["join-data"] ? JSON.parse(values["join-data"]) : values.game === "duel" ? { deck: "mage-basic" } : undefined;
if (values["wait-go"]) {
  console.log(JSON.stringify({ ready: true }));
  const lines = createInterface({ input: process.stdin });
  await new Promise((resolve) => lines.once("line", resolve));
  lines.close();
}
const transport = new GrpcTransport(values.target);
const cpuBefore = process.cpuUsage();
const summary = await runTables(new LobbyClient(transport), {
  game: values.game, tables: Number(values.tables), seats, seed: Number(values.seed), joinData,
  timeoutMs: Number(values.timeout) * 1000,
});
const cpu = process.cpuUsage(cpuBefore);
transport.close();
console.log(JSON.stringify({ ...summary, client_cpu_s: (cpu.user + cpu.system) / 1e6 }));
process.exit(summary.ok ? 0 : 1);
