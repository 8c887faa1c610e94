// Every vector of protos/conformance/ (docs/protocol.md sections 3 to 5),
// read in the kit's tagged JSON form, through this SDK's codec.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";

import { applyDelta, decode, encode, exactInteger, Value, viewHash, WireFloat, wireMap, WireMap } from "../src/codec.js";

const KIT = join(dirname(fileURLToPath(import.meta.url)), "..", "..", "..", "..", "protos", "conformance");

type Case = Record<string, unknown> & { name: string };

function cases(file: string): Case[] {
  const parsed = JSON.parse(readFileSync(join(KIT, file), "utf8")) as { format_version: number; cases: Case[] };
  assert.equal(parsed.format_version, 1);
  assert.ok(parsed.cases.length > 0, `${file} has no cases`);
  return parsed.cases;
}

function hex(text: string): Uint8Array {
  return Uint8Array.from(Buffer.from(text, "hex"));
}

function toHex(bytes: Uint8Array): string {
  return Buffer.from(bytes).toString("hex");
}

/** The kit's tagged JSON as this SDK's values. */
function fromJson(json: unknown): Value {
  if (json === null || typeof json === "boolean" || typeof json === "string") return json;
  if (Array.isArray(json)) return json.map(fromJson);
  const tagged = json as Record<string, unknown>;
  if ("int" in tagged) return exactInteger(BigInt(tagged["int"] as string));
  if ("bin" in tagged) return hex(tagged["bin"] as string);
  if ("float" in tagged) return new WireFloat(Number(tagged["float"]));
  if ("map" in tagged) {
    const map = wireMap();
    for (const [key, value] of tagged["map"] as [unknown, unknown][]) {
      if (typeof key !== "string") throw new Error(`a map key that is not a string: ${JSON.stringify(key)}`);
      map[key] = fromJson(value);
    }
    return map;
  }
  throw new Error(`not a tagged value: ${JSON.stringify(json)}`);
}

/** Deep equality that keeps MessagePack types apart (1 is not true, "" is not a bin, [] is not {}). */
function sameValue(a: Value, b: Value): boolean {
  if (typeof a !== typeof b) return false;
  if (a === null || b === null || typeof a !== "object") return a === b;
  if (a instanceof Uint8Array) return b instanceof Uint8Array && toHex(a) === toHex(b);
  if (Array.isArray(a)) return Array.isArray(b) && a.length === b.length && a.every((item, i) => sameValue(item, b[i]!));
  if (a instanceof WireFloat) return b instanceof WireFloat && a.value === b.value;
  if (b === null || typeof b !== "object" || Array.isArray(b) || b instanceof Uint8Array || b instanceof WireFloat) return false;
  const keys = Object.keys(a);
  return keys.length === Object.keys(b).length && keys.every((key) => Object.hasOwn(b, key) && sameValue(a[key]!, b[key]!));
}

test("encoding.json: encode(value) == hex and decode(hex) == value", () => {
  for (const c of cases("encoding.json")) {
    const value = fromJson(c["value"]);
    assert.equal(toHex(encode(value)), c["hex"], c.name);
    assert.ok(sameValue(decode(hex(c["hex"] as string)), value), c.name);
  }
});

test("decoding.json: non-canonical bytes decode exactly and re-encode canonically", () => {
  for (const c of cases("decoding.json")) {
    const decoded = decode(hex(c["hex"] as string));
    assert.ok(sameValue(decoded, fromJson(c["value"])), c.name);
    assert.equal(toHex(encode(decoded)), c["canonical_hex"], c.name);
  }
});

test("refused.json: values the canonical encoding has no form for", () => {
  for (const c of cases("refused.json")) {
    // A non-string map key cannot even be built as a WireMap (JavaScript
    // objects turn keys into strings), so fromJson refuses those cases and
    // encode the rest (floats, integers outside 64 bits).
    assert.throws(() => encode(fromJson(c["value"])), Error, c.name);
  }
});

test("hashes.json: canonical bytes and view hash", () => {
  for (const c of cases("hashes.json")) {
    const view = fromJson(c["view"]) as WireMap;
    assert.equal(toHex(encode(view)), c["hex"], c.name);
    assert.equal(viewHash(view), c["view_hash"], c.name);
  }
});

test("deltas.json: applying gives the expected view and leaves the old one", () => {
  for (const c of cases("deltas.json")) {
    const view = fromJson(c["view"]) as WireMap;
    const delta = decode(hex(c["delta_hex"] as string));
    assert.ok(sameValue(delta, fromJson(c["delta"])), c.name);
    const after = applyDelta(view, delta);
    assert.ok(sameValue(after, fromJson(c["expected_view"])), c.name);
    assert.equal(viewHash(after), c["expected_view_hash"], c.name);
    assert.equal(viewHash(view), c["view_hash"], `${c.name}: the view given was changed`);
  }
});

test("invalid_deltas.json: refused whole, the view unchanged", () => {
  for (const c of cases("invalid_deltas.json")) {
    const view = fromJson(c["view"]) as WireMap;
    assert.throws(() => applyDelta(view, decode(hex(c["delta_hex"] as string))), Error, c.name);
    assert.equal(viewHash(view), c["view_hash"], c.name);
  }
});

test("keys sort by UTF-8 bytes, not UTF-16 code units", () => {
  const map = wireMap([["\u{1F600}", 1], ["\uFF5E", 2]]);
  assert.equal(toHex(encode(map)), "82a3efbd9e02a4f09f988001");
});
