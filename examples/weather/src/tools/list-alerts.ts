import { defineTool } from '@gateway/sdk';
import { z } from 'zod';
import type { WeatherApi } from '../api.js';

const upstreamAlerts = z.object({
  city: z.string(),
  alerts: z.array(
    z.object({
      id: z.string(),
      severity: z.string(),
      headline: z.string(),
      starts_at: z.string(),
      ends_at: z.string().nullable(),
    }),
  ),
});

/** `weather.alerts.list`: the active severe-weather alerts for a city. */
export function listAlertsTool(api: WeatherApi) {
  return defineTool({
    path: 'weather.alerts.list',
    name: 'List Weather Alerts',
    description:
      'Active severe-weather alerts (storms, floods, heat and the like) for a city, as issued by ' +
      'the national weather services. An empty list means no alert is in force. Read-only.',
    inputSchema: z.object({
      city: z
        .string()
        .trim()
        .min(1)
        .max(100)
        .describe('City name, optionally with a country, e.g. "Oslo" or "Portland, US".'),
    }),
    outputSchema: z.object({
      city: z.string().describe('The city as the weather service resolved it.'),
      alerts: z.array(
        z.object({
          id: z.string(),
          severity: z.string().describe('minor, moderate, severe or extreme.'),
          headline: z.string(),
          startsAt: z.string().describe('ISO 8601 start time.'),
          endsAt: z.string().nullable().describe('ISO 8601 end time; null when open-ended.'),
        }),
      ),
    }),
    authProvider: 'weather',
    async handler(ctx, { city }, { signal }) {
      const token = await ctx.auth.getToken('weather');
      ctx.logger.info('Listing weather alerts', { city });
      const result = await api.get({
        path: '/v1/alerts',
        query: { city },
        token,
        signal,
        schema: upstreamAlerts,
        notFound: `The weather service does not know the city "${city}". Check the spelling or add a country.`,
      });
      return {
        city: result.city,
        alerts: result.alerts.map((alert) => ({
          id: alert.id,
          severity: alert.severity,
          headline: alert.headline,
          startsAt: alert.starts_at,
          endsAt: alert.ends_at,
        })),
      };
    },
  });
}
