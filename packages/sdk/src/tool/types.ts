import type { z } from 'zod';
import type { PluginContext, ToolCall } from '../context/types.js';

/** The schema type a tool's input must have: a zod object schema. */
export type InputSchema = z.ZodObject;

/**
 * What `tsc` says when a tool's `inputSchema` is not a `z.object()` (issue 34): this message,
 * instead of the list of `ZodObject` properties the given schema lacks.
 */
export type InputSchemaNotObject =
  'inputSchema must be a z.object({...}) of named arguments, e.g. z.object({ query: z.string() })';

/** `inputSchema`'s type in a definition: the schema itself when it is an object schema. */
export type CheckedInputSchema<TInputSchema extends z.ZodType> = TInputSchema extends InputSchema
  ? TInputSchema
  : InputSchemaNotObject;

/** What a handler returns: the input type of `outputSchema` when given, anything JSON otherwise. */
export type ToolOutput<TOutputSchema extends z.ZodType | undefined> =
  TOutputSchema extends z.ZodType ? z.input<TOutputSchema> : unknown;

/**
 * The MCP tool annotations a plugin tool may declare (`destructiveHint` comes from `destructive`,
 * `title` from `name`).
 *
 * @example
 * annotations: { readOnlyHint: false, idempotentHint: true, openWorldHint: true }
 */
export interface ToolAnnotations {
  /** The tool changes nothing. Default: `!destructive`. */
  readOnlyHint?: boolean;
  /** Calling it again with the same arguments has no further effect. */
  idempotentHint?: boolean;
  /** It reaches outside systems (the web, a third-party API), not a closed domain. */
  openWorldHint?: boolean;
}

/**
 * A tool's definition, as `defineTool()` receives it. `TProvider`: the provider ids the handler's
 * `ctx.auth.getToken()` takes (the plugin's, with `defineToolFor()`; any string with
 * `defineTool()`); `TAuthProvider`: the one `authProvider` names.
 */
export interface ToolDefinition<
  // Any zod schema, so that a non-object one is refused by `inputSchema`'s message, not here.
  TInputSchema extends z.ZodType,
  TOutputSchema extends z.ZodType | undefined,
  TProvider extends string = string,
  TAuthProvider extends TProvider = TProvider,
> extends ToolFields<TInputSchema, TOutputSchema, TProvider, TAuthProvider> {
  /** Validates the input before the handler runs: a `z.object({...})` of named arguments. */
  inputSchema: CheckedInputSchema<TInputSchema>;
}

/** Everything of a tool's definition but its `inputSchema`. */
export interface ToolFields<
  TInputSchema extends z.ZodType,
  TOutputSchema extends z.ZodType | undefined,
  TProvider extends string = string,
  TAuthProvider extends TProvider = TProvider,
> {
  /** Dot-separated path, `<namespace>.<group>.<action>`; segments are `[a-z0-9_]+`. */
  path: string;
  /** Title Case display name, e.g. `List Repositories`. */
  name: string;
  /** What the tool does; AI clients read it to decide when to call the tool. */
  description: string;
  /** Validates the handler's result and makes it structured content for MCP clients. */
  outputSchema?: TOutputSchema;
  /** `true` for tools that create, update or delete data. */
  destructive?: boolean;
  /**
   * MCP hints clients read to decide how carefully to treat the tool. `destructive: true` means
   * `destructiveHint: true, readOnlyHint: false`, so `readOnlyHint: true` there is an error.
   * Without `readOnlyHint`, a tool that is not destructive is served as read-only.
   */
  annotations?: ToolAnnotations;
  /**
   * Declarative approval: before the handler runs, the user is asked to approve this message
   * (with the arguments shown), and a denial stops the call with `ApprovalDeniedError`, as
   * `requireApproval()` at the top of the handler does.
   *
   * @example
   * approval: ({ id }) => `Delete note ${id}?`
   */
  approval?: (input: z.output<TInputSchema>) => string;
  /** The id of the plugin auth provider the tool needs. */
  authProvider?: TAuthProvider;
  /** Whether service accounts may list and call the tool. Default false. */
  serviceAccountAllowed?: boolean;
  /**
   * Runs the tool. `input` is already validated against `inputSchema`. May be `async` or return
   * its result directly.
   */
  handler(
    ctx: PluginContext<TProvider>,
    input: z.output<TInputSchema>,
    call: ToolCall,
  ): Promise<ToolOutput<TOutputSchema>> | ToolOutput<TOutputSchema>;
}

/**
 * A defined tool. The handler is declared as a method so a tool of any input type fits in a
 * plugin's `tools` array.
 */
export interface Tool<
  TInputSchema extends InputSchema = InputSchema,
  TOutputSchema extends z.ZodType | undefined = z.ZodType | undefined,
  TProvider extends string = string,
  TAuthProvider extends TProvider = TProvider,
> extends ToolFields<TInputSchema, TOutputSchema, TProvider, TAuthProvider> {
  /** Validates the input before the handler runs (a zod object schema). */
  inputSchema: TInputSchema;
  readonly kind: 'gateway.tool';
}
