import { isValidPattern } from '@gateway/sdk/kernel';

/** How an endpoint offers its tools: listed (`tools`), or found through meta-tools (`discovery`). */
export type EndpointMode = 'tools' | 'discovery';

/** Every {@link EndpointMode}, for schemas (declared with the answers that carry it). */
export { ENDPOINT_MODES } from '@gateway/sdk/contract';

/**
 * What an MCP endpoint serves of its user's role, whatever kind of endpoint it is (a `gw_mcp_`
 * token, an OAuth grant): a function of its `mcp_endpoints` row alone.
 */
export interface EndpointScope {
  /** Patterns narrowing the role; null: the whole role. */
  readonly tools: readonly string[] | null;
  readonly mode: EndpointMode;
  /** The patterns as stored, for caching what they select; empty when `tools` is null. */
  readonly key: string;
}

/** The scope of an endpoint with no narrowing: the whole role, listed. */
export const WHOLE_ROLE: EndpointScope = Object.freeze({ tools: null, mode: 'tools', key: '' });

/** A scope serving nothing: a deleted endpoint, or a row that does not parse (fail closed). */
export const NOTHING: EndpointScope = Object.freeze({
  tools: Object.freeze([]),
  mode: 'tools',
  key: '\u0000nothing',
});

/**
 * The scope of an `mcp_endpoints` row. A row whose `tools` do not parse as a list of valid
 * patterns serves nothing rather than the whole role: the API never stores one, so it can only be
 * damage, and an endpoint must never serve more than it was given.
 *
 * @example
 * endpointScopeOf({ tools: '["notes.**"]', mode: 'discovery' }); // { tools: ['notes.**'], mode: 'discovery', ... }
 */
export function endpointScopeOf(row: { tools: string | null; mode: string }): EndpointScope {
  const mode: EndpointMode = row.mode === 'discovery' ? 'discovery' : 'tools';
  if (row.tools === null) return mode === 'tools' ? WHOLE_ROLE : { ...WHOLE_ROLE, mode };
  let parsed: unknown;
  try {
    parsed = JSON.parse(row.tools);
  } catch {
    return NOTHING;
  }
  if (!Array.isArray(parsed) || !parsed.every(isValidPattern)) return NOTHING;
  // No patterns: the whole role, as for an endpoint that never had any.
  if (parsed.length === 0) return mode === 'tools' ? WHOLE_ROLE : { ...WHOLE_ROLE, mode };
  return Object.freeze({ tools: Object.freeze([...parsed]), mode, key: row.tools });
}

/** How `tools` is stored: null for the whole role (none given, or an empty list), else JSON. */
export function storedTools(tools: readonly string[] | null | undefined): string | null {
  return tools === null || tools === undefined || tools.length === 0 ? null : JSON.stringify(tools);
}
