import type { Tool as McpTool } from '@modelcontextprotocol/client';
import { deepFreeze } from '../json/deep-freeze.js';
import type { JsonSchema, MountedTool } from '../registry/mounted-tool.js';
import type { ToolSource } from '../tool-sources/index.js';

const SEGMENT = /^[a-z0-9_]+$/;
const MAX_DESCRIPTION = 4000;

/**
 * The tool-path segments for an upstream tool name: each dot-separated part lower-cased, camel
 * case split with `_`, and every character outside `a-z 0-9 _` made `_`, so `get-sum` is
 * `get_sum`, `listFiles` is `list_files` and `files.read` stays `files.read`.
 *
 * @example
 * pathSegmentsOf('get-tiny-image'); // 'get_tiny_image'
 */
export function pathSegmentsOf(name: string): string {
  return name
    .split('.')
    .map((part) =>
      part
        .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
        .toLowerCase()
        .replace(/[^a-z0-9_]/g, '_')
        .replace(/^$/, '_'),
    )
    .join('.');
}

/** A served upstream tool: its path and the name the upstream knows it by. */
export interface NamedTool {
  path: string;
  upstreamName: string;
}

/**
 * Mounted tools for an upstream's listed tools under `namespace`. Names that break the path
 * rules are mapped ({@link pathSegmentsOf}); two names mapped to one path get `_2`, `_3`, ...
 * in the order of their names. A tool whose input schema is not an object schema is left out.
 */
export function upstreamTools(options: {
  sourceId: string;
  namespace: string;
  listed: readonly McpTool[];
  destructive: (tool: McpTool) => boolean;
  serviceAccountAllowed: boolean;
  /** The provider whose credential calls carry (a `header` source), shown like a plugin tool's. */
  authProvider?: string | undefined;
  sourceFor: (tool: McpTool, path: string) => ToolSource;
}): MountedTool[] {
  const { sourceId, namespace, listed } = options;
  const taken = new Set<string>();
  const tools: MountedTool[] = [];
  const byName = [...listed].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  for (const tool of byName) {
    if (tool.inputSchema?.type !== 'object') continue;
    const base = `${namespace}.${pathSegmentsOf(tool.name)}`;
    if (!base.split('.').every((part) => SEGMENT.test(part))) continue;
    let path = base;
    for (let n = 2; taken.has(path); n++) path = `${base}_${n}`;
    taken.add(path);
    const output = tool.outputSchema?.type === 'object' ? tool.outputSchema : undefined;
    tools.push(
      Object.freeze({
        path,
        name: (tool.title ?? tool.annotations?.title ?? tool.name).slice(0, 200),
        description: (tool.description ?? '').slice(0, MAX_DESCRIPTION),
        destructive: options.destructive(tool),
        ...(tool.annotations === undefined
          ? {}
          : { annotations: deepFreeze(structuredClone(tool.annotations)) }),
        ...(options.authProvider === undefined ? {} : { authProvider: options.authProvider }),
        pluginId: sourceId,
        sourceId,
        namespace,
        serviceAccountAllowed: options.serviceAccountAllowed,
        inputJsonSchema: deepFreeze(structuredClone(tool.inputSchema) as JsonSchema),
        ...(output === undefined
          ? {}
          : { outputJsonSchema: deepFreeze(structuredClone(output) as JsonSchema) }),
        source: options.sourceFor(tool, path),
      }),
    );
  }
  return tools;
}
