import { ToolError } from '@gateway/sdk';
import { z } from 'zod';

/** The GitHub REST API used when neither the factory option nor `GITHUB_API_URL` is set. */
export const DEFAULT_GITHUB_API_URL = 'https://api.github.com';

/** Options of `createGitHubApi()`. */
export interface GitHubApiOptions {
  /**
   * Base URL of the GitHub REST API, e.g. `https://github.example.com/api/v3` for GitHub
   * Enterprise Server. Default: `GITHUB_API_URL`, else `https://api.github.com`.
   */
  baseUrl?: string;
}

/** One request to the GitHub REST API. */
export interface GitHubRequest<TSchema extends z.ZodType> {
  method: 'GET' | 'POST';
  path: string;
  query?: Record<string, string>;
  /** JSON body of a POST. */
  body?: unknown;
  /** The OAuth token vended by `ctx.auth.getToken('github')`. */
  token: string;
  signal: AbortSignal;
  /** Parses the response body; a body that does not match is reported as a ToolError. */
  schema: TSchema;
  /** The message for a 404, which GitHub also sends for private resources the token cannot see. */
  notFound: string;
}

/** A small client for the GitHub REST API. */
export interface GitHubApi {
  request<TSchema extends z.ZodType>(request: GitHubRequest<TSchema>): Promise<z.output<TSchema>>;
}

/**
 * Creates the GitHub REST client. The base URL is read on every request, so `GITHUB_API_URL` set
 * after import still applies; an explicit `baseUrl` beats the environment.
 *
 * @example
 * const api = createGitHubApi({ baseUrl: 'http://127.0.0.1:8080' });
 */
export function createGitHubApi(options: GitHubApiOptions = {}): GitHubApi {
  const baseUrl = () =>
    (options.baseUrl ?? process.env.GITHUB_API_URL ?? DEFAULT_GITHUB_API_URL).replace(/\/+$/, '');

  return {
    async request({ method, path, query = {}, body, token, signal, schema, notFound }) {
      const url = new URL(`${baseUrl()}${path}`);
      for (const [name, value] of Object.entries(query)) url.searchParams.set(name, value);

      let response: Response;
      try {
        response = await fetch(url, {
          method,
          headers: {
            authorization: `Bearer ${token}`,
            accept: 'application/vnd.github+json',
            'x-github-api-version': '2022-11-28',
            // GitHub rejects requests without a User-Agent.
            'user-agent': 'gateway-examples-github',
            ...(body === undefined ? {} : { 'content-type': 'application/json' }),
          },
          body: body === undefined ? undefined : JSON.stringify(body),
          signal,
        });
      } catch (error) {
        if (signal.aborted) throw error;
        throw new ToolError(`Could not reach GitHub at ${url.origin}.`, { cause: error });
      }

      if (!response.ok) throw await toToolError(response, notFound);

      const parsed = schema.safeParse(await response.json().catch(() => undefined));
      if (!parsed.success) {
        throw new ToolError('GitHub sent a response this tool does not understand.', {
          cause: parsed.error,
        });
      }
      return parsed.data;
    },
  };
}

async function toToolError(response: Response, notFound: string): Promise<ToolError> {
  const detail = await githubMessage(response);
  switch (response.status) {
    case 401:
      return new ToolError(
        'GitHub rejected the token; reconnect it with `gateway connect github`.',
      );
    case 403:
    case 429:
      if (response.headers.get('x-ratelimit-remaining') === '0' || response.status === 429) {
        return new ToolError('GitHub’s rate limit is used up; try again in a few minutes.');
      }
      return new ToolError(
        `GitHub refused the request${detail}. The connection may lack the "repo" scope or access to this repository.`,
      );
    case 404:
      return new ToolError(notFound);
    case 410:
      return new ToolError(`GitHub says this resource is gone${detail}.`);
    case 422:
      return new ToolError(`GitHub did not accept the request${detail}.`);
    default:
      return new ToolError(`GitHub answered HTTP ${response.status}${detail}.`);
  }
}

const githubError = z.object({
  message: z.string(),
  errors: z
    .array(z.object({ message: z.string().optional(), code: z.string().optional() }))
    .optional(),
});

/** GitHub's own explanation (`message` and validation `errors`), as `: <text>`, or `''`. */
async function githubMessage(response: Response): Promise<string> {
  const parsed = githubError.safeParse(await response.json().catch(() => undefined));
  if (!parsed.success) return '';
  const details = (parsed.data.errors ?? [])
    .map((error) => error.message ?? error.code)
    .filter((text) => text !== undefined);
  return `: ${[parsed.data.message, ...details].join('; ')}`;
}
