import { deleteCookie, getCookie, setCookie } from 'hono/cookie';
import { z } from 'zod';
import type { AppContext } from '../http/app-env.js';

const FLASH_COOKIE = 'gw_flash';

const flashSchema = z.object({
  kind: z.enum(['ok', 'error', 'info']),
  text: z.string().max(500),
});

/** A one-time message shown on the next page, after a form post redirects. */
export type Flash = z.infer<typeof flashSchema>;

/** Keeps `flash` for the next page this browser loads (a cookie that lives a minute). */
export function setFlash(c: AppContext, flash: Flash): void {
  const value = Buffer.from(JSON.stringify(flash), 'utf8').toString('base64url');
  setCookie(c, FLASH_COOKIE, value, {
    path: '/',
    httpOnly: true,
    sameSite: 'Lax',
    secure: new URL(c.req.url).protocol === 'https:',
    maxAge: 60,
  });
}

/** The pending message, if any, removing it so it shows once. */
export function takeFlash(c: AppContext): Flash | undefined {
  const value = getCookie(c, FLASH_COOKIE);
  if (value === undefined) return undefined;
  deleteCookie(c, FLASH_COOKIE, { path: '/' });
  try {
    const parsed = flashSchema.safeParse(
      JSON.parse(Buffer.from(value, 'base64url').toString('utf8')),
    );
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}
