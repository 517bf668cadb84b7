import { ToolError } from '@gateway/sdk';
import { z } from 'zod';

/** The real Google Cloud hosts, used when neither `baseUrl` nor `GOOGLE_CLOUD_API_URL` is set. */
export const GOOGLE_CLOUD_HOSTS = {
  resourceManager: 'https://cloudresourcemanager.googleapis.com',
  storage: 'https://storage.googleapis.com',
} as const;

/** Which Google Cloud API a request goes to. */
export type GoogleCloudService = keyof typeof GOOGLE_CLOUD_HOSTS;

const SERVICES: Record<GoogleCloudService, { title: string; name: string }> = {
  resourceManager: {
    title: 'Cloud Resource Manager API',
    name: 'cloudresourcemanager.googleapis.com',
  },
  storage: { title: 'Cloud Storage JSON API', name: 'storage-api.googleapis.com' },
};

/** Options of `createGoogleCloudApi()`. */
export interface GoogleCloudApiOptions {
  /**
   * One base URL serving every API the tools use (a proxy, or a fake upstream in tests).
   * Default: `GOOGLE_CLOUD_API_URL`, else each API's real host.
   */
  baseUrl?: string;
}

/** One GET request to a Google Cloud REST API. */
export interface GoogleCloudRequest<TSchema extends z.ZodType> {
  service: GoogleCloudService;
  path: string;
  query: Record<string, string | undefined>;
  /** The OAuth access token vended by `ctx.auth.getToken('gcp')`. */
  token: string;
  signal: AbortSignal;
  /** Parses the response body; a body that does not match is reported as a ToolError. */
  schema: TSchema;
  /** The message for a 404. */
  notFound: string;
}

/** A small client for Google Cloud's REST APIs. */
export interface GoogleCloudApi {
  get<TSchema extends z.ZodType>(request: GoogleCloudRequest<TSchema>): Promise<z.output<TSchema>>;
}

/**
 * Creates the Google Cloud REST client. The base URL is read on every request, so
 * `GOOGLE_CLOUD_API_URL` set after import still applies; an explicit `baseUrl` beats it.
 *
 * @example
 * const api = createGoogleCloudApi({ baseUrl: 'http://127.0.0.1:8080' });
 */
export function createGoogleCloudApi(options: GoogleCloudApiOptions = {}): GoogleCloudApi {
  const baseUrl = (service: GoogleCloudService) =>
    (options.baseUrl ?? process.env.GOOGLE_CLOUD_API_URL ?? GOOGLE_CLOUD_HOSTS[service]).replace(
      /\/+$/,
      '',
    );

  return {
    async get({ service, path, query, token, signal, schema, notFound }) {
      const url = new URL(`${baseUrl(service)}${path}`);
      for (const [name, value] of Object.entries(query)) {
        if (value !== undefined) url.searchParams.set(name, value);
      }

      let response: Response;
      try {
        response = await fetch(url, {
          headers: { authorization: `Bearer ${token}`, accept: 'application/json' },
          signal,
        });
      } catch (error) {
        if (signal.aborted) throw error;
        throw new ToolError(`Could not reach Google Cloud at ${url.origin}.`, { cause: error });
      }

      if (!response.ok) throw await toToolError(response, service, notFound);

      const parsed = schema.safeParse(await response.json().catch(() => undefined));
      if (!parsed.success) {
        throw new ToolError('Google Cloud sent a response this tool does not understand.', {
          cause: parsed.error,
        });
      }
      return parsed.data;
    },
  };
}

// Google's error body. Newer APIs carry google.rpc details (reason SERVICE_DISABLED); the Cloud
// Storage JSON API carries legacy `errors` (reason accessNotConfigured).
const googleError = z.object({
  error: z.object({
    message: z.string().default(''),
    details: z
      .array(
        z.object({
          reason: z.string().optional(),
          metadata: z.record(z.string(), z.string()).optional(),
        }),
      )
      .optional(),
    errors: z.array(z.object({ reason: z.string().optional() })).optional(),
  }),
});

// Matched narrowly: other 403s also say "disabled" (e.g. "The billing account ... is disabled").
const DISABLED_MESSAGE =
  /has not been used in project \S+ before or it is disabled|\bAPI not enabled\b/i;

async function toToolError(
  response: Response,
  service: GoogleCloudService,
  notFound: string,
): Promise<ToolError> {
  const parsed = googleError.safeParse(await response.json().catch(() => undefined));
  const error = parsed.success ? parsed.data.error : undefined;
  const detail = error?.message ? `: ${error.message}` : '';

  if (response.status === 403 && error !== undefined && isServiceDisabled(error)) {
    return serviceDisabled(service, error);
  }
  switch (response.status) {
    case 401:
      return new ToolError(
        'Google rejected the access token; sign in with Google Cloud again or run `gateway connect gcp`.',
      );
    case 403:
      return new ToolError(
        `Google Cloud denied access${detail}. Your Google account needs a role that can read this resource.`,
      );
    case 404:
      return new ToolError(notFound);
    case 429:
      return new ToolError(`Google Cloud’s quota is used up${detail}; try again later.`);
    default:
      return new ToolError(`Google Cloud answered HTTP ${response.status}${detail}.`);
  }
}

type GoogleErrorBody = z.output<typeof googleError>['error'];

function isServiceDisabled(error: GoogleErrorBody): boolean {
  return (
    (error.details ?? []).some((detail) => detail.reason === 'SERVICE_DISABLED') ||
    (error.errors ?? []).some((item) => item.reason === 'accessNotConfigured') ||
    DISABLED_MESSAGE.test(error.message)
  );
}

function serviceDisabled(service: GoogleCloudService, error: GoogleErrorBody): ToolError {
  const info = (error.details ?? []).find((detail) => detail.reason === 'SERVICE_DISABLED');
  const { title, name } = SERVICES[service];
  const api = info?.metadata?.service ?? name;
  const project = info?.metadata?.consumer ? ` (${info.metadata.consumer})` : '';
  const where = info?.metadata?.activationUrl ? ` at ${info.metadata.activationUrl}` : '';
  return new ToolError(
    `The ${title} (${api}) is not enabled in the Google Cloud project that owns the gateway's ` +
      `OAuth client${project}. Ask an admin of that project to enable it${where}, wait a few ` +
      'minutes, then try again. Enabling it only in the project you are querying is not enough.',
  );
}
