import type { Plugin, Tool } from '@gateway/sdk';
import {
  acceptedInputKeys,
  toolJsonSchema,
  unrepresentableSchemaMessage,
} from '@gateway/sdk/kernel';
import type { z } from 'zod';
import { deepFreeze } from '../json/deep-freeze.js';
import { PluginTool, type ToolSource } from '../tool-sources/index.js';
import { PluginCatalogError } from './catalog-error.js';
import { withoutSafeIntegerBounds } from './safe-integer-bounds.js';

/** A JSON Schema document, as generated from a tool's zod schema. */
export type JsonSchema = { [key: string]: unknown };

/** A registration that mounts a loaded plugin under a tool-path namespace. */
export interface MountSource {
  /** The registration's id (`registry_sources.id`). */
  id: string;
  /** The namespace every tool path of the plugin must start with (`<namespace>.`). */
  namespace: string;
  /** The loaded plugin being mounted. */
  pluginId: string;
}

/**
 * A tool as the gateway serves it: the tool itself plus everything computed from it once, when
 * its plugin is mounted, so listing tools (MCP `tools/list`, policy resolve) never regenerates a
 * JSON Schema per request.
 */
export interface MountedTool {
  path: string;
  name: string;
  description: string;
  destructive: boolean;
  authProvider?: string;
  /** The plugin, or for an upstream MCP tool its registration's id. */
  pluginId: string;
  /** The registration that mounted the tool. */
  sourceId: string;
  namespace: string;
  serviceAccountAllowed: boolean;
  /**
   * JSON Schema of what a caller sends (`z.toJSONSchema(inputSchema, { io: 'input' })`), with
   * `additionalProperties: false` when the tool refuses arguments it does not declare, and
   * without zod's safe-integer bounds (`withoutSafeIntegerBounds`).
   */
  inputJsonSchema: JsonSchema;
  /** JSON Schema of the structured result, when the tool declares `outputSchema`. */
  outputJsonSchema?: JsonSchema;
  /**
   * MCP `annotations` as served: an upstream tool's exactly as its upstream listed them (none when
   * it gave none); a plugin tool's from its `name`, `destructive` and declared `annotations`.
   */
  annotations?: Readonly<Record<string, unknown>>;
  /** Where the tool comes from and how it runs: a {@link PluginTool} or an upstream MCP tool. */
  source: ToolSource;
}

// Keyed by the tool object, so unmounting and mounting again never regenerates a JSON Schema.
const schemaCache = new WeakMap<Tool, ToolSchemas>();

interface ToolSchemas {
  input: JsonSchema;
  output?: JsonSchema;
}

/**
 * The tool `tool` of `plugin` as `source` mounts it, its JSON Schemas made once per tool object.
 *
 * @throws PluginCatalogError (`unrepresentable_schema`) for a schema JSON Schema cannot express.
 */
export function mountedTool(tool: Tool, plugin: Plugin, source: MountSource): MountedTool {
  const schemas = jsonSchemasOf(tool);
  return Object.freeze({
    path: tool.path,
    name: tool.name,
    description: tool.description,
    destructive: tool.destructive === true,
    ...(tool.authProvider === undefined ? {} : { authProvider: tool.authProvider }),
    pluginId: plugin.id,
    sourceId: source.id,
    namespace: source.namespace,
    serviceAccountAllowed: tool.serviceAccountAllowed === true,
    inputJsonSchema: schemas.input,
    ...(schemas.output === undefined ? {} : { outputJsonSchema: schemas.output }),
    annotations: pluginAnnotations(tool),
    source: new PluginTool(tool, plugin, schemas.output?.type === 'object'),
  });
}

/**
 * A plugin tool's MCP annotations: `destructive` is `destructiveHint: true, readOnlyHint: false`;
 * a tool that is not destructive is read-only unless it says otherwise.
 */
function pluginAnnotations(tool: Tool): Readonly<Record<string, unknown>> {
  const destructive = tool.destructive === true;
  const declared = tool.annotations ?? {};
  return Object.freeze({
    title: tool.name,
    readOnlyHint: destructive ? false : (declared.readOnlyHint ?? true),
    destructiveHint: destructive,
    ...(declared.idempotentHint === undefined ? {} : { idempotentHint: declared.idempotentHint }),
    ...(declared.openWorldHint === undefined ? {} : { openWorldHint: declared.openWorldHint }),
  });
}

function jsonSchemasOf(tool: Tool): ToolSchemas {
  const cached = schemaCache.get(tool);
  if (cached !== undefined) return cached;
  const inputKeys = acceptedInputKeys(tool.inputSchema);
  // zod writes `additionalProperties: false` for input only when the object is strict, but the
  // gateway refuses unknown arguments of a plain z.object() too: clients should know before calling.
  const closed = inputKeys === undefined ? {} : { additionalProperties: false };
  const schemas: ToolSchemas = {
    input: toJsonSchema(tool, 'inputSchema', tool.inputSchema, 'input', closed),
    ...(tool.outputSchema === undefined
      ? {}
      : { output: toJsonSchema(tool, 'outputSchema', tool.outputSchema, 'output') }),
  };
  schemaCache.set(tool, schemas);
  return schemas;
}

function toJsonSchema(
  tool: Tool,
  field: string,
  schema: z.ZodType,
  io: 'input' | 'output',
  extra: JsonSchema = {},
): JsonSchema {
  // The sdk's conversion, so `gateway test` refuses exactly the schemas refused here.
  const result = toolJsonSchema(schema, io);
  if ('reason' in result) {
    // A schema MCP clients cannot read (e.g. z.date()) must fail the mount, not every tools/list.
    const detail = `${tool.path}: ${field} ${unrepresentableSchemaMessage(result.reason)}`;
    throw new PluginCatalogError('unrepresentable_schema', detail, [detail]);
  }
  return deepFreeze({ ...withoutSafeIntegerBounds(result.schema), ...extra });
}
