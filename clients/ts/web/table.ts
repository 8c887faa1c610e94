/**
 * The web table: a page the front door serves (host/web/) where a person
 * joins a queue or a private table, plays against bots or people, spectates,
 * or follows a tournament, through the web gateway. Built by `npm run bundle`
 * into host/web/table.js. The page keeps no rules: it offers the legal actions
 * the host lists, and shows the view it holds, checked hash by hash.
 */
import {
  checkDeal, isWireMap, LobbyClient, playSeat, RandomBot, receivedGame, Standing, TableAssignment, TableSession, Value, View,
  WebTransport, WireMap, wireMap,
} from "../src/index.js";

const $ = <T extends HTMLElement = HTMLElement>(id: string): T => document.getElementById(id) as T;
const params = new URLSearchParams(location.search);
const botDelayMs = Number(params.get("botDelay") ?? "400");
const lobby = new LobbyClient(new WebTransport(location.origin));
const cleanups: (() => void)[] = [];

let session: TableSession | null = null;
let selected = new Set<string>();

function log(line: string): void {
  const out = $("log");
  out.textContent = `${line}\n${out.textContent ?? ""}`.slice(0, 4000);
}

function text(value: Value | undefined): string {
  if (value === null || value === undefined) return "–";
  if (Array.isArray(value)) return value.map(text).join(" ");
  if (isWireMap(value)) return String(value["name"] ?? value["id"] ?? "?");
  return String(value);
}

function element(tag: string, props: Record<string, string> = {}, children: (Node | string)[] = []): HTMLElement {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(props)) {
    if (key === "text") node.textContent = value;
    else node.setAttribute(key, value);
  }
  node.append(...children);
  return node;
}

// -- names of things in a view, for labels ------------------------------------------

function namesOf(view: View): Map<string, string> {
  const names = new Map<string, string>();
  const visit = (value: Value | undefined): void => {
    if (Array.isArray(value)) value.forEach(visit);
    else if (isWireMap(value)) {
      if (typeof value["id"] === "string" && typeof value["name"] === "string") names.set(value["id"], value["name"]);
      Object.values(value).forEach(visit);
    }
  };
  visit(view);
  const players = view["players"];
  if (Array.isArray(players)) {
    players.forEach((player, seat) => {
      const name = isWireMap(player) ? player["name"] : player;
      if (typeof name === "string") names.set(`p${seat}`, `${name}'s hero`);
    });
  }
  return names;
}

/** A person's words for an action: its type, then what it names. */
export function describe(action: WireMap, view: View): string {
  const names = namesOf(view);
  const name = (value: Value): string => {
    if (Array.isArray(value)) return value.length === 0 ? "none" : value.map(name).join(", ");
    if (typeof value === "string") return names.get(value) ?? value;
    if (typeof value === "number" && view["game"] === "kingdoms") return `seat ${value}`;
    return text(value);
  };
  const parts = Object.keys(action).filter((key) => key !== "type").map((key) => `${key}: ${name(action[key]!)}`);
  return [String(action["type"]).replace(/_/g, " "), ...parts].join(" · ");
}

// -- rendering ------------------------------------------------------------------------

function renderStatus(current: TableSession): void {
  const status = $("status");
  status.dataset["seq"] = String(current.seq);
  status.dataset["hashes"] = String(current.hashesChecked);
  status.dataset["desyncs"] = String(current.desyncs);
  status.dataset["seat"] = String(current.seat);
  status.textContent = `table ${current.tableId} · ${current.seat < 0 ? "spectating" : `seat ${current.seat}`} · seq ${current.seq}` +
    ` · ${current.hashesChecked} hashes checked, ${current.desyncs} mismatches`;
}

function renderPlayers(view: View): void {
  const players = view["players"];
  const box = $("players");
  box.replaceChildren();
  if (!Array.isArray(players)) return;
  const counts = view["hand_counts"];
  players.forEach((player, seat) => {
    const facts: string[] = [];
    if (isWireMap(player)) {
      facts.push(String(player["name"]));
      if (player["general"]) facts.push(String(player["general"]));
      if (player["identity"]) facts.push(String(player["identity"]));
      facts.push(`♥ ${text(player["health"])}/${text(player["max_health"])}`, `${text(player["hand_count"])} cards`);
      if (player["alive"] === false) facts.push("dead");
    } else {
      facts.push(String(player));
      if (Array.isArray(counts)) facts.push(`${text(counts[seat])} cards`);
    }
    const toAct = view["to_act"] === seat || view["current"] === seat;
    box.append(element("div", { class: `player${toAct ? " to-act" : ""}${seat === view["seat"] ? " me" : ""}`, "data-seat": String(seat), text: `${seat}: ${facts.join(" · ")}` }));
  });
}

function renderBoard(view: View): void {
  const board = $("board");
  board.replaceChildren();
  const game = view["game"];
  if (game === "bigtwo") {
    const last = view["last_play"];
    board.append(element("div", { id: "last-play", text: isWireMap(last) ? `to beat: ${text(last["cards"])} (seat ${text(last["seat"])}, ${text(last["kind"])})` : "leading: play anything" + (view["first_play"] ? " with 3C" : "") }));
    const passed = view["passed"];
    if (Array.isArray(passed) && passed.length > 0) board.append(element("div", { text: `passed: seats ${passed.join(", ")}` }));
  } else if (game === "duel") {
    const heroes = view["heroes"];
    const boards = view["boards"];
    if (Array.isArray(heroes)) {
      heroes.forEach((hero, seat) => {
        if (!isWireMap(hero)) return;
        const minions = Array.isArray(boards) && Array.isArray(boards[seat]) ? boards[seat] : [];
        const line = minions.filter(isWireMap).map((m) => `${text(m["name"])} ${text(m["attack"])}/${text(m["health"])}`).join(" | ");
        board.append(element("div", { class: "hero", text: `seat ${seat} ${text(hero["class"])}: ♥ ${text(hero["health"])} armor ${text(hero["armor"])} mana ${text(hero["mana"])}/${text(hero["capacity"])} · board: ${line || "empty"}` }));
      });
    }
    board.append(element("div", { text: `stage ${text(view["stage"])} · turn ${text(view["turn"])}` }));
  } else if (game === "kingdoms") {
    const prompt = view["prompt"];
    board.append(element("div", { text: `round ${text(view["round"])} · ${text(view["phase"])} of seat ${text(view["current"])} · deck ${text(view["deck_count"])}` }));
    if (isWireMap(prompt)) board.append(element("div", { id: "prompt", text: `waiting for: ${text(prompt["kind"])} from seats ${text(prompt["seats"])}` }));
    const processing = view["processing"];
    if (Array.isArray(processing) && processing.length > 0) board.append(element("div", { text: `on the table: ${text(processing)}` }));
  }
}

function bigTwoPlays(view: View): string[][] {
  const request = view["request"];
  const actions = isWireMap(request) && Array.isArray(request["legal_actions"]) ? request["legal_actions"] : [];
  return actions.filter(isWireMap).filter((a) => a["type"] === "play").map((a) => (a["cards"] as string[]).slice().sort());
}

function renderHand(view: View, current: TableSession): void {
  const box = $("hand");
  box.replaceChildren();
  const hand = view["hand"];
  if (!Array.isArray(hand)) return;
  for (const card of hand) {
    const id = typeof card === "string" ? card : isWireMap(card) ? String(card["id"]) : "?";
    const label = typeof card === "string" ? card : `${text((card as WireMap)["name"])}${isWireMap(card) && card["cost"] !== undefined ? ` (${text(card["cost"])})` : ""}`;
    const button = element("button", { class: `card${selected.has(id) ? " selected" : ""}`, "data-card": id, text: label });
    if (view["game"] === "bigtwo") {
      button.addEventListener("click", () => {
        if (selected.has(id)) selected.delete(id);
        else selected.add(id);
        render(current);
      });
    } else button.setAttribute("disabled", "");
    box.append(button);
  }
}

function renderActions(view: View, current: TableSession): void {
  const box = $("actions");
  box.replaceChildren();
  const request = view["request"];
  if (!isWireMap(request) || current.gameOver || !current.synchronized) return;
  const send = (action: WireMap): void => {
    box.querySelectorAll("button").forEach((b) => b.setAttribute("disabled", ""));
    void current.commit(action).then((outcome) => {
      if (!outcome.accepted) log(`refused: ${outcome.reason.replace("REJECT_REASON_", "")}: ${outcome.message}`);
      selected = new Set();
      render(current);
    });
  };
  const listed = Array.isArray(request["legal_actions"]) ? request["legal_actions"].filter(isWireMap) : [];
  if (view["game"] === "bigtwo") {
    const chosen = [...selected].sort();
    const legal = bigTwoPlays(view).some((cards) => cards.length === chosen.length && cards.every((c, i) => c === chosen[i]));
    const play = element("button", { id: "play-selected", text: `Play ${chosen.join(" ") || "(select cards)"}` });
    if (!legal) play.setAttribute("disabled", "");
    play.addEventListener("click", () => send(wireMap([["type", "play"], ["cards", chosen]])));
    box.append(play);
    if (listed.some((a) => a["type"] === "pass")) {
      const pass = element("button", { id: "pass", text: "Pass" });
      pass.addEventListener("click", () => send(wireMap([["type", "pass"]])));
      box.append(pass);
    }
    const hints = element("div", { class: "hints" }, ["legal plays: "]);
    for (const cards of bigTwoPlays(view).slice(0, 24)) {
      const hint = element("button", { class: "hint", "data-cards": cards.join(" "), text: cards.join(" ") });
      hint.addEventListener("click", () => {
        selected = new Set(cards);
        render(current);
      });
      hints.append(hint);
    }
    box.append(hints);
    return;
  }
  listed.forEach((action, index) => {
    const button = element("button", { class: "action", "data-type": String(action["type"]), "data-index": String(index), text: describe(action, view) });
    button.addEventListener("click", () => send(action));
    box.append(button);
  });
  if (listed.length === 0 && isWireMap(request["default"])) {
    const choice = request["choice"];
    box.append(element("div", { text: `choose: ${isWireMap(choice) ? JSON.stringify(choice) : "?"}` }));
    const fallback = element("button", { class: "action", "data-type": "default", text: `Default: ${describe(request["default"], view)}` });
    fallback.addEventListener("click", () => send(request["default"] as WireMap));
    box.append(fallback);
  }
}

function render(current: TableSession): void {
  if (current !== session) return;
  const view = current.view;
  renderStatus(current);
  renderPlayers(view);
  renderBoard(view);
  renderHand(view, current);
  renderActions(view, current);
  tickTimer();
}

function tickTimer(): void {
  const timer = $("timer");
  const view = session?.view;
  const request = view?.["request"];
  const deadline = isWireMap(request) && typeof request["deadline_ms"] === "number" ? request["deadline_ms"] : view?.["deadline_ms"];
  if (typeof deadline !== "number" || session?.gameOver !== false) {
    timer.textContent = "";
    delete timer.dataset["secondsLeft"];
    return;
  }
  const left = Math.max(0, Math.ceil((deadline - Date.now()) / 1000));
  timer.textContent = `${isWireMap(request) ? "your turn" : "turn"}: ${left} s left`;
  timer.dataset["secondsLeft"] = String(left);
}

// -- sitting down ---------------------------------------------------------------------

function joinData(game: string): WireMap | undefined {
  return game === "duel" ? wireMap([["deck", $<HTMLSelectElement>("deck").value]]) : undefined;
}

function seatsOf(game: string): number {
  return game === "kingdoms" ? Number($<HTMLInputElement>("seats").value) : 0;
}

async function sit(assignment: TableAssignment): Promise<void> {
  for (const cleanup of cleanups.splice(0)) cleanup();
  $("setup").hidden = true;
  $("table").hidden = false;
  $("result").textContent = "";
  const current = await TableSession.connect(lobby, assignment, { record: assignment.seat >= 0 });
  session = current;
  cleanups.push(current.onUpdate((update) => {
    if (update.kind === "game_over") gameOver(current);
    else if (update.kind === "disconnected") log(`disconnected: ${current.failure?.message ?? ""}`);
    render(current);
  }));
  render(current);
  if (current.gameOver) gameOver(current);
}

function gameOver(current: TableSession): void {
  const result = current.result!;
  const box = $("result");
  box.dataset["winner"] = String(result.winner);
  let verdict = "";
  if (current.seat >= 0) {
    try {
      checkDeal(receivedGame(current));
      verdict = "deal verified: the seed opens the commitment and your entropy was dealt in";
      box.dataset["verified"] = "true";
    } catch (error) {
      verdict = `deal check failed: ${String(error)}`;
      box.dataset["verified"] = "false";
    }
  }
  box.textContent = `game over · winner: seat ${result.winner} · scores ${result.scores.join(", ")} · ${verdict}`;
}

async function playAgainstBots(): Promise<void> {
  const game = $<HTMLSelectElement>("game").value;
  const created = await lobby.createPrivateTable(game, { seats: seatsOf(game) });
  log(`private table ${created.code}: ${created.seats} seats, ${created.seats - 1} bots`);
  const name = $<HTMLInputElement>("name").value || "player";
  const mine = lobby.joinPrivateTable(created.code, { displayName: name, joinData: joinData(game) });
  for (let i = 1; i < created.seats; i++) {
    void (async () => {
      const assignment = await lobby.joinPrivateTable(created.code, { displayName: `bot ${i}`, joinData: joinData(game) });
      const bot = await TableSession.connect(lobby, assignment);
      const think = (): Promise<void> => new Promise((resolve) => setTimeout(resolve, botDelayMs));
      await playSeat(bot, new RandomBot(i), undefined, botDelayMs > 0 ? think : undefined);
      bot.close();
    })().catch((error: unknown) => log(`bot ${i}: ${String(error)}`));
  }
  await sit(await mine);
}

async function followTournament(id: string): Promise<void> {
  $("setup").hidden = true;
  $("tournament").hidden = false;
  const table = $("standings");
  const show = (standings: Standing[], caption: string): void => {
    $("tournament-caption").textContent = caption;
    table.replaceChildren(element("tr", {}, ["place", "player", "points", "games", "wins"].map((h) => element("th", { text: h }))));
    for (const s of standings) {
      table.append(element("tr", { class: "standing" }, [String(s.place), s.player, String(s.points), String(s.games), String(s.wins)].map((c) => element("td", { text: c }))));
    }
  };
  for await (const event of lobby.watchTournament(id)) {
    if (event.status) {
      const status = event.status;
      $("tournament").dataset["state"] = status.state;
      show(status.standings, `${status.name}: ${status.state}, round ${status.round} of ${status.rounds}, ${status.games_played} games played`);
    } else if (event.round_ended) show(event.round_ended.standings, `round ${event.round_ended.round} ended`);
  }
}

function guarded(action: () => Promise<void>): () => void {
  return () => void action().catch((error: unknown) => {
    log(String(error));
    $("setup").hidden = false;
  });
}

function setup(): void {
  const gameChanged = (): void => {
    const game = $<HTMLSelectElement>("game").value;
    $("deck-label").hidden = game !== "duel";
    $("seats-label").hidden = game !== "kingdoms";
  };
  $("game").addEventListener("change", gameChanged);
  gameChanged();
  $("play-bots").addEventListener("click", guarded(playAgainstBots));
  $("join-queue").addEventListener("click", guarded(async () => {
    const game = $<HTMLSelectElement>("game").value;
    log("waiting in the queue…");
    await sit(await lobby.joinQueue({ game, seats: seatsOf(game), displayName: $<HTMLInputElement>("name").value, joinData: joinData(game) }));
  }));
  $("create-private").addEventListener("click", guarded(async () => {
    const game = $<HTMLSelectElement>("game").value;
    const created = await lobby.createPrivateTable(game, { seats: seatsOf(game) });
    $<HTMLInputElement>("code").value = created.code;
    log(`private table ${created.code} (${created.seats} seats): give the code to the others`);
  }));
  $("join-private").addEventListener("click", guarded(async () => {
    const game = $<HTMLSelectElement>("game").value;
    await sit(await lobby.joinPrivateTable($<HTMLInputElement>("code").value.trim(), { displayName: $<HTMLInputElement>("name").value, joinData: joinData(game) }));
  }));
  $("spectate").addEventListener("click", guarded(async () => sit(await lobby.spectate($<HTMLInputElement>("table-id").value.trim()))));
  $("follow").addEventListener("click", guarded(() => followTournament($<HTMLInputElement>("tournament-id").value.trim())));
  setInterval(tickTimer, 250);
}

setup();
