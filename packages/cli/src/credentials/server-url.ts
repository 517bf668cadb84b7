import { CliError } from '../cli-error.js';

/** The gateway a command talks to when nothing says otherwise: what `gateway dev` serves. */
export const DEFAULT_SERVER_URL = 'http://127.0.0.1:8787';

/**
 * `raw` as the canonical base URL credentials are keyed by: scheme, host, port and any path
 * prefix, without a trailing slash, query or fragment.
 *
 * @throws CliError (exit 2) when it is not an http(s) URL, naming where it came from.
 * @example
 * normalizeServerUrl('https://Gateway.example.com/', '--url'); // 'https://gateway.example.com'
 */
export function normalizeServerUrl(raw: string, from: string): string {
  let url: URL;
  try {
    url = new URL(raw.trim());
  } catch {
    throw new CliError(`${from} is not a URL: ${raw}; expected e.g. https://gateway.example.com`, {
      exitCode: 2,
    });
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new CliError(`${from} must be an http:// or https:// URL, not ${raw}`, { exitCode: 2 });
  }
  return `${url.origin}${url.pathname.replace(/\/+$/, '')}`;
}
