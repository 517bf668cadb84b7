/**
 * Scrubs secrets from anything headed for a log line: values of fields named like secrets,
 * gateway and provider tokens, bearer credentials, passwords in URLs, and every secret the server
 * was configured with.
 */
const SECRET_KEY =
  /secret|token|password|passwd|authorization|cookie|api[-_]?key|^key$|credential/i;
export const REDACTED = '[redacted]';

/** Token shapes scrubbed wherever they appear, each with what replaces it. */
const TOKEN_PATTERNS: readonly (readonly [RegExp, string])[] = [
  [/gw_(?:mcp|cli|sa|inv)_[A-Za-z0-9]{8,}/g, REDACTED],
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

export class Redactor {
  private readonly secrets = new Set<string>();

  constructor(secrets: Iterable<string | undefined> = []) {
    for (const secret of secrets) this.addSecret(secret);
  }

  /** Adds a literal value to scrub wherever it appears. Short values are ignored (too common). */
  addSecret(secret: string | undefined): void {
    if (secret !== undefined && secret.length >= 8) this.secrets.add(secret);
  }

  /** Scrubs a string. */
  text(value: string): string {
    let out = value;
    for (const secret of this.secrets) {
      if (out.includes(secret)) out = out.split(secret).join(REDACTED);
    }
    if (!ANY_TOKEN.test(out)) return out;
    for (const [pattern, replacement] of TOKEN_PATTERNS) out = out.replace(pattern, replacement);
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
    if (depth > 8 || input === null || typeof input !== 'object') return input;
    if (Array.isArray(input)) return this.#array(input, depth);
    const prototype = Object.getPrototypeOf(input);
    if (prototype === Object.prototype || prototype === null) {
      return this.#object(input as Record<string, unknown>, depth);
    }
    const out: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(input)) out[key] = this.#field(key, item, depth);
    return out;
  }

  #field(key: string, item: unknown, depth: number): unknown {
    return SECRET_KEY.test(key) && item !== null && item !== undefined
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
      if (out === undefined && clean !== item) {
        out = {};
        for (let before = 0; before < index; before += 1) {
          const earlier = keys[before] as string;
          out[earlier] = input[earlier];
        }
      }
      if (out !== undefined) out[key] = clean;
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
