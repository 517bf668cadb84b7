import { randomBytes, scrypt, timingSafeEqual } from 'node:crypto';
import type { PasswordHasher } from '../../src/auth/index.js';
import { type GatewayInternals, openGateway, type ServedGateway } from '../../src/gateway.js';
import type { GatewayOptions } from '../../src/gateway-settings.js';
import {
  captureLogLine,
  rememberBearer,
  rememberSecret,
  rememberSecretFieldsOfJson,
  rememberSessionCookies,
} from './known-secrets.js';

/** Environment variables whose values are secrets, by name. */
const SECRET_VARIABLE = /secret|api_key|token|password/i;
/** Bodies larger than the gateway accepts are not read: the gateway refuses them unread too. */
const MAX_WATCHED_BODY = 1024 * 1024;

/**
 * Creates a gateway for a test whose every secret the leak check of `leak-check.setup.ts` knows
 * and whose every log line it greps (see `known-secrets.ts`): the auth and service secrets and
 * secret-named environment variables; every secret it encrypts or decrypts; the bearer values,
 * secret-named body fields and session cookies of every request it answers, in process or over
 * a socket, and the `token`, `key` and `secret` fields of its answers. Its log lines go to the
 * capture (and to `options.logSink`, if given), not to stdout.
 *
 * @example
 * const gateway = await createLeakCheckedGateway({ databaseUrl: ':memory:', authSecret, port: 0 });
 * onTestFinished(() => gateway.stop());
 */
export async function createLeakCheckedGateway(
  options: GatewayOptions = {},
  internals: Omit<GatewayInternals, 'passwordHasher'> = {},
): Promise<ServedGateway> {
  rememberSecret(options.authSecret);
  for (const previous of options.previousAuthSecrets ?? []) rememberSecret(previous);
  rememberSecret(options.serviceApiSecret);
  for (const [name, value] of Object.entries(options.env ?? process.env)) {
    if (SECRET_VARIABLE.test(name)) rememberSecret(value);
  }
  const gateway = await openGateway(
    {
      ...options,
      logSink: {
        write: (line) => {
          captureLogLine(line);
          options.logSink?.write(line);
        },
      },
    },
    { ...internals, passwordHasher: testPasswordHasher },
  );
  watchSecretBox(gateway);
  watchRequests(gateway);
  return gateway;
}

/**
 * scrypt at a cost the tests can afford: better-auth's own (N=16384, r=16) takes ~0.25 s of CPU
 * per sign-up and per sign-in, and the tests sign up and in hundreds of times. A hash in
 * better-auth's format (from a gateway process of a system test, on a shared database) is still
 * checked with better-auth's own function.
 */
const testPasswordHasher: PasswordHasher = {
  async hash(password) {
    const salt = randomBytes(16).toString('hex');
    return `test:${salt}:${(await cheapScrypt(password, salt)).toString('hex')}`;
  },
  async verify({ hash, password }) {
    const [kind, salt, key] = hash.split(':');
    if (kind !== 'test' || salt === undefined || key === undefined) {
      const { verifyPassword } = await import('better-auth/crypto');
      return verifyPassword({ hash, password });
    }
    return timingSafeEqual(await cheapScrypt(password, salt), Buffer.from(key, 'hex'));
  },
};

function cheapScrypt(password: string, salt: string): Promise<Buffer> {
  return new Promise((done, fail) =>
    scrypt(password.normalize('NFKC'), salt, 32, { N: 1024, r: 8, p: 1 }, (error, key) =>
      error ? fail(error) : done(key),
    ),
  );
}

/** Remembers every plaintext the gateway encrypts for storage or decrypts from it. */
function watchSecretBox(gateway: ServedGateway): void {
  const box = gateway.services.secrets;
  const { encrypt, decrypt, open } = box;
  box.encrypt = (plain) => {
    rememberSecret(plain);
    return encrypt.call(box, plain);
  };
  box.decrypt = (stored) => {
    const plain = decrypt.call(box, stored);
    rememberSecret(plain);
    return plain;
  };
  box.open = (stored) => {
    const opened = open.call(box, stored);
    rememberSecret(opened.plain);
    return opened;
  };
}

/**
 * Remembers the secrets of every request through `app.fetch`, which serves both `gateway.fetch`
 * and the listening socket (`start()` reads it when called).
 */
function watchRequests(gateway: ServedGateway): void {
  const { app } = gateway;
  const inner = app.fetch;
  app.fetch = async (request, ...rest) => {
    rememberBearer(request.headers.get('authorization'));
    const length = Number(request.headers.get('content-length') ?? 0);
    const hasBody = request.method !== 'GET' && request.method !== 'HEAD';
    if (hasBody && length <= MAX_WATCHED_BODY) {
      // Any content type: a secret sent as text/plain must still be recognised if it leaks.
      rememberSecretFieldsOfJson(await bodyOf(request));
    }
    const response = await inner(request, ...rest);
    rememberSessionCookies(response.headers);
    if (response.ok && /json/i.test(response.headers.get('content-type') ?? '')) {
      rememberSecretFieldsOfJson(await response.clone().text());
    }
    return response;
  };
}

/**
 * The text of a copy of `request`'s body, or `''` once the client hangs up: a copy of a body cut
 * off mid-way never settles, which would hold the request before the gateway ever sees it.
 */
function bodyOf(request: Request): Promise<string> {
  const { signal } = request;
  const hungUp = new Promise<string>((resolve) => {
    if (signal.aborted) resolve('');
    else signal.addEventListener('abort', () => resolve(''), { once: true });
  });
  return Promise.race([
    request
      .clone()
      .text()
      .catch(() => ''),
    hungUp,
  ]);
}
