import { createHash, hash, randomBytes, timingSafeEqual } from 'node:crypto';
import { MASK_CHAR, MASK_RUN, maskSecret, REVEALED_CHARS } from './mask.js';

/**
 * What a gateway token is for: an MCP endpoint, the CLI, a service account, a sign-up invite, or
 * an OAuth access token, refresh token or authorization code of an `oauth` MCP endpoint.
 */
export type TokenKind = 'mcp' | 'cli' | 'sa' | 'inv' | 'oat' | 'ort' | 'oac';

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
/** 40 base62 characters carry about 238 bits of randomness. */
const TOKEN_RANDOM_CHARS = 40;
/**
 * Bytes at or above this would favour the first `256 % 62` characters if reduced modulo 62, so
 * they are drawn again (rejection sampling). 248 = 4 * 62.
 */
const UNBIASED_LIMIT = 256 - (256 % BASE62.length);
const GATEWAY_TOKEN = /^(gw_(?:mcp|cli|sa|inv|oat|ort|oac)_)([A-Za-z0-9]+)$/;

/**
 * A new random token: `gw_<kind>_` and 40 base62 characters, e.g. `gw_mcp_4fT...`. The prefix
 * lets secret scanners and our own log redaction recognise it.
 *
 * @example
 * const token = generateToken('mcp'); // shown to the user once; store hashToken(token)
 */
export function generateToken(kind: TokenKind): string {
  return `gw_${kind}_${randomBase62(TOKEN_RANDOM_CHARS)}`;
}

function randomBase62(length: number): string {
  let out = '';
  while (out.length < length) {
    // 25% extra covers the ~3% of bytes rejected, so one draw almost always suffices.
    for (const byte of randomBytes(Math.ceil((length - out.length) * 1.25))) {
      if (byte < UNBIASED_LIMIT && out.length < length) out += BASE62[byte % BASE62.length];
    }
  }
  return out;
}

/**
 * The hex SHA-256 of a token: what the database stores and looks tokens up by. A plain hash is
 * enough because tokens carry ~238 random bits; there is nothing to brute-force.
 *
 * @example
 * const row = await findByHash(hashToken(token)); // each token table keeps `token_hash`
 */
export function hashToken(token: string): string {
  // The one-shot hash: a Hash object per call cost a few µs on every MCP request.
  return hash('sha256', token, 'hex');
}

/**
 * The display form of a token: its `gw_<kind>_` prefix, eight `•` and its last four characters,
 * e.g. `gw_mcp_••••••••abcd`. Anything else is masked like a secret ({@link maskSecret}).
 */
export function maskToken(token: string): string {
  const match = GATEWAY_TOKEN.exec(token);
  if (!match) return maskSecret(token);
  const [, prefix = '', random = ''] = match;
  return prefix + MASK_CHAR.repeat(MASK_RUN) + random.slice(-REVEALED_CHARS);
}

/**
 * Compares two strings in constant time. Both sides are hashed first, so neither the position of
 * the first difference nor the expected value's length can be learnt from timing.
 *
 * @example
 * if (!safeEqual(presented, process.env.SERVICE_API_SECRET ?? '')) throw unauthorized();
 */
export function safeEqual(a: string, b: string): boolean {
  const digestA = createHash('sha256').update(a, 'utf8').digest();
  const digestB = createHash('sha256').update(b, 'utf8').digest();
  return timingSafeEqual(digestA, digestB);
}

/** Well-known credential shapes, each matched against a whole value. */
const KNOWN_TOKEN_SHAPES: readonly RegExp[] = [
  /^gw_(?:mcp|cli|sa|inv|oat|ort|oac)_[A-Za-z0-9]{32,}$/, // ours
  /^sk-[A-Za-z0-9_-]{16,}$/, // OpenAI, Anthropic (sk-ant-...), Stripe-style secret keys
  /^(?:sk|rk|pk)_(?:live|test)_[A-Za-z0-9]{16,}$/, // Stripe
  /^gh[pousr]_[A-Za-z0-9]{30,}$/, // GitHub tokens
  /^github_pat_[A-Za-z0-9_]{30,}$/, // GitHub fine-grained tokens
  /^glpat-[A-Za-z0-9_-]{20,}$/, // GitLab
  /^xox[abposr]-[A-Za-z0-9-]{10,}$/, // Slack
  /^AKIA[0-9A-Z]{16}$/, // AWS access key id
  /^AIza[0-9A-Za-z_-]{35}$/, // Google API key
  /^ya29\.[0-9A-Za-z_-]{20,}$/, // Google OAuth access token
  /^eyJ[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*$/, // JWT
];
/** The length of the shortest value any of the shapes above or below matches (`eyJa.b.`). */
const SHORTEST_TOKEN = 7;
const LONG_HEX = /^[0-9a-fA-F]{32,}$/;
const LONG_BASE64 = /^[A-Za-z0-9+/_-]{32,}={0,2}$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * Whether a value looks like a credential and should be redacted from logs and recorded
 * arguments: a gateway token, a well-known provider key or token shape, or a long (32+
 * characters) hex or base64 string with both letters and digits, as random keys have. A leading
 * `Bearer ` is ignored. UUIDs are ids, not secrets, and do not count.
 *
 * Redaction errs towards hiding: a long random-looking id may be caught too.
 *
 * @example
 * looksLikeToken('gw_cli_...'); // true
 * looksLikeToken('github'); // false
 */
export function looksLikeToken(value: string): boolean {
  // Shorter than the shortest shape (a JWT's `eyJ` and two dots): every call's record asks this
  // of each string argument, most of them short (issue 37).
  if (value.length < SHORTEST_TOKEN) return false;
  const candidate = value.trim().replace(/^bearer\s+/i, '');
  if (KNOWN_TOKEN_SHAPES.some((shape) => shape.test(candidate))) return true;
  if (UUID.test(candidate)) return false;
  if (LONG_HEX.test(candidate)) return true;
  return LONG_BASE64.test(candidate) && /[0-9]/.test(candidate) && /[A-Za-z]/.test(candidate);
}
