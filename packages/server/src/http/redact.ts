import { decidedOnce } from './decided-names.js';

/**
 * Scrubs secrets from anything headed for a log line: values of fields named like secrets,
 * gateway and provider tokens, bearer credentials, passwords in URLs, every secret the server
 * was configured with, and (per tool call) every value vended to the tool.
 */
const SECRET_KEY =
  /secret|token|password|passwd|authorization|cookie|api[-_]?key|^key$|credential/i;
/** Whether a field's name is a secret's: every log line's keys, decided once per name. */
const isSecretKey = decidedOnce((key) => SECRET_KEY.test(key));
export const REDACTED = '[redacted]';
/** What stands for an object nested deeper than a log line follows. */
const NESTED_TOO_DEEP = '[nested too deep]';

/** Token shapes scrubbed wherever they appear, each with what replaces it. */
const TOKEN_PATTERNS: readonly (readonly [RegExp, string])[] = [
  [/gw_(?:mcp|cli|sa|inv|oat|ort|oac)_[A-Za-z0-9]{8,}/g, REDACTED],
  [/\b(?:Bearer|Basic)\s+[A-Za-z0-9._~+/=-]{8,}/gi, REDACTED],
  [/\b(?:sk|pk|rk)-[A-Za-z0-9_-]{16,}/g, REDACTED],
  [/\bgh[pousr]_[A-Za-z0-9]{20,}/g, REDACTED],
  [/\bya29\.[A-Za-z0-9._-]{10,}/g, REDACTED],
  [/\beyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}/g, REDACTED],
  // Slack: bot, user, app, config and refresh tokens (`xoxb-`, `xoxp-`, `xoxe-1-`), and the
  // rotating ones (`xoxe.xoxp-1-`).
  [/\bxox[abeposr](?:\.xox[abp])?-[A-Za-z0-9-]{10,}/g, REDACTED],
  // Linear: OAuth access tokens and personal API keys.
  [/\blin_(?:oauth|api)_[A-Za-z0-9]{16,}/g, REDACTED],
  // The password of a URL's credentials (`postgres://user:password@host`); the rest stays.
  [/(\b[a-z][a-z0-9+.-]*:\/\/[^\s:@/?#]*:)[^\s@/?#]+@/gi, `$1${REDACTED}@`],
];
/**
 * Matches wherever any of `TOKEN_PATTERNS` does (and, ignoring case, a little more): most strings
 * in a log line hold no token, and one test spares them every replacement.
 */
const ANY_TOKEN = new RegExp(TOKEN_PATTERNS.map(([pattern]) => pattern.source).join('|'), 'i');

/**
 * Shortest value masked as a literal, configured or vended alike. Masking shorter ones would
 * mangle output: a 4-character key would turn every `true`, year or short word that happens to
 * equal it into `[redacted]`, while no real key or token is that short. A value below it is
 * not masked anywhere (the pattern rules above still apply).
 */
export const MIN_SECRET_LENGTH = 8;

/**
 * The forms a leak of `value` would take, longest first, each at least
 * {@link MIN_SECRET_LENGTH} long: see {@link Redactor.addVended}.
 *
 * @example
 * leakForms('key/with+chars');
 * // ['key%2Fwith%2Bchars', 'a2V5L3dpdGgrY2hhcn', 'tleS93aXRoK2NoYXJz', 'rZXkvd2l0aCtjaGFyc', 'key/with+chars']
 */
export function leakForms(value: string): string[] {
  const forms = new Set([value, encodeURIComponent(value), JSON.stringify(value).slice(1, -1)]);
  const bytes = Buffer.from(value, 'utf8');
  for (let shift = 0; shift < 3; shift += 1) {
    // Inside longer base64 text (`base64("user:" + key)`), the value starts at one of three
    // offsets in a 3-byte group; the characters it shares with its neighbours are left out, so
    // what remains appears whatever surrounds the value.
    const shifted = Buffer.concat([Buffer.alloc(shift), bytes]);
    const encoded = shifted.toString('base64').replace(/=+$/, '');
    const end = shifted.length % 3 === 0 ? encoded.length : encoded.length - 1;
    const core = encoded.slice(shift === 0 ? 0 : shift + 1, end);
    forms.add(core);
    forms.add(core.replaceAll('+', '-').replaceAll('/', '_'));
  }
  return [...forms]
    .filter((form) => form.length >= MIN_SECRET_LENGTH)
    .sort((a, b) => b.length - a.length);
}

/**
 * Masks secrets in text and JSON-like values. The gateway has one, for the secrets it was
 * configured with; a tool call that is vended a credential gets a {@link Redactor.child} that
 * masks the vended values too. Masking is a substring search per value (and form of it), linear
 * in the text's length.
 */
export class Redactor {
  readonly #parent: Redactor | undefined;
  /** Literal values to mask, longest first, so a value holding another is masked whole. */
  #literals: string[] = [];
  /** The shortest literal's length: shorter text (most keys and words in a log line) holds none. */
  #shortest = Number.POSITIVE_INFINITY;

  constructor(secrets: Iterable<string | undefined> = [], parent?: Redactor) {
    this.#parent = parent;
    for (const secret of secrets) this.addSecret(secret);
  }

  /**
   * A redactor masking everything this one does, and the values added to it. Made per tool call,
   * and only for a call that is vended a credential.
   *
   * @example
   * const call = services.redactor.child();
   * call.addVended(token);
   * call.text(`token ${token}`); // 'token [redacted]'
   */
  child(): Redactor {
    return new Redactor([], this);
  }

  /**
   * Adds a literal value to scrub wherever it appears. Values shorter than
   * {@link MIN_SECRET_LENGTH} are ignored.
   */
  addSecret(secret: string | undefined): void {
    if (secret !== undefined && secret.length >= MIN_SECRET_LENGTH) this.#add([secret]);
  }

  /**
   * Adds a value handed to a tool, with the forms a tool leaking it would use: URL-encoded,
   * JSON-escaped, and base64 (standard and URL-safe, standing alone or inside longer base64
   * text such as a `Basic` credential). Values shorter than {@link MIN_SECRET_LENGTH} are ignored.
   */
  addVended(value: string): void {
    if (value.length >= MIN_SECRET_LENGTH) this.#add(leakForms(value));
  }

  #add(forms: readonly string[]): void {
    const fresh = forms.filter((form) => !this.#literals.includes(form));
    if (fresh.length === 0) return;
    this.#literals = [...this.#literals, ...fresh].sort((a, b) => b.length - a.length);
    this.#shortest = this.#literals.at(-1)?.length ?? Number.POSITIVE_INFINITY;
  }

  /** Scrubs a string: literal values (this redactor's and its parents'), then token shapes. */
  text(value: string): string {
    const out = this.#maskOwn(value);
    if (this.#parent !== undefined) return this.#parent.text(out);
    if (!ANY_TOKEN.test(out)) return out;
    let scrubbed = out;
    for (const [pattern, replacement] of TOKEN_PATTERNS) {
      scrubbed = scrubbed.replace(pattern, replacement);
    }
    return scrubbed;
  }

  /**
   * Masks only the literal values (this redactor's and its parents'), not token shapes or
   * secret-named fields: for what a client reads, which may legitimately hold a `nextPageToken`
   * or a token-shaped id, but never a value the gateway vended.
   */
  literals(value: string): string {
    const out = this.#maskOwn(value);
    return this.#parent === undefined ? out : this.#parent.literals(out);
  }

  /**
   * {@link Redactor.literals} on every string (and object key) of a JSON-like value, at any
   * depth up to 64 (deeper, or cyclic, objects become `[nested too deep]`). Plain objects and
   * arrays with nothing to mask come back as they are; other objects too.
   */
  deepLiterals(input: unknown, depth = 0): unknown {
    if (typeof input === 'string') return this.literals(input);
    if (input === null || typeof input !== 'object') return input;
    if (depth > 64) return NESTED_TOO_DEEP;
    if (Array.isArray(input)) {
      let out: unknown[] | undefined;
      for (let index = 0; index < input.length; index += 1) {
        const item: unknown = input[index];
        const clean = this.deepLiterals(item, depth + 1);
        if (out === undefined && clean !== item) out = input.slice(0, index);
        if (out !== undefined) out.push(clean);
      }
      return out ?? input;
    }
    const prototype = Object.getPrototypeOf(input);
    if (prototype !== Object.prototype && prototype !== null) return input;
    let changed = false;
    const out: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(input)) {
      const cleanKey = this.literals(key);
      const clean = this.deepLiterals(item, depth + 1);
      if (cleanKey !== key || clean !== item) changed = true;
      out[cleanKey] = clean;
    }
    return changed ? out : input;
  }

  #maskOwn(value: string): string {
    if (value.length < this.#shortest) return value;
    let out = value;
    for (const literal of this.#literals) {
      if (out.includes(literal)) out = out.split(literal).join(REDACTED);
    }
    return out;
  }

  /**
   * Scrubs a JSON-like value: secret-named fields entirely, every string by pattern. Plain objects
   * and arrays with nothing to scrub come back as they are (most log lines have nothing); other
   * objects come back as plain objects of their own fields (so no `toJSON()` of theirs, a URL's
   * with its password say, reaches a log line).
   */
  value(input: unknown, depth = 0): unknown {
    if (typeof input === 'string') return this.text(input);
    if (input === null || typeof input !== 'object') return input;
    // Deeper objects were once passed on whole, unscrubbed (and a cyclic one threw).
    if (depth > 8) return NESTED_TOO_DEEP;
    if (Array.isArray(input)) return this.#array(input, depth);
    const prototype = Object.getPrototypeOf(input);
    if (prototype === Object.prototype || prototype === null) {
      return this.#object(input as Record<string, unknown>, depth);
    }
    const out: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(input)) {
      out[this.literals(key)] = this.#field(key, item, depth);
    }
    return out;
  }

  #field(key: string, item: unknown, depth: number): unknown {
    // A count of model tokens (a sampling request's `maxTokens`) is a number, not a credential.
    return isSecretKey(key) &&
      item !== null &&
      item !== undefined &&
      !(typeof item === 'number' && /tokens$/i.test(key))
      ? REDACTED
      : this.value(item, depth + 1);
  }

  /** A plain object scrubbed, copied only once a field changes. */
  #object(input: Record<string, unknown>, depth: number): Record<string, unknown> {
    let out: Record<string, unknown> | undefined;
    const keys = Object.keys(input);
    for (let index = 0; index < keys.length; index += 1) {
      const key = keys[index] as string;
      const item = input[key];
      const clean = this.#field(key, item, depth);
      // A key can leak a value too (`{ [token]: 1 }`).
      const cleanKey = this.literals(key);
      if (out === undefined && (clean !== item || cleanKey !== key)) {
        out = {};
        for (let before = 0; before < index; before += 1) {
          const earlier = keys[before] as string;
          out[earlier] = input[earlier];
        }
      }
      if (out !== undefined) out[cleanKey] = clean;
    }
    return out ?? input;
  }

  /** An array scrubbed, copied only once an item changes. */
  #array(input: unknown[], depth: number): unknown[] {
    let out: unknown[] | undefined;
    for (let index = 0; index < input.length; index += 1) {
      const item = input[index];
      const clean = this.value(item, depth + 1);
      if (out === undefined && clean !== item) out = input.slice(0, index);
      if (out !== undefined) out.push(clean);
    }
    return out ?? input;
  }
}
