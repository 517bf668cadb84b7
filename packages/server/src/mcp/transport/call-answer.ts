import {
  type CallToolResult,
  type InputRequiredResult,
  isInputRequiredResult,
  SERVER_INFO_META_KEY,
} from '@modelcontextprotocol/server';
import { SERVER_INFO } from './create-server.js';

/** The `_meta` the gateway stamps on a result that has none, as JSON (it never changes). */
const SERVER_META_END = `,"resultType":"complete","_meta":${JSON.stringify({ [SERVER_INFO_META_KEY]: SERVER_INFO })}}`;

/**
 * The JSON text of the JSON-RPC answer `id` whose result is `result`, as the SDK's 2026-07-28
 * codec puts it on the wire: `resultType` (`complete` unless given), `content` (empty unless
 * given) and the server's identity in `_meta`. A tool's plain result (content, no `resultType`
 * and no `_meta`: what every forwarded upstream result is) is written with one `JSON.stringify`
 * of the result as it stands and the stamp's JSON, written once, after it; the answer's envelope
 * is written around it as text (issue 37: the copies of the result and of its `_meta`, and
 * stringifying the same identity on every call, cost ~4 k instructions a call). Any other result
 * is copied and stamped first ({@link encoded}). Either way the text is what `JSON.stringify`
 * of `{ result: encoded(result), jsonrpc: '2.0', id }` would give, members in the same order.
 */
export function callAnswerText(
  result: CallToolResult | InputRequiredResult,
  id: string | number,
): string {
  return `{"result":${resultText(result)},"jsonrpc":"2.0","id":${JSON.stringify(id)}}`;
}

function resultText(result: CallToolResult | InputRequiredResult): string {
  if (
    Array.isArray(result.content) &&
    result.resultType === undefined &&
    result._meta === undefined &&
    Object.getPrototypeOf(result) === Object.prototype &&
    !Object.hasOwn(result, 'toJSON')
  ) {
    // Ends with `}` and has a member before it: `content`, an array, is always written.
    const text = JSON.stringify(result);
    return `${text.slice(0, -1)}${SERVER_META_END}`;
  }
  return JSON.stringify(encoded(result));
}

/** The result as the SDK's 2026-07-28 codec puts it on the wire. */
function encoded(result: CallToolResult | InputRequiredResult): object {
  const typed = isInputRequiredResult(result)
    ? result
    : { ...result, content: result.content ?? [], resultType: result.resultType ?? 'complete' };
  const meta = typed._meta;
  if (meta?.[SERVER_INFO_META_KEY] !== undefined) return typed;
  return { ...typed, _meta: { ...meta, [SERVER_INFO_META_KEY]: SERVER_INFO } };
}
