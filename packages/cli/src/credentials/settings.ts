import { z } from 'zod';
import { readJsonFile, writePrivateJsonFile } from './json-file.js';
import { settingsFile } from './paths.js';

type Env = Readonly<Record<string, string | undefined>>;

const settingsSchema = z.object({ url: z.string().optional() }).catch({});

/** The gateway the last `gateway login` signed in to, from the settings file. */
export async function readDefaultUrl(env: Env): Promise<string | undefined> {
  return settingsSchema.parse(await readJsonFile(settingsFile(env))).url;
}

/** Remembers `url` as the gateway later commands talk to when neither `--url` nor `GATEWAY_URL` says. */
export async function writeDefaultUrl(env: Env, url: string | undefined): Promise<void> {
  const path = settingsFile(env);
  const current = settingsSchema.parse(await readJsonFile(path));
  await writePrivateJsonFile(path, { ...current, url });
}
