import type { Result, Router } from 'hono/router';
import { TrieRouter } from 'hono/router/trie-router';

/** How many paths of one method the router remembers, and the longest path it remembers. */
export interface RememberedRoutesLimits {
  paths: number;
  pathLength: number;
}

const DEFAULT_LIMITS: RememberedRoutesLimits = { paths: 512, pathLength: 256 };

/**
 * Hono's router with the answers it last gave remembered by method and path (issue 37). The
 * Gateway's routes put a static segment beside a parameter (`/api/connections/mcp-endpoints`
 * beside `/api/connections/:id`), which Hono's `RegExpRouter` refuses, so its `SmartRouter` falls
 * back to the `TrieRouter`: a walk of the tree, a sort and a new parameters object for every
 * request, ~2 µs and 2.6 KB of garbage each, though nearly every request names a path seen before
 * (`POST /mcp`). A match depends only on the method, the path and the routes added, and Hono only
 * reads what it returns, so an answer is kept and handed out again until a route is added. Only
 * a path some route was added with, written out whole (no parameter, no wildcard), is kept: any
 * other path is the client's to make up, and may hold a secret that must not outlive its
 * request, whether a parameter took it (`/mcp/:token`) or only wildcards matched it (the 404 of
 * `/mcp/<token>/` with its trailing slash). So the paths kept are the code's own, a bounded set
 * whatever clients send; `limits` bound them again (at most `limits.paths` a method, the oldest
 * remembered going first, none longer than `limits.pathLength`).
 *
 * @example
 * new Hono<AppEnv>({ router: new RememberedRoutes(new TrieRouter()) });
 */
export class RememberedRoutes<T> implements Router<T> {
  readonly #router: Router<T>;
  readonly #limits: RememberedRoutesLimits;
  /** Per method, the answer for each path. A map per method: no key string made per request. */
  readonly #answers = new Map<string, Map<string, Result<T>>>();
  /** The paths routes were added with that hold no parameter or wildcard: the only ones kept. */
  readonly #fixedPaths = new Set<string>();

  constructor(router: Router<T>, limits: RememberedRoutesLimits = DEFAULT_LIMITS) {
    this.#router = router;
    this.#limits = limits;
  }

  get name(): string {
    return this.#router.name;
  }

  add(method: string, path: string, handler: T): void {
    this.#answers.clear();
    // Hono's patterns: `:name` (with `{regex}` and `?`) and `*`.
    if (!/[:*?{]/.test(path)) this.#fixedPaths.add(path);
    this.#router.add(method, path, handler);
  }

  match(method: string, path: string): Result<T> {
    let answers = this.#answers.get(method);
    const known = answers?.get(path);
    if (known !== undefined) return known;
    const answer = this.#router.match(method, path);
    if (!this.#fixedPaths.has(path)) return answer;
    if (path.length > this.#limits.pathLength || takesValues(answer)) return answer;
    if (answers === undefined) {
      answers = new Map();
      this.#answers.set(method, answers);
    } else if (answers.size >= this.#limits.paths) {
      const oldest = answers.keys().next();
      if (oldest.done !== true) answers.delete(oldest.value);
    }
    answers.set(path, answer);
    return answer;
  }

  /** How many answers are remembered, over every method (for tests). */
  get remembered(): number {
    let count = 0;
    for (const answers of this.#answers.values()) count += answers.size;
    return count;
  }
}

/**
 * Whether a match took a parameter's value from its path. Hono's answers come in two shapes: the
 * `TrieRouter`'s (each handler with its parameters object) and the `RegExpRouter`'s (handlers with
 * indexes into a stash of the regular expression's captures, whose first is the whole path and
 * whose route markers capture nothing).
 */
function takesValues<T>(answer: Result<T>): boolean {
  const stash = answer[1];
  if (stash !== undefined)
    return stash.some((value, i) => i > 0 && value !== undefined && value !== '');
  return answer[0].some(([, params]) => Object.keys(params as object).length > 0);
}

/**
 * Hono's `TrieRouter`, its answers remembered: the router the Gateway's routes end up with. Hono's
 * default, a `SmartRouter` trying the `RegExpRouter` first, builds the `RegExpRouter`'s tries from
 * every route at the first request only to be refused (see {@link RememberedRoutes}), about two
 * thirds of that first match's work, before the first answer of every start (issue 37).
 * `gateway-router.test.ts` fails if the Gateway's routes ever become ones the `RegExpRouter` takes.
 *
 * @example
 * const app = new Hono<AppEnv>({ router: rememberedTrieRouter() });
 */
export function rememberedTrieRouter<T>(): RememberedRoutes<T> {
  return new RememberedRoutes(new TrieRouter<T>());
}
