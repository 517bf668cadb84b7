import * as z from 'zod';

/** The parts of an OpenID Provider's discovery document (OIDC Discovery 1.0 section 3) the gateway uses. */
export const oidcMetadataSchema = z.object({
  issuer: z.url(),
  authorization_endpoint: z.url(),
  token_endpoint: z.url().optional(),
  userinfo_endpoint: z.url().optional(),
  jwks_uri: z.url().optional(),
  id_token_signing_alg_values_supported: z.array(z.string()).optional(),
  token_endpoint_auth_methods_supported: z.array(z.string()).optional(),
  /** RFC 9207: the provider puts `iss` on every authorization response. */
  authorization_response_iss_parameter_supported: z.boolean().optional(),
});

/** An OpenID Provider's discovery document, as far as the gateway reads it. */
export type OidcMetadata = z.infer<typeof oidcMetadataSchema>;

/**
 * Discovery did not give a usable document; the message says why and names no secret.
 * `unreachable`: the provider could not be reached or answered with an outage status (5xx, 429),
 * as opposed to answering with something unusable.
 */
export class DiscoveryError extends Error {
  override readonly name = 'DiscoveryError';
  constructor(
    message: string,
    readonly unreachable = false,
  ) {
    super(message);
  }
}

/** Options of {@link createDiscovery}. */
export interface DiscoveryOptions {
  /** The issuer identifier (`<P>_ISSUER_URL`); the document must name the same issuer. */
  issuer: string;
  /**
   * Attempts per lookup when the provider cannot be connected to at all (default 3): a blip
   * while it restarts should not fail a sign-in. An HTTP answer (a 503 included) is not retried
   * within a lookup: the next lookup asks again.
   */
  attempts?: number;
  /** Wait before the second attempt, doubled for each further one (default 250 ms). */
  backoffMs?: number;
  /** How long one attempt may take (default 5 s). */
  timeoutMs?: number;
}

/** A provider's discovery document, fetched on first use. */
export interface Discovery {
  /** The discovery document's URL. */
  readonly url: string;
  /**
   * The document. A success is kept for the life of the process; a failure is not: the next call
   * tries again, so a provider that was down at startup is used as soon as it is back.
   *
   * @throws DiscoveryError when every attempt failed.
   */
  metadata(): Promise<OidcMetadata>;
}

/** Issuer identifiers compare exactly, except for one trailing slash people add or leave out. */
export function sameIssuer(a: string, b: string): boolean {
  return a.replace(/\/$/, '') === b.replace(/\/$/, '');
}

/**
 * Discovery for one issuer: `<issuer>/.well-known/openid-configuration`, retried with backoff
 * while the provider cannot be connected to, concurrent callers sharing one lookup (one request
 * for any number of callers while it answers 503), never remembered as a failure.
 *
 * @example
 * const discovery = createDiscovery({ issuer: 'https://idp.example.com/realms/main' });
 * const { token_endpoint } = await discovery.metadata();
 */
export function createDiscovery(options: DiscoveryOptions): Discovery {
  const url = `${options.issuer.replace(/\/+$/, '')}/.well-known/openid-configuration`;
  const attempts = options.attempts ?? 3;
  const backoffMs = options.backoffMs ?? 250;
  const timeoutMs = options.timeoutMs ?? 5_000;
  let found: OidcMetadata | undefined;
  let pending: Promise<OidcMetadata> | undefined;

  async function fetchOnce(): Promise<OidcMetadata> {
    let response: Response;
    try {
      response = await fetch(url, {
        headers: { accept: 'application/json' },
        redirect: 'error',
        signal: AbortSignal.timeout(timeoutMs),
      });
    } catch (error) {
      throw new DiscoveryError(`${url} could not be reached (${describe(error)})`, true);
    }
    if (!response.ok) {
      await response.body?.cancel().catch(() => undefined);
      throw new Answered(
        `${url} answered ${response.status}`,
        response.status >= 500 || response.status === 429,
      );
    }
    const parsed = oidcMetadataSchema.safeParse(await response.json().catch(() => undefined));
    if (!parsed.success) throw new Answered(`${url} is not an OpenID discovery document`);
    // OIDC Discovery 4.3: a document naming another issuer must not be used (mix-up defence).
    if (!sameIssuer(parsed.data.issuer, options.issuer)) {
      throw new Answered(
        `${url} names issuer ${parsed.data.issuer}, not the configured ${options.issuer}`,
      );
    }
    return parsed.data;
  }

  async function lookup(): Promise<OidcMetadata> {
    let last: unknown;
    for (let attempt = 0; attempt < attempts; attempt += 1) {
      if (attempt > 0) await sleep(backoffMs * 2 ** (attempt - 1));
      try {
        return await fetchOnce();
      } catch (error) {
        last = error;
        if (error instanceof Answered) break;
      }
    }
    if (last instanceof Answered) throw new DiscoveryError(last.message, last.unreachable);
    throw last instanceof DiscoveryError ? last : new DiscoveryError(describe(last), true);
  }

  return {
    url,
    metadata() {
      if (found !== undefined) return Promise.resolve(found);
      pending ??= lookup().then(
        (metadata) => {
          found = metadata;
          pending = undefined;
          return metadata;
        },
        (error: unknown) => {
          pending = undefined;
          throw error;
        },
      );
      return pending;
    },
  };
}

/** The provider answered (not retried within a lookup). */
class Answered extends DiscoveryError {}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

function describe(error: unknown): string {
  if (error instanceof Error) {
    const cause = error.cause instanceof Error ? `: ${error.cause.message}` : '';
    return `${error.message}${cause}`;
  }
  return String(error);
}
