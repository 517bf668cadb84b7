import { html, raw } from 'hono/html';
import type { HtmlEscapedString } from 'hono/utils/html';

/** A fragment of escaped HTML (hono's `html` template result). */
export type Html = HtmlEscapedString | Promise<HtmlEscapedString>;

export { html, raw };
