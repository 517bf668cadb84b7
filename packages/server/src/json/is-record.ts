/**
 * Whether `value` is a JSON object (not null, not an array): what every reader of an untrusted
 * answer or argument checks before looking at its fields.
 *
 * @example
 * if (isRecord(body) && typeof body.name === 'string') use(body.name);
 */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
