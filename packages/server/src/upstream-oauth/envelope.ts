import { z } from 'zod';
import type { SecretBox } from '../secrets/index.js';

/** A token this close to expiry is refreshed before it is sent. */
const EXPIRY_SKEW_MS = 30_000;

/** What is encrypted in the connection: the tokens and what refreshing them needs. */
export const envelopeSchema = z.object({
  v: z.literal(1),
  accessToken: z.string().min(1),
  refreshToken: z.string().optional(),
  /** Epoch milliseconds, when the server said. */
  expiresAt: z.number().optional(),
  issuer: z.string(),
  resource: z.string(),
});
export type Envelope = z.infer<typeof envelopeSchema>;

/**
 * The envelope in a connection's `encrypted_secret`, or the raw token of a connection that holds a
 * plain one (pasted with "Use a token instead").
 *
 * @example
 * const opened = openEnvelope(secrets, row.encrypted_secret);
 * const token = typeof opened === 'string' ? opened : opened.accessToken;
 */
export function openEnvelope(
  secrets: Pick<SecretBox, 'decrypt'>,
  encrypted: string,
): Envelope | string {
  const raw = secrets.decrypt(encrypted);
  let json: unknown;
  try {
    json = JSON.parse(raw);
  } catch {
    return raw;
  }
  const parsed = envelopeSchema.safeParse(json);
  return parsed.success ? parsed.data : raw;
}

/** Whether the envelope's access token expires within 30 s (or has). */
export function dueForRefresh(envelope: Envelope): boolean {
  return envelope.expiresAt !== undefined && envelope.expiresAt - Date.now() < EXPIRY_SKEW_MS;
}
