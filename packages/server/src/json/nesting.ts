/**
 * Whether `value` (parsed JSON) nests objects or arrays more than `max` levels deep. Iterative, so
 * a hostile document cannot exhaust the stack here, as it would in `JSON.stringify` or a recursive
 * schema check later.
 *
 * @example
 * nestedDeeperThan(JSON.parse('[[[]]]'), 2); // true
 */
export function nestedDeeperThan(value: unknown, max: number): boolean {
  const pending: { node: object; depth: number }[] = [];
  if (typeof value === 'object' && value !== null) pending.push({ node: value, depth: 1 });
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    if (next.depth > max) return true;
    for (const child of Array.isArray(next.node) ? next.node : Object.values(next.node)) {
      if (typeof child === 'object' && child !== null) {
        pending.push({ node: child, depth: next.depth + 1 });
      }
    }
  }
  return false;
}
