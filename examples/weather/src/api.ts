import { ToolError } from '@gateway/sdk';
import type { z } from 'zod';

/** The weather service used when neither the factory option nor `WEATHER_API_URL` is set. */
export const DEFAULT_WEATHER_API_URL = 'https://api.weather.example';

/** Options of `createWeatherApi()`. */
export interface WeatherApiOptions {
  /** Base URL of the weather service. Default: `WEATHER_API_URL`, else the public service. */
  baseUrl?: string;
}

/** One GET request to the weather service. */
export interface WeatherRequest<TSchema extends z.ZodType> {
  path: string;
  query: Record<string, string>;
  /** The API key vended by `ctx.auth.getToken('weather')`. */
  token: string;
  signal: AbortSignal;
  /** Parses the response body; a body that does not match is reported as a ToolError. */
  schema: TSchema;
  /** The message for a 404, which the service sends for a city it does not know. */
  notFound: string;
}

/** A small client for the weather service's JSON API. */
export interface WeatherApi {
  get<TSchema extends z.ZodType>(request: WeatherRequest<TSchema>): Promise<z.output<TSchema>>;
}

/**
 * Creates the weather service client. The base URL is read on every request, so `WEATHER_API_URL`
 * set after import still applies; an explicit `baseUrl` beats the environment.
 *
 * @example
 * const api = createWeatherApi({ baseUrl: 'http://127.0.0.1:8080' });
 */
export function createWeatherApi(options: WeatherApiOptions = {}): WeatherApi {
  const baseUrl = () =>
    (options.baseUrl ?? process.env.WEATHER_API_URL ?? DEFAULT_WEATHER_API_URL).replace(/\/+$/, '');

  return {
    async get({ path, query, token, signal, schema, notFound }) {
      const url = new URL(`${baseUrl()}${path}`);
      for (const [name, value] of Object.entries(query)) url.searchParams.set(name, value);

      let response: Response;
      try {
        response = await fetch(url, {
          headers: { authorization: `Bearer ${token}`, accept: 'application/json' },
          signal,
        });
      } catch (error) {
        if (signal.aborted) throw error;
        throw new ToolError(`Could not reach the weather service at ${url.origin}.`, {
          cause: error,
        });
      }

      if (!response.ok) {
        await response.body?.cancel();
        if (response.status === 401) {
          throw new ToolError(
            'The weather service rejected the API key; reconnect it with `gateway connect weather`.',
          );
        }
        if (response.status === 404) throw new ToolError(notFound);
        throw new ToolError(`The weather service answered HTTP ${response.status}.`);
      }

      const parsed = schema.safeParse(await response.json().catch(() => undefined));
      if (!parsed.success) {
        throw new ToolError('The weather service sent a response this tool does not understand.', {
          cause: parsed.error,
        });
      }
      return parsed.data;
    },
  };
}
