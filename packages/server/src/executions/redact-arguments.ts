import { decidedOnce } from '../http/decided-names.js';
import { MIN_SECRET_LENGTH, REDACTED } from '../http/redact.js';
import { looksLikeToken } from '../secrets/index.js';

/** Words that make a field name sensitive wherever they appear in it (`client_secret`, `accessToken`). */
const SENSITIVE_FRAGMENT =
  /secret|token|passw|pwd|authori[sz]ation|credential|cookie|apikey|api_key|private_?key|passphrase/i;
/** Whole words that make a field sensitive (`key`, `apiKey`), but not inside others (`keyboard`, `monkey`). */
const SENSITIVE_WORDS = new Set(['key', 'keys', 'auth', 'pin', 'otp', 'signature']);

const MAX_DEPTH = 8;
const MAX_STRING = 1000;
const MAX_ITEMS = 100;

/**
 * Whether a field name marks a secret: it contains secret, token, password, authorization,
 * credential or cookie, or one of its words is `key` (as in `apiKey`, `key`, `ssh_key`). Every
 * call's record asks this of each argument's name: two regular expressions, a case change and a
 * split each time were ~0.8% of the gateway's busy time on the MCP path, so it is decided once per
 * name.
 */
export const isSensitiveKey: (key: string) => boolean = decidedOnce(decide);

function decide(key: string): boolean {
  if (SENSITIVE_FRAGMENT.test(key)) return true;
  const words = key
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .toLowerCase()
    .split(/[^a-z0-9]+/);
  return words.some((word) => SENSITIVE_WORDS.has(word));
}

/**
 * A copy of a tool call's arguments fit for the execution record: values of fields named like
 * secrets and strings that look like tokens become `[redacted]`; long strings and arrays are cut
 * short so one call cannot fill the audit table.
 *
 * @example
 * redactArguments({ repo: 'a/b', token: 'ghp_...' }); // { repo: 'a/b', token: '[redacted]' }
 */
export function redactArguments(value: unknown, depth = 0): unknown {
  if (typeof value === 'string') {
    if (looksLikeToken(value)) return REDACTED;
    return value.length > MAX_STRING ? `${value.slice(0, MAX_STRING)}…` : value;
  }
  if (value === null || typeof value !== 'object') return value;
  if (depth >= MAX_DEPTH) return '[nested too deep]';
  if (Array.isArray(value)) {
    const items = value.slice(0, MAX_ITEMS).map((item) => redactArguments(item, depth + 1));
    if (value.length > MAX_ITEMS) items.push(`… ${value.length - MAX_ITEMS} more`);
    return items;
  }
  const out: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) {
    out[key] =
      isSensitiveKey(key) && item !== null && item !== undefined && !isTokenCount(key, item)
        ? REDACTED
        : redactArguments(item, depth + 1);
  }
  return out;
}

/**
 * A count of model tokens (`maxTokens`, `max_tokens`, `totalTokens`: plural, a number), which
 * a sampling request carries and a record should show, not a credential.
 */
function isTokenCount(key: string, item: unknown): boolean {
  return typeof item === 'number' && /tokens$/i.test(key);
}

/**
 * `error` with every argument value that {@link redactArguments} hides masked in it: an error
 * that quotes an argument (`No credential for <the apiKey argument>`) must not undo the
 * redaction of the arguments beside it. Values shorter than `MIN_SECRET_LENGTH` stay, as
 * everywhere.
 *
 * @example
 * redactError('bad key hunter2-long', { apiKey: 'hunter2-long' }); // 'bad key [redacted]'
 */
export function redactError(error: string, args: unknown): string {
  let out = error;
  const hidden = hiddenValues(args, 0, false, []).sort((a, b) => b.length - a.length);
  for (const secret of hidden) {
    if (out.includes(secret)) out = out.split(secret).join(REDACTED);
  }
  return out;
}

/** The strings {@link redactArguments} replaces, added to `found`. */
function hiddenValues(
  value: unknown,
  depth: number,
  sensitive: boolean,
  found: string[],
): string[] {
  if (typeof value === 'string') {
    if (value.length >= MIN_SECRET_LENGTH && (sensitive || looksLikeToken(value)))
      found.push(value);
  } else if (Array.isArray(value) && depth < MAX_DEPTH) {
    for (const item of value) hiddenValues(item, depth + 1, sensitive, found);
  } else if (value !== null && typeof value === 'object' && depth < MAX_DEPTH) {
    for (const [key, item] of Object.entries(value)) {
      hiddenValues(item, depth + 1, sensitive || isSensitiveKey(key), found);
    }
  }
  return found;
}
