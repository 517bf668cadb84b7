import { runInThisContext } from 'node:vm';

/**
 * The web globals `Headers`, `Request` and `Response` under the node adapter, and Node's own
 * classes behind them, read when first needed.
 *
 * Node defines its three as lazy data properties of the global object: the first look at one
 * (reading it, its descriptor, or redefining it) loads Node's internal undici with `node:http2`,
 * `tls`, `zlib` and the web streams, about a quarter of a gateway start's work
 * (bench/startup/README.md, issue 37), which an answer written from a plain header record does
 * not need. `@hono/node-server` redefines two of them as its module loads, so it pays that at
 * start. The adapter leaves the properties alone and declares global lexical bindings of the same
 * names instead (a script's top-level `let`, which every script and module resolves before the
 * global object's properties): `Response` is the adapter's light class; `Request` and `Headers`
 * stand in for the classes they load on their first use (`new`, `instanceof`, a static), and are
 * then replaced by them. `globalThis.Response` and its kind still read Node's own classes.
 */

/** The fetch types the server's type library (Node's, no DOM) leaves unnamed. */
export type HeadersInit = NonNullable<ResponseInit['headers']>;
export type BodyInit = ConstructorParameters<typeof Response>[0];
export type RequestInfo = ConstructorParameters<typeof Request>[0];
export type ReadResult = Awaited<ReturnType<ReadableStreamDefaultReader<Uint8Array>['read']>>;

interface NativeWebClasses {
  Headers: typeof Headers;
  Request: typeof Request;
  Response: typeof Response;
}

type Bindings = { [Name in keyof NativeWebClasses]?: object };

/** The setter of the global bindings, one per process (a second copy of this module reuses it). */
const BINDINGS = Symbol.for('gateway.node-adapter.web-globals');
type Holder = { [BINDINGS]?: (values: Bindings) => void };

const UNDICI = 'NativeModule internal/deps/undici/undici';

let native: NativeWebClasses | undefined;
const whenLoaded: ((classes: NativeWebClasses) => void)[] = [];
let adapterRequest: (() => object) | undefined;

/**
 * Node's `Headers`, `Request` and `Response` classes (the global object's properties), loading
 * Node's undici on the first call; then what waits for them runs ({@link onNativeWebClasses}),
 * and the stand-ins of the global bindings are replaced by the classes.
 *
 * @example
 * const { Response } = nativeWebClasses();
 */
export function nativeWebClasses(): NativeWebClasses {
  if (native !== undefined) return native;
  const loaded: NativeWebClasses = {
    Headers: Reflect.get(globalThis, 'Headers') as typeof Headers,
    Request: Reflect.get(globalThis, 'Request') as typeof Request,
    Response: Reflect.get(globalThis, 'Response') as typeof Response,
  };
  native = loaded;
  for (const link of whenLoaded.splice(0)) link(loaded);
  const bindings = (globalThis as Holder)[BINDINGS];
  if (bindings !== undefined && adapterRequest !== undefined) {
    bindings({ Headers: loaded.Headers, Request: adapterRequest() });
  }
  return loaded;
}

/** Whether Node has loaded its undici (Node's list of the built-ins it loaded, undocumented). */
function undiciLoaded(): boolean {
  return (
    (process as { moduleLoadList?: readonly string[] }).moduleLoadList?.includes(UNDICI) ?? false
  );
}

/**
 * Runs `link` once Node's classes are loaded ({@link nativeWebClasses}); at once if they are, or
 * if Node has loaded them already for something else (a `fetch`), when they cost nothing.
 */
export function onNativeWebClasses(link: (classes: NativeWebClasses) => void): void {
  if (native === undefined && undiciLoaded()) nativeWebClasses();
  if (native !== undefined) link(native);
  else whenLoaded.push(link);
}

/**
 * Makes the global bindings `Response` the adapter's light class and `Request` the adapter's
 * (built by `classes.Request` when first needed), as `@hono/node-server` makes its own the
 * global object's properties. In a process that has loaded Node's classes already, they are used
 * at once; otherwise `Request` and `Headers` are stand-ins until their first use.
 */
export function installWebGlobals(classes: { Response: object; Request: () => object }): void {
  adapterRequest = classes.Request;
  const holder = globalThis as Holder;
  holder[BINDINGS] ??= runInThisContext(
    `let Headers, Request, Response;
    (values) => {
      if ('Headers' in values) Headers = values.Headers;
      if ('Request' in values) Request = values.Request;
      if ('Response' in values) Response = values.Response;
    }`,
    { filename: 'gateway-web-globals.js' },
  ) as (values: Bindings) => void;
  const bindings = holder[BINDINGS];
  if (native === undefined && !undiciLoaded()) {
    bindings({
      Response: classes.Response,
      Request: standIn('Request', classes.Request),
      Headers: standIn('Headers', () => nativeWebClasses().Headers),
    });
    return;
  }
  const loaded = nativeWebClasses();
  bindings({ Response: classes.Response, Request: classes.Request(), Headers: loaded.Headers });
}

/**
 * A constructor that behaves as `real()` (construction, calls, statics, `prototype` and so
 * `instanceof` and `extends`), calling it on first use: Node's classes load then.
 */
function standIn(name: string, load: () => object): object {
  const real = () => load() as new (...args: unknown[]) => object;
  const target = { [name]: function standIn() {} }[name] as () => void;
  const proxy: object = new Proxy(target, {
    construct: (_target, args, newTarget) =>
      Reflect.construct(real(), args, newTarget === proxy ? real() : newTarget),
    apply: (_target, self, args) => Reflect.apply(real() as unknown as () => unknown, self, args),
    get: (_target, key) => Reflect.get(real(), key),
    has: (_target, key) => Reflect.has(real(), key),
  });
  return proxy;
}

/**
 * Whether `value` could be a `Headers`, a `Response` or the like: not a plain object or an array,
 * which are answered without loading Node's classes.
 */
function notPlain(value: unknown): value is object {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const prototype: unknown = Object.getPrototypeOf(value);
  return prototype !== Object.prototype && prototype !== null;
}

/** `value instanceof Headers`, without loading Node's classes for a plain record or list. */
export function isHeaders(value: unknown): value is Headers {
  return notPlain(value) && value instanceof nativeWebClasses().Headers;
}

/** `value instanceof` Node's own `Response`, without loading its classes for a plain object. */
export function isNativeResponse(value: unknown): value is Response {
  return notPlain(value) && value instanceof nativeWebClasses().Response;
}
