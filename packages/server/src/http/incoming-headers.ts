import type { IncomingHttpHeaders } from 'node:http';
import { nativeWebClasses, onNativeWebClasses } from './node-adapter/web-globals.js';

const VALID_NAME = /^[!#$%&'*+\-.^_`|~\dA-Za-z]+$/;
const FORBIDDEN_VALUE = /[\0\r\n]/;

/**
 * The headers of a request from the network, read from Node's raw header list once, at the
 * first look, into a map of lower-cased names; every later `get` or `has` is one lookup in it.
 *
 * The Node adapter's own headers object answers each `get` on its own: a name check and a
 * lower-casing of the name asked, then, for the names HTTP lets appear once (`Authorization`,
 * `Host`, `Content-Length`, `Content-Type`, ...), a scan of the raw list lower-casing each name of
 * the same length, and for the others Node's `headers` object, which lower-cases every name the
 * first time it is read. A 2025 session call looks up fifteen headers on its way (the guard, the
 * request log, the token, the MCP endpoint): ~40 k instructions, against ~20 k through this one's
 * map and less through Node's object (bench/mcp/README.md).
 *
 * When no name repeats in the raw list, Node's own `headers` object (which the adapter builds for
 * every request, to read `Host`) holds exactly those values under lower-cased names, and is looked
 * in instead of making the map.
 *
 * Values are what a fetch `Headers` object built from the raw list answers, as the adapter's are:
 * repeated fields joined with `, ` (`Cookie` with `; `, as Node and the adapter join it), each
 * value without the whitespace around it. Anything but `get` and `has`, and `get`/`has` after a
 * change, go to a fetch `Headers` object built from the raw list when first needed (as the
 * adapter does), and so does everything when a value holds a character a `Headers` object
 * refuses (none reach here through Node's parser). It is a `Headers` to `instanceof` once Node's
 * class has loaded, which the first read of the global `Headers` does under the node adapter.
 *
 * @example
 * const headers = new IncomingHeaders(incoming.rawHeaders);
 * headers.get('content-type'); // 'application/json'
 */
export class IncomingHeaders {
  readonly #raw: readonly string[];
  readonly #parsed: IncomingHttpHeaders | undefined;
  /** Finds a value by lower-cased name; null when a value is one a `Headers` object refuses. */
  #find: Find | null | undefined;
  #native: Headers | undefined;

  /** `parsed`: Node's `headers` object of the same message, when there is one. */
  constructor(rawHeaders: readonly string[], parsed?: IncomingHttpHeaders) {
    this.#raw = rawHeaders;
    this.#parsed = parsed;
  }

  get(name: string): string | null {
    if (this.#native !== undefined) return this.#native.get(name);
    this.#find ??=
      (this.#parsed && nodeFind(this.#parsed, this.#raw.length / 2)) ?? mapFind(this.#raw);
    const find = this.#find;
    if (find === null) return this.#materialize().get(name);
    const value = find(name);
    if (value !== undefined) return value;
    const lower = lowerName(name);
    return lower === name ? null : (find(lower) ?? null);
  }

  has(name: string): boolean {
    return this.get(name) !== null;
  }

  append(name: string, value: string): void {
    this.#materialize().append(name, value);
  }

  delete(name: string): void {
    this.#materialize().delete(name);
  }

  set(name: string, value: string): void {
    this.#materialize().set(name, value);
  }

  getSetCookie(): string[] {
    return this.#materialize().getSetCookie();
  }

  keys(): ReturnType<Headers['keys']> {
    return this.#materialize().keys();
  }

  values(): ReturnType<Headers['values']> {
    return this.#materialize().values();
  }

  entries(): ReturnType<Headers['entries']> {
    return this.#materialize().entries();
  }

  forEach(
    callback: (value: string, key: string, parent: Headers) => void,
    thisArg?: unknown,
  ): void {
    this.#materialize().forEach((value, key) => {
      callback.call(thisArg, value, key, this as unknown as Headers);
    });
  }

  [Symbol.iterator](): ReturnType<Headers['entries']> {
    return this.entries();
  }

  #materialize(): Headers {
    if (this.#native === undefined) {
      const native = new (nativeWebClasses().Headers)();
      const raw = this.#raw;
      for (let i = 0; i < raw.length - 1; i += 2) {
        const name = raw[i] as string;
        if (!name.startsWith(':')) native.append(name, raw[i + 1] as string);
      }
      this.#native = native;
      this.#find = undefined;
    }
    return this.#native;
  }
}
// Linked when Node's class loads (on the first read of the global `Headers`), not before: its
// first read loads Node's undici (node-adapter/web-globals.ts).
onNativeWebClasses(({ Headers }) => {
  Object.setPrototypeOf(IncomingHeaders.prototype, Headers.prototype);
});

type Find = (lowerName: string) => string | undefined;

/**
 * Looks in Node's `headers` object when it holds every field of the raw list (`pairs` of them)
 * as a string: no name repeated (Node keeps only the first of a repeated `Authorization`, where a
 * `Headers` object joins them) and no `Set-Cookie` (an array there). Node's parser refused any
 * value with a character a `Headers` object refuses, and took the whitespace around values off.
 */
function nodeFind(parsed: IncomingHttpHeaders, pairs: number): Find | undefined {
  let names = 0;
  for (const name in parsed) {
    if (typeof parsed[name] !== 'string') return undefined;
    names += 1;
  }
  if (names !== pairs) return undefined;
  return (name) => (Object.hasOwn(parsed, name) ? (parsed[name] as string) : undefined);
}

/** A map of the raw list's values by lower-cased name, repeated fields joined; null as above. */
function mapFind(raw: readonly string[]): Find | null {
  const values = new Map<string, string>();
  for (let i = 0; i < raw.length - 1; i += 2) {
    const name = (raw[i] as string).toLowerCase();
    if (name.startsWith(':')) continue;
    const value = trimHttp(raw[i + 1] as string);
    if (FORBIDDEN_VALUE.test(value)) return null;
    const had = values.get(name);
    values.set(
      name,
      had === undefined ? value : `${had}${name === 'cookie' ? '; ' : ', '}${value}`,
    );
  }
  return (name) => values.get(name);
}

/** `value` without the HTTP whitespace (tab, line feed, carriage return, space) around it. */
function trimHttp(value: string): string {
  let start = 0;
  let end = value.length;
  while (start < end && isHttpWhitespace(value.charCodeAt(start))) start += 1;
  while (end > start && isHttpWhitespace(value.charCodeAt(end - 1))) end -= 1;
  return start === 0 && end === value.length ? value : value.slice(start, end);
}

function isHttpWhitespace(code: number): boolean {
  return code === 9 || code === 10 || code === 13 || code === 32;
}

/** The names asked so far, lower-cased: the code asks the same few names on every request. */
const lowered = new Map<string, string>();
/** How many names {@link lowered} keeps at most. */
const MAX_LOWERED = 256;

/**
 * `name` lower-cased; throws the `TypeError` a `Headers` object throws for an invalid name. A
 * name asked before is not checked again: a header absent from a request (`Cookie`, `Origin` on
 * an MCP call) cost a regular expression on every request (issue 37).
 */
function lowerName(name: string): string {
  const known = lowered.get(name);
  if (known !== undefined) return known;
  if (!VALID_NAME.test(name)) throw new TypeError(`Invalid header name: ${name}`);
  const lower = name.toLowerCase();
  if (lowered.size < MAX_LOWERED) lowered.set(name, lower);
  return lower;
}
