/**
 * The wire payload format of docs/protocol.md sections 3 to 5: canonical
 * MessagePack, view hashes and deltas.
 *
 * Written from the protocol page, not from a MessagePack library: a library
 * keeps the width an integer arrived in, or writes numbers above 2^32 as
 * float64, or sorts keys by UTF-16 code units, and each of those is a hash
 * mismatch. Values keep their MessagePack types apart:
 *
 * | MessagePack | here |
 * |---|---|
 * | nil, true/false | `null`, `boolean` |
 * | integer | `number` when it is a safe integer, else `bigint` (exact to 64 bits) |
 * | str, bin | `string`, `Uint8Array` |
 * | array | `Value[]` |
 * | map | a `WireMap`: a plain object without prototype, string keys only |
 * | float | `WireFloat` (decoded so a foreign value is still exact; never encoded) |
 */
import { sha256 } from "@noble/hashes/sha2";
import { bytesToHex } from "@noble/hashes/utils";

export type Value = null | boolean | number | bigint | string | Uint8Array | Value[] | WireMap | WireFloat;
export interface WireMap {
  [key: string]: Value;
}
export type View = WireMap;
/** One operation: `[path]` deletes the path's last key, `[path, value]` sets it. */
export type DeltaOp = [string[]] | [string[], Value];

/** A MessagePack float: the canonical encoding has none, so encoding refuses it. */
export class WireFloat {
  constructor(readonly value: number) {}
}

/** A value the canonical encoding has no form for (a float, an integer outside 64 bits, a non-string key). */
export class CanonicalEncodingError extends TypeError {}

/** Bytes that are not exactly one MessagePack value. */
export class DecodeError extends Error {}

/** A delta that does not fit the view: the views diverged, only a snapshot repairs it. */
export class DeltaError extends Error {}

const UINT64_MAX = (1n << 64n) - 1n;
const INT64_MIN = -(1n << 63n);
const utf8 = new TextEncoder();
const utf8Strict = new TextDecoder("utf-8", { fatal: true });

/** A map with no prototype: keys such as `__proto__` or `constructor` are ordinary keys. */
export function wireMap(entries: Iterable<[string, Value]> = []): WireMap {
  const map = Object.create(null) as WireMap;
  for (const [key, value] of entries) map[key] = value;
  return map;
}

export function isWireMap(value: unknown): value is WireMap {
  return (
    typeof value === "object" &&
    value !== null &&
    !Array.isArray(value) &&
    !(value instanceof Uint8Array) &&
    !(value instanceof WireFloat)
  );
}

// -- encoding -------------------------------------------------------------------

class Writer {
  private buffer = new Uint8Array(4096);
  private view = new DataView(this.buffer.buffer);
  length = 0;

  /** Starts over, keeping the buffer: one writer serves every encode (views are hashed on every delta). */
  reset(): this {
    this.length = 0;
    return this;
  }

  private reserve(extra: number): void {
    if (this.length + extra <= this.buffer.length) return;
    let size = this.buffer.length * 2;
    while (size < this.length + extra) size *= 2;
    const grown = new Uint8Array(size);
    grown.set(this.buffer.subarray(0, this.length));
    this.buffer = grown;
    this.view = new DataView(grown.buffer);
  }

  byte(value: number): void {
    this.reserve(1);
    this.buffer[this.length++] = value;
  }

  bytes(data: Uint8Array): void {
    this.reserve(data.length);
    this.buffer.set(data, this.length);
    this.length += data.length;
  }

  /** A marker then a big-endian number of `size` bytes (1, 2, 4 or 8). */
  marked(marker: number, size: number, value: number | bigint, signed: boolean): void {
    this.reserve(1 + size);
    this.buffer[this.length] = marker;
    const at = this.length + 1;
    if (size === 8) {
      if (signed) this.view.setBigInt64(at, BigInt(value));
      else this.view.setBigUint64(at, BigInt(value));
    } else if (size === 4) {
      if (signed) this.view.setInt32(at, Number(value));
      else this.view.setUint32(at, Number(value));
    } else if (size === 2) {
      if (signed) this.view.setInt16(at, Number(value));
      else this.view.setUint16(at, Number(value));
    } else if (signed) this.view.setInt8(at, Number(value));
    else this.view.setUint8(at, Number(value));
    this.length += 1 + size;
  }

  /** A copy of what was written. */
  result(): Uint8Array {
    return this.buffer.slice(0, this.length);
  }

  /** What was written, without a copy: valid until the next encode. */
  written(): Uint8Array {
    return this.buffer.subarray(0, this.length);
  }
}

// Encoded keys and short strings: views repeat the same keys and card codes on
// every hash. Bounded, so odd strings from a host cannot grow it forever.
const stringCache = new Map<string, Uint8Array>();
const STRING_CACHE_LIMIT = 4096;
const STRING_CACHE_MAX_LENGTH = 32;

function utf8Of(value: string): Uint8Array {
  const cached = stringCache.get(value);
  if (cached !== undefined) return cached;
  if (!value.isWellFormed()) {
    throw new CanonicalEncodingError(`string ${JSON.stringify(value)} has a lone surrogate: it has no UTF-8`);
  }
  const data = utf8.encode(value);
  if (value.length <= STRING_CACHE_MAX_LENGTH && stringCache.size < STRING_CACHE_LIMIT) stringCache.set(value, data);
  return data;
}

function compareBytes(a: Uint8Array, b: Uint8Array): number {
  const length = Math.min(a.length, b.length);
  for (let i = 0; i < length; i++) {
    if (a[i] !== b[i]) return a[i]! - b[i]!;
  }
  return a.length - b.length;
}

/**
 * Keys sorted by their UTF-8 bytes: JavaScript's own string order is by UTF-16
 * code units, which differs only when a key has a character above U+FFFF (a
 * surrogate) where another has one from U+E000 to U+FFFF. Keys without
 * surrogates (nearly all) sort as JavaScript sorts them; the others by bytes.
 */
function sortedKeys(keys: string[]): string[] {
  if (!keys.some((key) => /[\uD800-\uDFFF]/.test(key))) return keys.sort();
  return keys.sort((a, b) => compareBytes(utf8Of(a), utf8Of(b)));
}

function writeInteger(out: Writer, value: number | bigint): void {
  if (typeof value === "number") {
    if (value >= 0 && value <= 0x7f) return out.byte(value);
    if (value < 0 && value >= -32) return out.byte(value & 0xff);
    if (!Number.isSafeInteger(value)) return writeInteger(out, BigInt(value));
  }
  const big = BigInt(value);
  if (big > UINT64_MAX || big < INT64_MIN) throw new CanonicalEncodingError(`${big} does not fit in 64 bits`);
  if (big >= 0n) {
    if (big <= 0x7fn) out.byte(Number(big));
    else if (big <= 0xffn) out.marked(0xcc, 1, big, false);
    else if (big <= 0xffffn) out.marked(0xcd, 2, big, false);
    else if (big <= 0xffffffffn) out.marked(0xce, 4, big, false);
    else out.marked(0xcf, 8, big, false);
  } else if (big >= -32n) out.byte(Number(big) & 0xff);
  else if (big >= -0x80n) out.marked(0xd0, 1, big, true);
  else if (big >= -0x8000n) out.marked(0xd1, 2, big, true);
  else if (big >= -0x80000000n) out.marked(0xd2, 4, big, true);
  else out.marked(0xd3, 8, big, true);
}

/** The smallest length prefix: the fix form when the type has one and the length fits, else 8, 16 or 32 bits. */
function writeHeader(out: Writer, length: number, fixBase: number | null, fixMax: number, m8: number | null, m16: number, m32: number): void {
  if (fixBase !== null && length <= fixMax) out.byte(fixBase | length);
  else if (m8 !== null && length <= 0xff) out.marked(m8, 1, length, false);
  else if (length <= 0xffff) out.marked(m16, 2, length, false);
  else out.marked(m32, 4, length, false);
}

function writeString(out: Writer, value: string): void {
  const data = utf8Of(value);
  writeHeader(out, data.length, 0xa0, 31, 0xd9, 0xda, 0xdb);
  out.bytes(data);
}

function write(out: Writer, value: Value): void {
  switch (typeof value) {
    case "string":
      return writeString(out, value);
    case "number":
      if (!Number.isInteger(value)) throw new CanonicalEncodingError(`the canonical encoding has no floats, got ${value}`);
      return writeInteger(out, value);
    case "bigint":
      return writeInteger(out, value);
    case "boolean":
      return out.byte(value ? 0xc3 : 0xc2);
  }
  if (value === null) return out.byte(0xc0);
  if (Array.isArray(value)) {
    writeHeader(out, value.length, 0x90, 15, null, 0xdc, 0xdd);
    for (const item of value) write(out, item);
    return;
  }
  if (value instanceof Uint8Array) {
    writeHeader(out, value.length, null, 0, 0xc4, 0xc5, 0xc6);
    out.bytes(value);
    return;
  }
  if (value instanceof WireFloat) throw new CanonicalEncodingError(`the canonical encoding has no floats, got ${value.value}`);
  if (typeof value === "object") {
    const keys = sortedKeys(Object.keys(value));
    writeHeader(out, keys.length, 0x80, 15, null, 0xde, 0xdf);
    for (const key of keys) {
      writeString(out, key);
      write(out, value[key]!);
    }
    return;
  }
  throw new CanonicalEncodingError(`${typeof value} is not MessagePack data`);
}

const shared = new Writer();

/** The canonical MessagePack bytes of `value` (docs/protocol.md section 3). */
export function encode(value: Value): Uint8Array {
  write(shared.reset(), value);
  return shared.result();
}

type Hasher = (bytes: Uint8Array) => string;
let hasher: Hasher = (bytes) => bytesToHex(sha256(bytes));

/**
 * Replaces the SHA-256 the view hash uses (the portable one by default): Node's
 * entry point installs its native one, many times faster on every delta.
 */
export function useSha256(hex: Hasher): void {
  hasher = hex;
}

/** The bytes of a Commit's action: a map with a string `type`, checked here so a mistake is a local error, not a MALFORMED rejection. */
export function encodeAction(action: WireMap): Uint8Array {
  if (!isWireMap(action)) throw new CanonicalEncodingError("an action is a map");
  if (typeof action["type"] !== "string") throw new CanonicalEncodingError(`an action needs a string 'type', got ${JSON.stringify(action)}`);
  return encode(action);
}

// -- decoding -------------------------------------------------------------------

const MAX_DEPTH = 512;

class Reader {
  private readonly view: DataView;
  at = 0;
  constructor(readonly data: Uint8Array) {
    this.view = new DataView(data.buffer, data.byteOffset, data.byteLength);
  }

  need(count: number): number {
    if (this.at + count > this.data.length) throw new DecodeError(`truncated at byte ${this.at}`);
    const start = this.at;
    this.at += count;
    return start;
  }

  u8(): number {
    return this.view.getUint8(this.need(1));
  }
  u16(): number {
    return this.view.getUint16(this.need(2));
  }
  u32(): number {
    return this.view.getUint32(this.need(4));
  }
  slice(count: number): Uint8Array {
    const start = this.need(count);
    return this.data.slice(start, start + count);
  }
  text(count: number): string {
    const start = this.need(count);
    try {
      return utf8Strict.decode(this.data.subarray(start, start + count));
    } catch {
      throw new DecodeError(`a string at byte ${start} is not UTF-8`);
    }
  }
  integer(size: number, signed: boolean): number | bigint {
    const at = this.need(size);
    let value: number | bigint;
    if (size === 1) value = signed ? this.view.getInt8(at) : this.view.getUint8(at);
    else if (size === 2) value = signed ? this.view.getInt16(at) : this.view.getUint16(at);
    else if (size === 4) value = signed ? this.view.getInt32(at) : this.view.getUint32(at);
    else value = signed ? this.view.getBigInt64(at) : this.view.getBigUint64(at);
    return exactInteger(value);
  }
}

/** An integer as a `number` when that is exact, else a `bigint`: one form per value, so equal values compare equal. */
export function exactInteger(value: number | bigint): number | bigint {
  if (typeof value === "number") return value;
  return value >= BigInt(Number.MIN_SAFE_INTEGER) && value <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(value) : value;
}

function readArray(input: Reader, count: number, depth: number): Value[] {
  const items: Value[] = [];
  for (let i = 0; i < count; i++) items.push(read(input, depth + 1));
  return items;
}

function readMap(input: Reader, count: number, depth: number): WireMap {
  const map = wireMap();
  for (let i = 0; i < count; i++) {
    const key = read(input, depth + 1);
    if (typeof key !== "string") throw new DecodeError("a map key that is not a string (the protocol's maps have string keys)");
    map[key] = read(input, depth + 1);
  }
  return map;
}

function read(input: Reader, depth: number): Value {
  if (depth > MAX_DEPTH) throw new DecodeError(`nested deeper than ${MAX_DEPTH}`);
  const marker = input.u8();
  if (marker <= 0x7f) return marker;
  if (marker >= 0xe0) return marker - 0x100;
  if (marker >= 0xa0 && marker <= 0xbf) return input.text(marker & 0x1f);
  if (marker >= 0x90 && marker <= 0x9f) return readArray(input, marker & 0x0f, depth);
  if (marker >= 0x80 && marker <= 0x8f) return readMap(input, marker & 0x0f, depth);
  switch (marker) {
    case 0xc0: return null;
    case 0xc2: return false;
    case 0xc3: return true;
    case 0xc4: return input.slice(input.u8());
    case 0xc5: return input.slice(input.u16());
    case 0xc6: return input.slice(input.u32());
    case 0xca: return new WireFloat(new DataView(input.slice(4).buffer).getFloat32(0));
    case 0xcb: return new WireFloat(new DataView(input.slice(8).buffer).getFloat64(0));
    case 0xcc: return input.integer(1, false);
    case 0xcd: return input.integer(2, false);
    case 0xce: return input.integer(4, false);
    case 0xcf: return input.integer(8, false);
    case 0xd0: return input.integer(1, true);
    case 0xd1: return input.integer(2, true);
    case 0xd2: return input.integer(4, true);
    case 0xd3: return input.integer(8, true);
    case 0xd9: return input.text(input.u8());
    case 0xda: return input.text(input.u16());
    case 0xdb: return input.text(input.u32());
    case 0xdc: return readArray(input, input.u16(), depth);
    case 0xdd: return readArray(input, input.u32(), depth);
    case 0xde: return readMap(input, input.u16(), depth);
    case 0xdf: return readMap(input, input.u32(), depth);
  }
  throw new DecodeError(`marker 0x${marker.toString(16)} at byte ${input.at - 1} is not used by the protocol (extension types are not)`);
}

/** Any valid MessagePack of the protocol's types (key order does not matter); DecodeError otherwise. */
export function decode(data: Uint8Array): Value {
  const input = new Reader(data);
  const value = read(input, 0);
  if (input.at !== data.length) throw new DecodeError(`${data.length - input.at} bytes after the value`);
  return value;
}

// -- hashes and deltas ----------------------------------------------------------

/** Lowercase hex SHA-256 of the view's canonical bytes (section 4). */
export function viewHash(view: View): string {
  write(shared.reset(), view);
  return hasher(shared.written());
}

/**
 * The view after `delta` (section 5). `view` is left untouched: every map on a
 * changed path is copied, the rest is shared. Throws DeltaError when an
 * operation does not fit, and then nothing was changed.
 */
export function applyDelta(view: View, delta: Value): View {
  if (!Array.isArray(delta)) throw new DeltaError("a delta is an array of operations");
  const result = wireMap(Object.entries(view));
  const copied = new Set<WireMap>([result]);
  delta.forEach((op, index) => {
    if (!Array.isArray(op) || (op.length !== 1 && op.length !== 2)) throw new DeltaError(`operation ${index} is not [path] or [path, value]`);
    const path = op[0];
    if (!Array.isArray(path) || path.length === 0) throw new DeltaError(`operation ${index} needs a non-empty path`);
    let target = result;
    for (let depth = 0; depth < path.length - 1; depth++) {
      const key = path[depth];
      const child = typeof key === "string" && Object.hasOwn(target, key) ? target[key] : undefined;
      if (!isWireMap(child)) throw new DeltaError(`operation ${index}: ${JSON.stringify(path.slice(0, depth + 1))} names no map in the view`);
      let own = child;
      if (!copied.has(child)) {
        own = wireMap(Object.entries(child));
        copied.add(own);
        target[key as string] = own;
      }
      target = own;
    }
    const last = path[path.length - 1];
    if (typeof last !== "string") throw new DeltaError(`operation ${index}: map keys are strings`);
    if (op.length === 2) target[last] = op[1]!;
    else if (Object.hasOwn(target, last)) delete target[last];
    else throw new DeltaError(`operation ${index} deletes ${JSON.stringify(path)}, which the view does not have`);
  });
  return result;
}
