import { type JSONRPCMessage, PROTOCOL_VERSION_META_KEY } from '@modelcontextprotocol/client';

/**
 * Sets the 2026-07-28 headers of a request whose `_meta` envelope names a revision: the server
 * checks they agree with the body. A 2025 request has no envelope and gets none of them.
 */
export function mirrorEnvelope(message: JSONRPCMessage, headers: Record<string, string>): void {
  if (!('method' in message) || !('id' in message)) return;
  const params = message.params as Record<string, unknown> | undefined;
  const meta = params?._meta as Record<string, unknown> | undefined;
  const version = meta?.[PROTOCOL_VERSION_META_KEY];
  if (typeof version !== 'string') return;
  headers['mcp-protocol-version'] = version;
  headers['mcp-method'] = message.method;
  const name =
    message.method === 'tools/call' || message.method === 'prompts/get'
      ? params?.name
      : message.method === 'resources/read'
        ? params?.uri
        : undefined;
  if (typeof name === 'string') headers['mcp-name'] = headerValue(name);
}

/** A value as a header carries it: as it is when it is printable ASCII, else base64 (SEP-2243). */
function headerValue(value: string): string {
  const plain = value !== '' && value === value.trim() && /^[\t\x20-\x7e]*$/.test(value);
  return plain && !value.startsWith('=?base64?')
    ? value
    : `=?base64?${Buffer.from(value, 'utf8').toString('base64')}?=`;
}
