import { randomBytes } from 'node:crypto';
import { chmod, mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';

/** The secrets a local dev gateway runs with. */
export interface DevSecrets {
  authSecret: string;
  serviceApiSecret: string;
}

const fileSchema = z.object({
  authSecret: z.string().min(32),
  serviceApiSecret: z.string().min(32),
});
const FILE = 'dev-secrets.json';

/**
 * The dev gateway's secrets: `AUTH_SECRET` and `SERVICE_API_SECRET` from the environment when
 * set, else generated once and kept in `<dataDir>/dev-secrets.json` (mode 0600). Keeping them
 * matters: the auth secret is the key of every connection stored in the dev database.
 */
export async function loadDevSecrets(
  dataDir: string,
  env: Readonly<Record<string, string | undefined>>,
): Promise<DevSecrets> {
  await mkdir(dataDir, { recursive: true });
  const file = join(dataDir, FILE);
  let stored: DevSecrets | undefined;
  try {
    stored = fileSchema.parse(JSON.parse(await readFile(file, 'utf8')));
  } catch {
    stored = undefined;
  }
  if (stored === undefined) {
    stored = {
      authSecret: randomBytes(32).toString('base64url'),
      serviceApiSecret: randomBytes(32).toString('base64url'),
    };
    await writeFile(file, `${JSON.stringify(stored, null, 2)}\n`, { mode: 0o600 });
    await chmod(file, 0o600);
  }
  return {
    authSecret: env.AUTH_SECRET?.trim() || stored.authSecret,
    serviceApiSecret: env.SERVICE_API_SECRET?.trim() || stored.serviceApiSecret,
  };
}
