/**
 * Whether `value` (parsed JSON) nests objects or arrays more than `max` levels deep. Iterative, so
 * a hostile document cannot exhaust the stack here, as it would in `JSON.stringify` or a recursive
 * schema check later. It runs on every upstream message (issue 37), so it walks with two stacks of
 * its own and no array or object made per node.
 *
 * @example
 * nestedDeeperThan(JSON.parse('[[[]]]'), 2); // true
 */
export function nestedDeeperThan(value: unknown, max: number): boolean {
  if (typeof value !== 'object' || value === null) return false;
  const nodes: object[] = [value];
  const depths: number[] = [1];
  while (nodes.length > 0) {
    const node = nodes.pop() as object;
    const depth = depths.pop() as number;
    if (depth > max) return true;
    if (Array.isArray(node)) {
      for (const child of node) {
        if (typeof child === 'object' && child !== null) {
          nodes.push(child);
          depths.push(depth + 1);
        }
      }
      continue;
    }
    const record = node as Record<string, unknown>;
    for (const key in record) {
      if (!Object.hasOwn(record, key)) continue;
      const child = record[key];
      if (typeof child === 'object' && child !== null) {
        nodes.push(child);
        depths.push(depth + 1);
      }
    }
  }
  return false;
}

/**
 * Whether the JSON `text` cannot nest objects or arrays more than `max` levels deep: it holds at
 * most `max` opening brackets (`{` or `[`), and every level of a parsed value opens with one (a
 * bracket inside a string only counts against it). A cheap bound before {@link nestedDeeperThan}:
 * a message of a few hundred bytes holds a handful of brackets, found by `indexOf` without a walk
 * of the parsed value (issue 37); a text with more is walked.
 *
 * @example
 * nestsWithin('{"a":[1,{"b":2}]}', 3); // true
 * nestsWithin('[[[[]]]]', 3); // false: it may (and does) nest deeper
 */
export function nestsWithin(text: string, max: number): boolean {
  let count = 0;
  for (let at = text.indexOf('{'); at !== -1; at = text.indexOf('{', at + 1)) {
    if (++count > max) return false;
  }
  for (let at = text.indexOf('['); at !== -1; at = text.indexOf('[', at + 1)) {
    if (++count > max) return false;
  }
  return true;
}
