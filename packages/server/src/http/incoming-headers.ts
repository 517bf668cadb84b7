const NativeHeaders = globalThis.Headers;
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
 * request log, the token, the MCP endpoint): ~40 k instructions, where this reads them for ~10 k
 * (bench/mcp/README.md).
 *
 * Values are what a fetch `Headers` object built from the raw list answers, as the adapter's are:
 * repeated fields joined with `, ` (`Cookie` with `; `, as Node and the adapter join it), each
 * value without the whitespace around it. Anything but `get` and `has`, and `get`/`has` after a
 * change, go to a fetch `Headers` object built from the raw list when first needed (as the
 * adapter does), and so does everything when a value holds a character a `Headers` object
 * refuses (none reach here through Node's parser). It is a `Headers` to `instanceof`.
 *
 * @example
 * const headers = new IncomingHeaders(incoming.rawHeaders);
 * headers.get('content-type'); // 'application/json'
 */
export class IncomingHeaders {
  readonly #raw: readonly string[];
  #values: Map<string, string> | undefined;
  #native: Headers | undefined;

  constructor(rawHeaders: readonly string[]) {
    this.#raw = rawHeaders;
  }

  get(name: string): string | null {
    if (this.#native !== undefined) return this.#native.get(name);
    const values = this.#read();
    if (values === undefined) return this.#materialize().get(name);
    return values.get(name) ?? values.get(lowerName(name)) ?? null;
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

  /** The values by lower-cased name; undefined when one of them is no valid header value. */
  #read(): Map<string, string> | undefined {
    if (this.#values !== undefined) return this.#values;
    const values = new Map<string, string>();
    const raw = this.#raw;
    for (let i = 0; i < raw.length - 1; i += 2) {
      const name = (raw[i] as string).toLowerCase();
      if (name.startsWith(':')) continue;
      const value = trimHttp(raw[i + 1] as string);
      if (FORBIDDEN_VALUE.test(value)) return undefined;
      const had = values.get(name);
      values.set(
        name,
        had === undefined ? value : `${had}${name === 'cookie' ? '; ' : ', '}${value}`,
      );
    }
    this.#values = values;
    return values;
  }

  #materialize(): Headers {
    if (this.#native === undefined) {
      const native = new NativeHeaders();
      const raw = this.#raw;
      for (let i = 0; i < raw.length - 1; i += 2) {
        const name = raw[i] as string;
        if (!name.startsWith(':')) native.append(name, raw[i + 1] as string);
      }
      this.#native = native;
      this.#values = undefined;
    }
    return this.#native;
  }
}
Object.setPrototypeOf(IncomingHeaders.prototype, NativeHeaders.prototype);

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

/** `name` lower-cased; throws the `TypeError` a `Headers` object throws for an invalid name. */
function lowerName(name: string): string {
  if (!VALID_NAME.test(name)) throw new TypeError(`Invalid header name: ${name}`);
  return name.toLowerCase();
}

/**
 * Gives `request` (the Node adapter's request for `rawHeaders`' message) {@link IncomingHeaders}
 * as its headers: an own property, which the adapter's own (built on first read, on its
 * prototype) is then never asked for.
 *
 * @example
 * serve({ fetch: (request, env) => app.fetch(withIncomingHeaders(request, env.incoming.rawHeaders), env) });
 */
export function withIncomingHeaders(request: Request, rawHeaders: readonly string[]): Request {
  Object.defineProperty(request, 'headers', {
    value: new IncomingHeaders(rawHeaders),
    configurable: true,
  });
  return request;
}
