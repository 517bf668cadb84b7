/** Names decided at most, per decider: past it, it starts over. */
const MAX_DECIDED = 1000;
/** Longer names are decided each time (by default): a map keyed by them would hold what callers choose. */
const MAX_DECIDED_LENGTH = 64;

/**
 * `decide`, asked once per name: field names repeat (a log line's, a tool's arguments'), and a
 * regular expression or two for each, on every line or call, cost more than a map's lookup
 * (issue 37). At most {@link MAX_DECIDED} names of up to `maxLength` characters (default
 * {@link MAX_DECIDED_LENGTH}) are kept; `decide` must answer the same for a name every time.
 *
 * @example
 * const isSecretName = decidedOnce((name) => /secret|token/i.test(name));
 * isSecretName('apiToken'); // true, decided by the expression; next time by the map
 */
export function decidedOnce(
  decide: (name: string) => boolean,
  maxLength = MAX_DECIDED_LENGTH,
): (name: string) => boolean {
  let decided = new Map<string, boolean>();
  return (name) => {
    const known = decided.get(name);
    if (known !== undefined) return known;
    const answer = decide(name);
    if (name.length <= maxLength) {
      if (decided.size >= MAX_DECIDED) decided = new Map();
      decided.set(name, answer);
    }
    return answer;
  };
}
