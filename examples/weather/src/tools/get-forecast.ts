import { defineTool } from '@gateway/sdk';
import { z } from 'zod';
import type { WeatherApi } from '../api.js';

const upstreamForecast = z.object({
  city: z.string(),
  daily: z.array(
    z.object({
      date: z.string(),
      summary: z.string(),
      high_c: z.number(),
      low_c: z.number(),
      precipitation_chance: z.number(),
    }),
  ),
});

/** `weather.forecast.get`: the daily forecast for a city. */
export function getForecastTool(api: WeatherApi) {
  return defineTool({
    path: 'weather.forecast.get',
    name: 'Get Forecast',
    description:
      'Daily weather forecast for a city: summary, high and low temperature in °C and chance of ' +
      'precipitation, starting today. Read-only.',
    inputSchema: z.object({
      city: z
        .string()
        .trim()
        .min(1)
        .max(100)
        .describe('City name, optionally with a country, e.g. "Oslo" or "Portland, US".'),
      days: z
        .number()
        .int()
        .min(1)
        .max(7)
        .default(3)
        .describe('How many days to forecast, 1 to 7, starting today. Default 3.'),
    }),
    outputSchema: z.object({
      city: z.string().describe('The city as the weather service resolved it.'),
      daily: z.array(
        z.object({
          date: z.string().describe('Day, as YYYY-MM-DD in the city’s time zone.'),
          summary: z.string(),
          highC: z.number().describe('Highest temperature, °C.'),
          lowC: z.number().describe('Lowest temperature, °C.'),
          precipitationChance: z
            .number()
            .min(0)
            .max(1)
            .describe('Chance of precipitation, 0 to 1.'),
        }),
      ),
    }),
    authProvider: 'weather',
    async handler(ctx, { city, days }, { signal }) {
      const token = await ctx.auth.getToken('weather');
      ctx.logger.info('Fetching forecast', { city, days });
      const forecast = await api.get({
        path: '/v1/forecast',
        query: { city, days: String(days) },
        token,
        signal,
        schema: upstreamForecast,
        notFound: `The weather service does not know the city "${city}". Check the spelling or add a country.`,
      });
      return {
        city: forecast.city,
        daily: forecast.daily.map((day) => ({
          date: day.date,
          summary: day.summary,
          highC: day.high_c,
          lowC: day.low_c,
          precipitationChance: day.precipitation_chance,
        })),
      };
    },
  });
}
