import type { z } from 'zod';
import type { AuthProvider, ProviderId } from '../plugin/types.js';
import type { InputSchema, Tool, ToolDefinition } from './types.js';

/** The tool's input schema type once `inputSchema` has passed its check. */
type ObjectSchema<TInputSchema extends z.ZodType> = TInputSchema extends InputSchema
  ? TInputSchema
  : InputSchema;

function toTool<
  TInputSchema extends z.ZodType,
  TOutputSchema extends z.ZodType | undefined,
  TProvider extends string,
  TAuthProvider extends TProvider,
>(
  definition: ToolDefinition<TInputSchema, TOutputSchema, TProvider, TAuthProvider>,
): Tool<ObjectSchema<TInputSchema>, TOutputSchema, TProvider, TAuthProvider> {
  // `inputSchema` is an object schema whenever the call compiled (its type is the message
  // otherwise), which tsc cannot follow through the conditional type; `definePlugin()` checks it
  // again at run time.
  const tool: unknown = { ...definition, kind: 'gateway.tool' };
  return tool as Tool<ObjectSchema<TInputSchema>, TOutputSchema, TProvider, TAuthProvider>;
}

/**
 * Defines a tool. The handler's `input` type is inferred from `inputSchema`, and its return value
 * is checked against `outputSchema`. The definition is validated with its plugin, by
 * `definePlugin()`, so every problem is reported at once.
 *
 * @example
 * export const getForecast = defineTool({
 *   path: 'weather.forecast.get',
 *   name: 'Get Forecast',
 *   description: 'The forecast for a city.',
 *   inputSchema: z.object({ city: z.string() }),
 *   outputSchema: z.object({ summary: z.string() }),
 *   authProvider: 'weather',
 *   async handler(ctx, { city }) {
 *     const key = await ctx.auth.getToken('weather');
 *     return { summary: await fetchForecast(city, key) };
 *   },
 * });
 */
export function defineTool<
  TInputSchema extends z.ZodType,
  TOutputSchema extends z.ZodType | undefined = undefined,
  // The literal `authProvider` names, so `definePlugin()` can check it against its providers.
  const TAuthProvider extends string = never,
>(
  definition: ToolDefinition<TInputSchema, TOutputSchema, string, TAuthProvider>,
): Tool<ObjectSchema<TInputSchema>, TOutputSchema, string, TAuthProvider> {
  return toTool(definition);
}

/**
 * `defineTool` for the tools of a plugin with these `authProviders`: `authProvider` and
 * `ctx.auth.getToken()` take only their ids, so `tsc` refuses a misspelt or undeclared provider.
 * Declare the providers with {@link defineAuthProviders} (or `as const`) so their ids are known.
 *
 * @example
 * export const authProviders = defineAuthProviders([
 *   { id: 'weather', type: 'api_key', provider: 'weather', scopes: [] },
 * ]);
 * const defineWeatherTool = defineToolFor(authProviders);
 * export const getForecast = defineWeatherTool({
 *   // ...
 *   authProvider: 'weather', // 'wether' does not compile
 *   async handler(ctx, { city }) {
 *     const key = await ctx.auth.getToken('weather'); // so does getToken('github')
 *     return { summary: await fetchForecast(city, key) };
 *   },
 * });
 */
export function defineToolFor<const TProviders extends readonly AuthProvider[]>(
  _authProviders: TProviders,
): <
  TInputSchema extends z.ZodType,
  TOutputSchema extends z.ZodType | undefined = undefined,
  TAuthProvider extends ProviderId<TProviders> = never,
>(
  definition: ToolDefinition<TInputSchema, TOutputSchema, ProviderId<TProviders>, TAuthProvider>,
) => Tool<ObjectSchema<TInputSchema>, TOutputSchema, ProviderId<TProviders>, TAuthProvider> {
  return toTool;
}
