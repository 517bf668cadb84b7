/**
 * Every secret and token the test gateways of one test file were sent, stored or handed out, and
 * every log line they wrote (with everything the file wrote to stdout, stderr and `console`), so
 * a check at the end of the file can grep the logs (and suites their answers) for any of them.
 * Module state: vitest gives each test file its own copy.
 */

/**
 * Shorter values are not tracked: a leak check on `"abc"` would find it in any log line. Real
 * secrets and every `gw_` token are far longer.
 */
export const MIN_TRACKED_LENGTH = 12;

// Exact names only: `maskedToken` or `tokens` hold no raw value.
const SECRET_FIELDS = new Set([
  'secret',
  'token',
  'key',
  'password',
  'apiKey',
  'clientSecret',
  'accessToken',
  'refreshToken',
  'idToken',
]);

/** Whether a field of this name holds a secret the leak checks track (`rememberSecretFields`). */
export function isSecretField(name: string): boolean {
  return SECRET_FIELDS.has(name);
}

const secrets = new Set<string>();
const logLines: string[] = [];

/**
 * A text this long is read for secrets once, and searched for each secret once: the suites read
 * the same large answers (the OpenAPI document, the API reference page) hundreds of times,
 * against hundreds of secrets.
 */
const LARGE_TEXT = 4096;
/** Each large text searched, and the secrets found not to be in it. */
const cleanTexts = new Map<string, Set<string>>();
/** Each large JSON text whose secret-named fields were remembered. */
const readTexts = new Set<string>();

/**
 * Whether `value` is long and varied enough to grep for without false alarms: a fuzzed
 * `"aaaaaaaaaaaa"`, or a plain word like `"hasOwnProperty"` that an error message may quote as a
 * field name, would match unrelated text. Real secrets and tokens mix letters with digits or
 * punctuation.
 */
function trackable(value: string): boolean {
  return (
    value.length >= MIN_TRACKED_LENGTH &&
    /[^A-Za-z]/.test(value) &&
    value.trim() === value &&
    hasDistinctCharacters(value, 6)
  );
}

/** Whether `value` has at least `count` distinct characters; stops reading once it has. */
function hasDistinctCharacters(value: string, count: number): boolean {
  const seen = new Set<string>();
  for (const character of value) {
    seen.add(character);
    if (seen.size >= count) return true;
  }
  return false;
}

/** Remembers a secret or token; values too short or too plain to grep for are ignored. */
export function rememberSecret(value: unknown): void {
  if (typeof value === 'string' && trackable(value)) secrets.add(value);
}

/** Remembers every secret-named field (`secret`, `token`, `key`, `password`, ...) in a JSON value. */
function rememberSecretFields(value: unknown, depth = 0): void {
  if (depth > 8 || value === null || typeof value !== 'object') return;
  if (Array.isArray(value)) {
    for (const item of value) rememberSecretFields(item, depth + 1);
    return;
  }
  for (const [field, item] of Object.entries(value)) {
    if (SECRET_FIELDS.has(field)) rememberSecret(item);
    else rememberSecretFields(item, depth + 1);
  }
}

/**
 * Finds a quoted secret-named field. Without a backslash (an escape could spell a name), a JSON
 * text with a field of that name holds it quoted exactly so.
 */
const QUOTED_SECRET_FIELD = new RegExp(`"(${[...SECRET_FIELDS].join('|')})"`);

/**
 * Remembers every secret-named field of a JSON text; nothing when it is not JSON. A text that
 * cannot hold such a field is not parsed: the fuzz suite's bodies of up to 400 kB of nested
 * brackets cost more to parse than the rest of their request.
 */
export function rememberSecretFieldsOfJson(text: string): void {
  if (!text.includes('\\') && !QUOTED_SECRET_FIELD.test(text)) return;
  if (text.length >= LARGE_TEXT) {
    if (readTexts.has(text)) return;
    readTexts.add(text);
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return;
  }
  rememberSecretFields(value);
}

/** Remembers the credential of an `Authorization: Bearer <credential>` header value. */
export function rememberBearer(authorization: string | undefined | null): void {
  const credential = authorization ? /^Bearer\s+(\S+)\s*$/i.exec(authorization)?.[1] : undefined;
  rememberSecret(credential);
}

/** Remembers the session token cookies a `Set-Cookie` answer hands out. */
export function rememberSessionCookies(headers: Headers): void {
  for (const cookie of headers.getSetCookie()) {
    const match = /^([^=;]*session[^=;]*)=([^;]*)/i.exec(cookie);
    if (match?.[2]) rememberSecret(decodeURIComponent(match[2]));
  }
}

/** Every secret and token remembered so far. */
export function knownSecrets(): readonly string[] {
  return [...secrets];
}

/** Keeps a log line of a test gateway, or a piece of the test file's output. */
export function captureLogLine(line: string): void {
  logLines.push(line);
}

/** Every log line every test gateway of this file wrote, and its output, in order. */
export function capturedLogLines(): readonly string[] {
  return logLines;
}

/**
 * The part of a secret whose appearance is a leak: all but the last four characters, which the
 * masked form shows on purpose.
 */
export function hiddenPart(secret: string): string {
  return secret.slice(0, -4);
}

/** A leaked secret: which one (masked) and where. */
export interface Leak {
  /** The secret, masked, for the failure message. */
  secret: string;
  /** The text it was found in, with the secret cut out. */
  where: string;
}

/** Every known secret (`secrets`, default all) whose hidden part occurs in one of `texts`. */
export function findLeaks(
  texts: Iterable<string>,
  candidates: readonly string[] = knownSecrets(),
): Leak[] {
  const leaks: Leak[] = [];
  // The same text is searched once: a suite keeps every answer of a route fuzzed many times.
  const all = [...new Set(texts)];
  const clean = all.map(cleanOf);
  for (const secret of candidates) {
    const hidden = hiddenPart(secret);
    for (const [index, text] of all.entries()) {
      const known = clean[index];
      if (known?.has(secret)) continue;
      if (!text.includes(hidden)) {
        known?.add(secret);
        continue;
      }
      const shown = `${secret.slice(0, 4)}…${secret.slice(-4)} (${secret.length} chars)`;
      leaks.push({ secret: shown, where: text.split(hidden).join('<SECRET>').slice(0, 500) });
      break;
    }
  }
  return leaks;
}

/** The secrets `text` is known not to hold, when it is large enough to be worth knowing. */
function cleanOf(text: string): Set<string> | undefined {
  if (text.length < LARGE_TEXT) return undefined;
  // One lookup per text and search: a key this long costs a full comparison each time.
  let clean = cleanTexts.get(text);
  if (clean === undefined) {
    clean = new Set();
    cleanTexts.set(text, clean);
  }
  return clean;
}

/** Describes leaks for a failure message. */
export function describeLeaks(leaks: readonly Leak[]): string {
  return leaks.map((leak) => `  ${leak.secret} in: ${leak.where}`).join('\n');
}

/** Forgets everything (between files when vitest does not isolate them). */
export function forgetSecretsAndLogs(): void {
  secrets.clear();
  logLines.length = 0;
  cleanTexts.clear();
  readTexts.clear();
}
