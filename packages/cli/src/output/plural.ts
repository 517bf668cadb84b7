/**
 * `count` and `noun`, with an `s` unless there is exactly one: "1 tool", "3 tools".
 *
 * @example
 * plural(1, 'tool'); // '1 tool'
 */
export function plural(count: number, noun: string): string {
  return `${count} ${noun}${count === 1 ? '' : 's'}`;
}
