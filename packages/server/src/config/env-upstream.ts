/** The environment variables of upstream MCP sources (see env.ts for the others). */
import { type Env, value } from './env.js';

/**
 * `GATEWAY_UPSTREAM_ALLOW_PRIVATE`: `true` lets upstream MCP sources (`type: "mcp"`) live on
 * loopback and private addresses (10/8, 172.16/12, 192.168/16, 127/8, fc00::/7, ...), for an
 * upstream beside the gateway on one host or network. Default `false`: such a URL, or a host name
 * resolving to such an address, is refused, so a registration cannot reach the gateway's
 * neighbours. Link-local addresses (cloud metadata) and the gateway's own address are refused
 * either way.
 */
export function upstreamAllowPrivate(env: Env): boolean {
  return flag(env, 'GATEWAY_UPSTREAM_ALLOW_PRIVATE', false);
}

/**
 * `GATEWAY_UPSTREAM_CLIENT_METADATA`: `false` stops the gateway offering its OAuth Client ID
 * Metadata Document to upstreams' authorization servers, for an https gateway those servers
 * cannot reach (it registers there instead). Default `true`; a gateway whose address is not
 * https never offers it.
 */
export function upstreamClientMetadata(env: Env): boolean {
  return flag(env, 'GATEWAY_UPSTREAM_CLIENT_METADATA', true);
}

/**
 * `GATEWAY_UPSTREAM_REFRESH_SECONDS`: how often the tool list of every upstream MCP source is
 * fetched again (besides on its `notifications/tools/list_changed`). Default 300; 0: never.
 */
export function upstreamRefreshSeconds(env: Env): number {
  const raw = value(env, 'GATEWAY_UPSTREAM_REFRESH_SECONDS');
  if (raw === undefined) return 300;
  const parsed = Number(raw);
  if (!Number.isFinite(parsed) || parsed < 0) {
    throw new Error(
      `GATEWAY_UPSTREAM_REFRESH_SECONDS must be a number of seconds >= 0, got "${raw}"`,
    );
  }
  return parsed;
}

/**
 * `GATEWAY_UPSTREAM_MAX_BYTES`: the largest message an upstream MCP server may send (an HTTP
 * answer, one event of a stream, one line of a stdio upstream); a larger one ends the call with an
 * error. Default 4 MiB.
 */
export function upstreamMaxBytes(env: Env): number {
  const raw = value(env, 'GATEWAY_UPSTREAM_MAX_BYTES');
  if (raw === undefined) return 4 * 1024 * 1024;
  const parsed = Number(raw);
  if (!Number.isInteger(parsed) || parsed < 1024) {
    throw new Error(`GATEWAY_UPSTREAM_MAX_BYTES must be a whole number >= 1024, got "${raw}"`);
  }
  return parsed;
}

/**
 * A `true`/`false` variable (`1`/`0` too); `unset` when it is not set.
 *
 * @throws Error naming the variable when it is anything else.
 */
function flag(env: Env, name: string, unset: boolean): boolean {
  const raw = value(env, name);
  if (raw === undefined) return unset;
  if (raw === 'true' || raw === '1') return true;
  if (raw === 'false' || raw === '0') return false;
  throw new Error(`${name} must be true or false, got "${raw}"`);
}
