import { z } from 'zod';

/** Hosts a CLI may listen on for the redirect (RFC 8252 loopback redirection). */
const LOOPBACK_HOSTS = new Set(['127.0.0.1', 'localhost']);

/**
 * `uri` as a URL when it is a loopback redirect the CLI may use: `http://127.0.0.1:<port>/callback`
 * or `http://localhost:<port>/callback`, any port, nothing else (no credentials, query or
 * fragment). Undefined otherwise: the server never redirects a code anywhere else.
 *
 * @example
 * loopbackRedirect('http://127.0.0.1:53121/callback'); // URL
 * loopbackRedirect('https://evil.example/callback'); // undefined
 */
export function loopbackRedirect(uri: string): URL | undefined {
  let url: URL;
  try {
    url = new URL(uri);
  } catch {
    return undefined;
  }
  const ok =
    url.protocol === 'http:' &&
    LOOPBACK_HOSTS.has(url.hostname) &&
    url.port !== '' &&
    url.pathname === '/callback' &&
    url.username === '' &&
    url.password === '' &&
    url.search === '' &&
    url.hash === '' &&
    // `new URL` normalises; anything it had to rewrite is not what the CLI sent.
    url.href === uri;
  return ok ? url : undefined;
}

/** `redirect` with `params` added to its query. */
export function withParams(redirect: URL, params: Record<string, string>): string {
  const url = new URL(redirect);
  for (const [key, value] of Object.entries(params)) url.searchParams.set(key, value);
  return url.toString();
}

/**
 * What every CLI browser page takes from the CLI: where its loopback listener waits
 * ({@link loopbackRedirect} checks it before anything is sent there) and the CLI's `state`.
 */
export const loopbackRequest = z.object({
  redirect_uri: z.string().max(200),
  state: z.string().min(8).max(500),
});
