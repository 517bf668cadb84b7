import { type Dispatcher, getGlobalDispatcher, setGlobalDispatcher } from 'undici';
import { onTestFinished } from 'vitest';

/**
 * Test support: sends this process's outgoing `fetch` calls for some public origins
 * (`https://github.com`, ...) to a local server instead, for the length of one test.
 *
 * better-auth's social providers call endpoints it hard-codes (GitHub's token endpoint, Discord's
 * `/users/@me`, ...); there is no setting to point them elsewhere. Node's `fetch` sends every
 * request through undici's global dispatcher, so a dispatcher that rewrites the origin lets those
 * providers run unmodified against a real local OAuth server. Only the origin changes: method,
 * path, query, headers and body reach the local server as the provider code sent them.
 *
 * Loading this module loads undici, which installs its own agent as the global dispatcher if none
 * of its version is there yet (as the CLI's use of undici does): plain requests behave the same.
 */

/** One request the routing sent to a local server. */
export interface RoutedRequest {
  method: string;
  /** The URL the code asked for, e.g. `https://api.github.com/user`. */
  url: string;
  /** The origin it went to instead. */
  to: string;
}

/** The routing active in the current test. */
export interface UpstreamRouting {
  /** Every request routed so far, in order. */
  readonly requests: readonly RoutedRequest[];
  /** Removes the routing now (it is removed when the test ends anyway). */
  restore(): void;
}

interface Active extends UpstreamRouting {
  table: Map<string, string>;
}

// undici's global dispatcher slots: `.2` is undici >= 8's, `.1` the one Node's built-in fetch reads.
const DISPATCHER_SLOTS = [
  Symbol.for('undici.globalDispatcher.2'),
  Symbol.for('undici.globalDispatcher.1'),
] as const;

let active: Active | undefined;

function isLoopback(origin: URL): boolean {
  return ['127.0.0.1', 'localhost', '[::1]'].includes(origin.hostname);
}

function originOf(value: string): string {
  const url = new URL(value);
  if (url.pathname !== '/' || url.search !== '' || url.hash !== '')
    throw new Error(`route origins only, not paths: ${value}`);
  return url.origin;
}

/**
 * Routes requests for each key's origin to the value's origin (a local server) until the test
 * ends. Calling it again in the same test adds routes to the same table. While it is active, a
 * request for any other non-loopback origin fails at once with an error naming it, instead of
 * waiting on a network the tests do not have.
 *
 * @example
 * routeUpstream({ 'https://api.github.com': idp.url });
 * await fetch('https://api.github.com/user'); // answered by idp, at `${idp.url}/user`
 *
 * @throws when a key or value is not a bare origin, or when called outside a test.
 */
export function routeUpstream(routes: Record<string, string>): UpstreamRouting {
  const routing = active ?? install();
  for (const [from, to] of Object.entries(routes)) routing.table.set(originOf(from), originOf(to));
  return routing;
}

function install(): Active {
  const saved = DISPATCHER_SLOTS.map((slot) => Reflect.get(globalThis, slot));
  const table = new Map<string, string>();
  const requests: RoutedRequest[] = [];

  const reroute: Dispatcher.DispatcherComposeInterceptor = (dispatch) => (options, handler) => {
    const origin = new URL(String(options.origin));
    const to = table.get(origin.origin);
    if (to !== undefined) {
      requests.push({ method: options.method, url: `${origin.origin}${options.path}`, to });
      return dispatch({ ...options, origin: to }, handler);
    }
    if (isLoopback(origin)) return dispatch(options, handler);
    throw new Error(`no route for ${origin.origin} in this test (see routeUpstream)`);
  };

  const routing: Active = {
    table,
    requests,
    restore() {
      if (active !== routing) return;
      active = undefined;
      // Put back exactly what was there: setGlobalDispatcher would wrap the legacy slot anew.
      DISPATCHER_SLOTS.forEach((slot, i) => {
        Reflect.set(globalThis, slot, saved[i]);
      });
    },
  };
  // Registered before the routing is active, so a failure to register leaves nothing behind.
  onTestFinished(() => routing.restore());
  setGlobalDispatcher(getGlobalDispatcher().compose(reroute));
  active = routing;
  return routing;
}
