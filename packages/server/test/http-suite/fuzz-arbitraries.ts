import fc from 'fast-check';
import { z } from 'zod';
import type { AnyRoute } from '../../src/http/route.js';
import { isSecretField } from '../support/known-secrets.js';

/** Values the fuzzer mixes in so some requests get past validation and reach real rows. */
export interface FuzzSeeds {
  /** User A's id. */
  userId: string;
  /** Ids of stored things (connections, endpoints, approvals, team connections, ...). */
  ids: string[];
  /** Other names stored things go by (role ids, registration ids, plugin ids). */
  names: string[];
}

/** One generated request. */
export interface FuzzRequest {
  as: 'service' | 'user' | 'admin';
  /** Path and query. */
  url: string;
  /** The raw body text, if any. */
  body?: string;
  contentType: string;
}

/** Keys that have caused prototype pollution in other servers' JSON handling. */
const POLLUTING_KEYS = ['__proto__', 'constructor', 'prototype', 'toString', 'hasOwnProperty'];

const CONTENT_TYPES = [
  'application/json',
  'application/json; charset=utf-8',
  'application/vnd.api+json',
  'APPLICATION/JSON',
  'text/plain',
  'text/json',
  'application/x-www-form-urlencoded',
  'multipart/form-data; boundary=x',
  'application/jsonx',
  '',
];

/** Strings that are long, deep or odd, to go with the short ones `fc.string()` favours. */
const oddString = fc.oneof(
  fc.string({ unit: 'binary' }),
  fc.string({ unit: 'grapheme', maxLength: 50 }),
  fc.constantFrom(
    '',
    ' ',
    '\u0000',
    'a\u0000b',
    '\uFEFF',
    '..',
    '%',
    '%zz',
    '%00',
    '../..',
    'null',
  ),
  fc.constantFrom(...POLLUTING_KEYS),
  // Near and over the 1 MiB limit.
  fc.integer({ min: 10_000, max: 1_100_000 }).map((n) => 'x'.repeat(n)),
);

const anyString = fc.oneof(
  { weight: 4, arbitrary: fc.string() },
  { weight: 1, arbitrary: oddString },
);

/** Any JSON value, wrong types included. */
const junk: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 3, arbitrary: anyString },
  { weight: 1, arbitrary: fc.integer() },
  { weight: 1, arbitrary: fc.double() },
  { weight: 1, arbitrary: fc.boolean() },
  { weight: 1, arbitrary: fc.constant(null) },
  { weight: 2, arbitrary: fc.jsonValue({ maxDepth: 3 }) },
  { weight: 1, arbitrary: fc.anything({ maxDepth: 2 }).map(toJsonValue) },
);

/** `fc.anything()` values as JSON would carry them (no undefined, functions or cycles). */
function toJsonValue(value: unknown): unknown {
  try {
    const text = JSON.stringify(value);
    return text === undefined ? null : JSON.parse(text);
  } catch {
    return null;
  }
}

/** The property names of a zod object schema (after any wrapping), from its JSON Schema. */
export function schemaKeys(schema: z.ZodType | undefined): string[] {
  if (schema === undefined) return [];
  const json = z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' });
  const properties = (json as { properties?: Record<string, unknown> }).properties;
  return Object.keys(properties ?? {});
}

/** A value that might be right for a field called `key`, or nearly right. */
function plausible(key: string, seeds: FuzzSeeds): fc.Arbitrary<unknown> {
  const known = fc.constantFrom(seeds.userId, ...seeds.ids, ...seeds.names);
  // Any field the leak checks track as a secret (`secret`, `clientSecret`, `token`, ...) gets a
  // secret-like unique value: a user's id sent there would make every log line naming that user
  // look like a leak.
  if (isSecretField(key)) return fc.uuid().map((uuid) => `fuzz-${key}-${uuid}`);
  switch (key) {
    case 'userId':
      return fc.oneof(fc.constant(seeds.userId), known);
    case 'name':
    case 'instanceName':
      return fc.oneof(fc.uuid(), fc.string({ minLength: 1, maxLength: 30 }));
    case 'toolId':
      return fc.constantFrom('github', 'forecast', 'linear', 'GitHub', 'a'.repeat(101));
    case 'type':
      return fc.constantFrom('plugin', 'Plugin', 'oauth2');
    case 'namespace':
    case 'pluginId':
      return fc.constantFrom('notes', 'forecast', 'nope', 'notes.x', '');
    case 'patterns':
      return fc.array(
        fc.oneof(fc.constantFrom('**', 'notes.*.*', 'notes.**', '*.', '***'), fc.string()),
        {
          maxLength: 5,
        },
      );
    case 'decision':
      return fc.constantFrom('approve', 'deny', 'maybe');
    case 'status':
      return fc.constantFrom('pending', 'approved', 'all', 'nope');
    case 'limit':
      return fc.oneof(
        fc.integer({ min: -5, max: 500 }).map(String),
        fc.constantFrom('1e3', '0x10', 'NaN'),
      );
    case 'redirect_uri':
      return fc.constantFrom('http://127.0.0.1:53682/callback', 'https://evil.example/callback');
    default:
      return fc.oneof(fc.string({ minLength: 1, maxLength: 20 }), known);
  }
}

/** A JSON object as text, built by hand so `__proto__` stays a plain (and repeatable) key. */
function objectText(entries: readonly (readonly [string, unknown])[]): string {
  return `{${entries.map(([key, value]) => `${JSON.stringify(key)}:${JSON.stringify(value) ?? 'null'}`).join(',')}}`;
}

/** Bodies for `route`: near-valid objects with wrong types, arbitrary JSON, junk text. */
function bodyText(route: AnyRoute, seeds: FuzzSeeds): fc.Arbitrary<string | undefined> {
  const keys = schemaKeys(route.body);
  const fieldValue = (key: string) =>
    fc.oneof({ weight: 3, arbitrary: plausible(key, seeds) }, { weight: 2, arbitrary: junk });
  const field = keys.length
    ? fc.constantFrom(...keys).chain((key) => fieldValue(key).map((value) => [key, value] as const))
    : fc.tuple(fc.string(), junk);
  const extra = fc.tuple(fc.oneof(fc.constantFrom(...POLLUTING_KEYS), fc.string()), junk);
  const extras = fc.array(
    fc.oneof({ weight: 3, arbitrary: field }, { weight: 1, arbitrary: extra }),
    {
      maxLength: 3,
    },
  );
  // Every field plausible, then at most one mutation: the requests that reach the handlers.
  const valid = fc
    .tuple(
      fc.tuple(...keys.map((key) => plausible(key, seeds))),
      fc.option(fc.oneof(field, extra), { nil: undefined }),
      fc.option(fc.constantFrom(...(keys.length ? keys : ['x'])), { nil: undefined }),
    )
    .map(([values, mutation, dropped]) => {
      const entries: (readonly [string, unknown])[] = keys
        .map((key, index) => [key, values[index]] as const)
        .filter(([key]) => key !== dropped);
      return objectText(mutation === undefined ? entries : [...entries, mutation]);
    });
  const nearlyValid = fc
    .tuple(fc.tuple(...keys.map((key) => fc.option(fieldValue(key), { nil: undefined }))), extras)
    .map(([values, more]) => {
      const entries: (readonly [string, unknown])[] = [];
      keys.forEach((key, index) => {
        if (values[index] !== undefined) entries.push([key, values[index]]);
      });
      return objectText([...entries, ...more]);
    });
  const pollution = fc
    .constantFrom(...POLLUTING_KEYS)
    .map((key) => objectText([[key, { polluted: true, prototype: { polluted: true } }]]));
  const nested = fc
    .integer({ min: 1_000, max: 200_000 })
    .map((depth) => `${'['.repeat(depth)}${']'.repeat(depth)}`);
  const malformed = fc.oneof(
    fc.string(),
    nearlyValid.map((text) => text.slice(0, -1)),
    fc.constantFrom(
      '{',
      '{"a":}',
      "{'a':1}",
      '[1,]',
      'NaN',
      '\u0000',
      '{"a":1}{"b":2}',
      '\uFEFF{}',
    ),
  );
  return fc.oneof(
    { weight: 4, arbitrary: valid },
    { weight: 4, arbitrary: nearlyValid },
    { weight: 2, arbitrary: fc.json({ maxDepth: 4 }) },
    { weight: 2, arbitrary: malformed },
    { weight: 1, arbitrary: pollution },
    { weight: 1, arbitrary: nested },
    { weight: 1, arbitrary: fc.constantFrom(undefined, '', '   ', 'null', '[]', '{}') },
  );
}

/** A path parameter: a real id or name, a random UUID, or anything at all (encoded or not). */
function paramValue(seeds: FuzzSeeds): fc.Arbitrary<string> {
  return fc.oneof(
    { weight: 3, arbitrary: fc.constantFrom(seeds.userId, ...seeds.ids, ...seeds.names) },
    { weight: 1, arbitrary: fc.uuid() },
    { weight: 3, arbitrary: anyString.filter((s) => s.length < 5000).map(encodeURIComponent) },
    {
      weight: 1,
      arbitrary: fc.constantFrom('%', '%zz', '%2F', '..', '.', '%00', '__proto__', 'ＡＢ'),
    },
  );
}

/** A query string: the right keys with odd values, arbitrary keys, repeats, raw junk. */
function queryText(route: AnyRoute, seeds: FuzzSeeds): fc.Arbitrary<string> {
  const keys = ['userId', ...schemaKeys(route.query), ...POLLUTING_KEYS];
  const key = fc.oneof(
    { weight: 3, arbitrary: fc.constantFrom(...keys) },
    { weight: 1, arbitrary: fc.string() },
  );
  const value = (name: string) =>
    fc.oneof(
      { weight: 2, arbitrary: plausible(name, seeds).map(String) },
      { weight: 1, arbitrary: anyString },
    );
  const pairs = fc.array(
    key.chain((name) => value(name).map((v) => [name, v] as const)),
    { maxLength: 4 },
  );
  const routeKeys = schemaKeys(route.query);
  // The route's own parameters with plausible values (userId always): what reaches the handler.
  const valid = fc
    .tuple(
      ...routeKeys.map((name) =>
        name === 'userId'
          ? plausible(name, seeds)
          : fc.option(plausible(name, seeds), { nil: undefined }),
      ),
    )
    .map((values) =>
      new URLSearchParams(
        routeKeys.flatMap((name, index): [string, string][] =>
          values[index] === undefined ? [] : [[name, String(values[index])]],
        ),
      ).toString(),
    );
  return fc.oneof(
    { weight: 4, arbitrary: valid },
    {
      weight: 4,
      arbitrary: pairs.map((list) =>
        new URLSearchParams(
          list.map(([k, v]): [string, string] => [k, v.slice(0, 5000)]),
        ).toString(),
      ),
    },
    { weight: 1, arbitrary: fc.string().map((raw) => raw.replace(/#/g, '')) },
    {
      weight: 1,
      arbitrary: fc.constantFrom(
        '',
        'userId',
        'userId=',
        '&&',
        '=x',
        '%',
        'userId=%zz',
        'a[b]=1&a[c]=2',
      ),
    },
  );
}

/** Arbitrary requests to `route`, as the service secret, user A or an admin. */
export function fuzzRequest(route: AnyRoute, seeds: FuzzSeeds): fc.Arbitrary<FuzzRequest> {
  const names = [...route.path.matchAll(/:(\w+)/g)].map((match) => match[1] as string);
  const path = fc
    .tuple(...names.map(() => paramValue(seeds)))
    .map((values) =>
      names.reduce((text, name, i) => text.replace(`:${name}`, values[i] as string), route.path),
    );
  // A GET request cannot carry a body.
  const body = route.method === 'get' ? fc.constant(undefined) : bodyText(route, seeds);
  return fc.record({
    as: fc.constantFrom('service' as const, 'user' as const, 'admin' as const),
    url: fc.tuple(path, queryText(route, seeds)).map(([p, q]) => (q === '' ? p : `${p}?${q}`)),
    body,
    contentType: fc.oneof(
      { weight: 4, arbitrary: fc.constant('application/json') },
      { weight: 1, arbitrary: fc.constantFrom(...CONTENT_TYPES) },
    ),
  });
}

/** Paths no route serves: under `/api`, beside it, and under better-auth's `/api/auth`. */
export function unknownPath(): fc.Arbitrary<string> {
  // `.` and `..` segments are resolved away by URL parsing, landing on real routes.
  const segment = fc.stringMatching(/^[A-Za-z0-9._~-]{1,12}$/).filter((s) => !/^\.+$/.test(s));
  const tail = fc
    .array(segment, { minLength: 0, maxLength: 3 })
    .map((s) => s.map((x) => `/${x}`).join(''));
  return fc.oneof(
    fc.tuple(segment, tail).map(([first, rest]) => `/api/zz-${first}${rest}`),
    fc.tuple(segment, tail).map(([first, rest]) => `/zz-${first}${rest}`),
    fc.tuple(segment, tail).map(([first, rest]) => `/api/connections/${first}/zz${rest}`),
  );
}
