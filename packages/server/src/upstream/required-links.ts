import { ProtocolError, ProtocolErrorCode } from '@modelcontextprotocol/client';
import { isRecord } from '../json/is-record.js';
import type { UrlElicitation } from '../mcp/call/elicitation.js';
import { CallFailure, LinksRequired, type SourceCall } from '../tool-sources/index.js';
import { checkedLink } from './relays.js';

/** The most links one "URL elicitation required" error may ask the user to open. */
const MAX_LINKS = 4;

/**
 * The links of an upstream's "URL elicitation required" error (`-32042`: the call cannot go on
 * until the user has opened them), each checked as a relayed URL elicitation is; why not, when
 * one is unfit (a sentence); undefined for any other error.
 */
export function requiredLinks(error: unknown): UrlElicitation[] | string | undefined {
  if (!(error instanceof ProtocolError)) return undefined;
  if (error.code !== ProtocolErrorCode.UrlElicitationRequired) return undefined;
  const asked = isRecord(error.data) ? error.data.elicitations : undefined;
  if (!Array.isArray(asked) || asked.length === 0 || asked.length > MAX_LINKS) {
    return `It names no links, or more than ${MAX_LINKS}`;
  }
  const links: UrlElicitation[] = [];
  for (const item of asked) {
    if (!isRecord(item) || item.mode !== 'url') return 'It asks for something other than a link';
    const link = checkedLink(item);
    if (typeof link === 'string') return link;
    links.push(link);
  }
  return links;
}

/**
 * What a call does about an upstream's required links (see {@link requiredLinks}), the upstream's
 * session already given back:
 *
 * - a 2025 session client that takes links gets them as they came ({@link LinksRequired}), and
 *   calls again once the user is done, as the MCP spec has it;
 * - any other client's user is asked to open each (`call.elicitUrl`: a 2026-07-28 client that
 *   takes links in `input_required`, which has replaced the error there, anyone else in the
 *   approvals list), and once all are accepted the call is sent once more;
 * - the same error again after that, a declined link, or unfit links end the call.
 *
 * @returns when the call should be sent to the upstream again.
 * @throws LinksRequired, or CallFailure saying what the user can do.
 */
export async function settleRequiredLinks(
  required: UrlElicitation[] | string,
  call: SourceCall,
  sourceId: string,
  askedBefore: boolean,
): Promise<void> {
  const label = `The upstream MCP server of source "${sourceId}"`;
  if (typeof required === 'string') {
    throw new CallFailure(
      `${label} needs a step in the browser first, in a form the gateway does not relay. ${required}. Tell whoever runs that server.`,
      'URL elicitation refused',
    );
  }
  const steps = required.map((link) => `${link.message} (${link.url})`).join('; ');
  if (call.takesLinks) {
    throw new LinksRequired(
      `${label} needs you to open ${required.length === 1 ? 'a link' : 'links'} first: ${steps}. Call the tool again once done.`,
      required,
    );
  }
  if (askedBefore) {
    throw new CallFailure(
      `${label} still needs a step in the browser: ${steps}. Finish it, then call the tool again.`,
      'URL elicitation still required',
    );
  }
  for (const link of required) {
    if ((await call.elicitUrl(link)) !== 'accept') {
      throw new CallFailure(
        `${label} needs a step in the browser first (${link.message}), and it was declined, so nothing was done.`,
        'URL elicitation declined',
        'denied',
      );
    }
  }
}
