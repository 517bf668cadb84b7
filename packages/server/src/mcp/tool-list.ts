import { compilePatterns, type PathMatcher } from '@gateway/sdk/kernel';
import { isSpecType, type Tool as McpTool } from '@modelcontextprotocol/server';
import type { ServerLogger } from '../http/logger.js';
import type { EndpointScope } from '../mcp-endpoints/index.js';
import type { MountedTool } from '../registry/index.js';

/** Compiled endpoint patterns kept at most; past it, the cache starts over. */
const MAX_MATCHERS = 1000;

/** What MCP serves of one tool set: the `tools/list` answer and the tools by MCP name. */
export interface ToolIndex {
  /** The `tools` of a `tools/list` answer. Shared: never modified. */
  readonly list: readonly McpTool[];
  /** The tool an MCP name stands for. */
  readonly byName: ReadonlyMap<string, MountedTool>;
  /** MCP names of tools whose results carry `structuredContent` (object output schemas). */
  readonly structured: ReadonlySet<string>;
}

/**
 * Turns resolved tool sets into MCP tool lists, once per set. The policy service hands out the
 * same frozen array for a role until the role or the catalog changes, so keying the cache by
 * that array makes `tools/list` a map lookup, and a changed role or catalog a new entry (the old
 * one goes with its array).
 */
export class ToolIndexCache {
  readonly #cache = new WeakMap<readonly MountedTool[], ToolIndex>();
  /** A role's index narrowed by an endpoint's patterns, by the patterns as stored. */
  readonly #scoped = new WeakMap<ToolIndex, Map<string, ToolIndex>>();
  #matchers = new Map<string, PathMatcher>();
  readonly #toolName: (tool: MountedTool) => string;
  readonly #logger: ServerLogger;

  constructor(options: { toolName: (tool: MountedTool) => string; logger: ServerLogger }) {
    this.#toolName = options.toolName;
    this.#logger = options.logger;
  }

  /**
   * The index of `tools` (a policy resolution's array), narrowed to the tools `scope`'s patterns
   * match when it has any. Built once per role resolution and endpoint patterns, so a call costs
   * map lookups.
   */
  get(tools: readonly MountedTool[], scope?: EndpointScope): ToolIndex {
    let index = this.#cache.get(tools);
    if (index === undefined) {
      index = this.#build(tools);
      this.#cache.set(tools, index);
    }
    if (scope === undefined || scope.tools === null) return index;
    let narrowed = this.#scoped.get(index);
    if (narrowed === undefined) {
      narrowed = new Map();
      this.#scoped.set(index, narrowed);
    }
    let scoped = narrowed.get(scope.key);
    if (scoped === undefined) {
      scoped = narrow(index, this.#matcher(scope));
      narrowed.set(scope.key, scoped);
    }
    return scoped;
  }

  #matcher(scope: EndpointScope): PathMatcher {
    let matcher = this.#matchers.get(scope.key);
    if (matcher === undefined) {
      if (this.#matchers.size >= MAX_MATCHERS) this.#matchers = new Map();
      matcher = compilePatterns(scope.tools ?? []);
      this.#matchers.set(scope.key, matcher);
    }
    return matcher;
  }

  #build(tools: readonly MountedTool[]): ToolIndex {
    const list: McpTool[] = [];
    const byName = new Map<string, MountedTool>();
    const structured = new Set<string>();
    for (const tool of tools) {
      const name = this.#toolName(tool);
      if (byName.has(name)) {
        this.#logger.warn('two tools share one MCP name; the second is not served', {
          name,
          tool: tool.path,
        });
        continue;
      }
      // MCP carries structured results only for object schemas; others are sent as text alone.
      const output = tool.outputJsonSchema?.type === 'object' ? tool.outputJsonSchema : undefined;
      const candidate = {
        name,
        title: tool.name,
        description: tool.description,
        inputSchema: tool.inputJsonSchema,
        ...(output === undefined ? {} : { outputSchema: output }),
        // An upstream's own annotations, exactly: a hint it did not give is never added.
        ...(tool.annotations === undefined ? {} : { annotations: tool.annotations }),
      };
      if (!isSpecType.Tool(candidate)) {
        this.#logger.warn('tool not served over MCP: its schema is not an MCP tool schema', {
          tool: tool.path,
        });
        continue;
      }
      list.push(Object.freeze(candidate));
      byName.set(name, tool);
      if (output !== undefined) structured.add(name);
    }
    return { list: Object.freeze(list), byName, structured };
  }
}

/** The part of `index` whose tools' paths `matcher` accepts, sharing its frozen entries. */
function narrow(index: ToolIndex, matcher: PathMatcher): ToolIndex {
  const list: McpTool[] = [];
  const byName = new Map<string, MountedTool>();
  const structured = new Set<string>();
  for (const entry of index.list) {
    const tool = index.byName.get(entry.name);
    if (tool === undefined || !matcher.matches(tool.path)) continue;
    list.push(entry);
    byName.set(entry.name, tool);
    if (index.structured.has(entry.name)) structured.add(entry.name);
  }
  return { list: Object.freeze(list), byName, structured };
}
