import type { ServerCapabilities } from '@modelcontextprotocol/server';
import type { FederatedSource } from '../../upstream/federation.js';
import type { ConnectionKind } from '../call-site.js';
import type { McpPrincipal } from '../principal.js';
import { type McpRuntime, toolsOf } from '../runtime.js';
import type { ToolIndex } from '../tool-list.js';

/** The upstream sources with tools in a tool index, by id; one set per index. */
const sourcesOfIndex = new WeakMap<ToolIndex, readonly string[]>();

/**
 * The upstream sources whose resources, prompts and completions `principal` sees, sorted by
 * namespace: those with at least one tool among the principal's tools (`tools/list`), so role
 * patterns, service-account rules and everything else that decides the tools decide these too.
 * A source with no tool the caller may use is not visible, and none of its resources, templates,
 * prompts or completions exist for the caller.
 */
export async function visibleSources(
  runtime: McpRuntime,
  principal: McpPrincipal,
): Promise<FederatedSource[]> {
  const { upstreams } = runtime.services;
  // A gateway whose upstreams offer nothing but tools resolves nothing more here.
  if (!upstreams.federates) return [];
  const { index } = await toolsOf(runtime, principal);
  const sources: FederatedSource[] = [];
  for (const id of upstreamSourcesOf(index)) {
    const source = upstreams.federated(id);
    if (source !== undefined) sources.push(source);
  }
  return sources.sort((a, b) =>
    a.namespace < b.namespace ? -1 : a.namespace > b.namespace ? 1 : 0,
  );
}

function upstreamSourcesOf(index: ToolIndex): readonly string[] {
  let ids = sourcesOfIndex.get(index);
  if (ids === undefined) {
    const found = new Set<string>();
    for (const tool of index.byName.values()) {
      if (tool.source.kind === 'mcp') found.add(tool.sourceId);
    }
    ids = [...found];
    sourcesOfIndex.set(index, ids);
  }
  return ids;
}

/**
 * What the gateway offers a client besides tools: what at least one of `sources` offers. Resource
 * subscriptions are offered on 2025 sessions (`resources/subscribe`) and to 2026-07-28 clients
 * (`subscriptions/listen` with resources to watch, see `ListenStreams`), not to 2025 requests
 * outside a session, which have nowhere to hear an update.
 */
export function federatedCapabilities(
  sources: readonly FederatedSource[],
  kind: ConnectionKind,
): ServerCapabilities {
  let resources: { subscribe: boolean; listChanged: boolean } | undefined;
  let prompts: { listChanged: boolean } | undefined;
  let completions = false;
  for (const { offers } of sources) {
    if (offers.resources !== undefined) {
      resources = {
        subscribe: (resources?.subscribe ?? false) || offers.resources.subscribe,
        listChanged: (resources?.listChanged ?? false) || offers.resources.listChanged,
      };
    }
    if (offers.prompts !== undefined) {
      prompts = { listChanged: (prompts?.listChanged ?? false) || offers.prompts.listChanged };
    }
    if (offers.completions !== undefined) completions = true;
  }
  return {
    ...(resources === undefined
      ? {}
      : {
          resources: {
            ...(resources.subscribe && kind !== 'stateless' ? { subscribe: true } : {}),
            ...(resources.listChanged ? { listChanged: true } : {}),
          },
        }),
    ...(prompts === undefined ? {} : { prompts: prompts.listChanged ? { listChanged: true } : {} }),
    ...(completions ? { completions: {} } : {}),
  };
}
