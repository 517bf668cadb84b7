import type { z } from 'zod';
import type { InputSchema, Tool, ToolDefinition } from './types.js';

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
  TInputSchema extends InputSchema,
  TOutputSchema extends z.ZodType | undefined = undefined,
>(definition: ToolDefinition<TInputSchema, TOutputSchema>): Tool<TInputSchema, TOutputSchema> {
  return { ...definition, kind: 'gateway.tool' };
}
