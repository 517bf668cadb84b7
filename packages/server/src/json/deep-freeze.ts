/**
 * Freezes `value` and everything in it, in place: for JSON shared by every caller (a tool's
 * schemas), so a route or an MCP session cannot edit it for the others.
 */
export function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const child of Object.values(value)) deepFreeze(child);
  }
  return value;
}
