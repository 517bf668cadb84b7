import { type Tool as McpTool, SERVER_INFO_META_KEY } from '@modelcontextprotocol/server';
import { META_TOOLS } from '../discovery/index.js';
import type { McpPrincipal } from '../principal.js';
import type { McpRuntime } from '../runtime.js';
import { toolsOf } from '../runtime.js';
import { SERVER_INFO } from './create-server.js';
import { plainModernRequestOf } from './direct-call.js';
import { isPlainLegacyRequest } from './session-http.js';
import type { Session } from './sessions/session.js';

const encoder = new TextEncoder();
const ANSWER_START = encoder.encode('{"result":{"tools":');
const ANSWER_END = '},"jsonrpc":"2.0","id":';
/**
 * What the SDK's 2026-07-28 codec adds to a `tools/list` result after `tools`: the result type, its
 * cache hint (the SDK's default: not to be reused, and only by this caller) and the server's identity.
 */
const MODERN_RESULT_END = `,"resultType":"complete","ttlMs":0,"cacheScope":"private","_meta":${JSON.stringify(
  { [SERVER_INFO_META_KEY]: SERVER_INFO },
)}`;
const LIST_PARAMS_KEYS = new Set(['_meta']);

/**
 * The `tools` array of a `tools/list` answer as UTF-8 JSON, once per list. Keyed by the list
 * itself: `ToolIndexCache` hands out one frozen list per role resolution and endpoint patterns and
 * a new one after any change that can alter it (a role's patterns, a tool registered or removed,
 * an upstream's tools refreshed, an endpoint's patterns), so the bytes are always those of the list
 * the caller may see now, and a list is only ever reached through a principal it was resolved for.
 */
const serialized = new WeakMap<readonly McpTool[], Uint8Array>();

/** `list` as the JSON of a `tools/list` answer's `tools`, encoded once while the list lives. */
export function listBytes(list: readonly McpTool[]): Uint8Array {
  let bytes = serialized.get(list);
  if (bytes === undefined) {
    bytes = encoder.encode(JSON.stringify(list));
    // Only shared lists are kept: they are frozen, so the bytes cannot go stale.
    if (Object.isFrozen(list)) serialized.set(list, bytes);
  }
  return bytes;
}

/**
 * Answers a 2025 session's `tools/list` without its transport, when the request is the plain one
 * every client sends: one request, no params but an empty object (no cursor, no `_meta`), an
 * `MCP-Protocol-Version` that is absent or a 2025 revision, and the `Accept` the transport insists
 * on. The answer is the JSON body the transport's answer becomes anyway (`whenGathered` sends a
 * lone answer as JSON), the same bytes as the SDK's, with the list serialized once per list
 * ({@link listBytes}) instead of on every call, and nothing stored in the session's event log: a
 * JSON answer has no event to resume. Undefined for anything else, or when the tools cannot be
 * resolved: the transport then answers as it always did, errors included.
 *
 * A list of 1,000 tools is ~450 KB: the SDK's way stringified it, encoded it, and (gathered into
 * one body) decoded, parsed and encoded it again, about 15 ms per list (bench/toolsets).
 */
export async function answerSessionList(
  runtime: McpRuntime,
  session: Session,
  request: Request,
  body: unknown,
): Promise<Response | undefined> {
  const id = plainListId(request, body);
  if (id === undefined || session.transport.sessionId !== session.id) return undefined;
  let list: readonly McpTool[];
  try {
    const { index, mode } = await toolsOf(runtime, session.principal);
    list = mode === 'discovery' ? META_TOOLS : index.list;
  } catch {
    return undefined;
  }
  // A session is told of a catalog change only when what it was served changes.
  runtime.served.remember(session.server, list);
  // The headers of the JSON body `whenGathered` makes of the transport's answer.
  return new Response(answerBytes(list, '', id), {
    status: 200,
    headers: { 'content-type': 'application/json', 'mcp-session-id': session.id },
  });
}

/**
 * Answers a plain `tools/list` outside a 2025 session without the SDK's per-request server: a
 * 2026-07-28 one ({@link plainModernRequestOf}: the envelope and nothing else in its params, so no
 * cursor), or a 2025 one sent without a session (no `Mcp-Session-Id`, the plain request
 * {@link answerSessionList} answers). The list is `principal`'s own, resolved for this request as
 * the SDK's server would, and sent from its bytes encoded once ({@link listBytes}); the answer is
 * the SDK's 2026-07-28 JSON body, and for 2025 the JSON body a session's list gets (the SDK's
 * sessionless way sent the same message as one event). Undefined for anything else, or when the
 * tools cannot be resolved: the SDK then answers as it always did, errors included.
 */
export async function answerSessionlessList(
  runtime: McpRuntime,
  principal: McpPrincipal,
  request: Request,
  body: unknown,
): Promise<Response | undefined> {
  const modern = plainModernRequestOf(request, body, 'tools/list', LIST_PARAMS_KEYS);
  const id =
    modern?.id ?? (request.headers.has('mcp-session-id') ? undefined : plainListId(request, body));
  if (id === undefined) return undefined;
  let list: readonly McpTool[];
  try {
    const { index, mode } = await toolsOf(runtime, principal, true);
    list = mode === 'discovery' ? META_TOOLS : index.list;
  } catch {
    return undefined;
  }
  const answer = answerBytes(list, modern === undefined ? '' : MODERN_RESULT_END, id);
  return new Response(answer, { status: 200, headers: { 'content-type': 'application/json' } });
}

/** The JSON-RPC answer of `id` whose result is `list` and then `resultEnd`, as UTF-8. */
function answerBytes(
  list: readonly McpTool[],
  resultEnd: string,
  id: string | number,
): Uint8Array<ArrayBuffer> {
  const tools = listBytes(list);
  const end = encoder.encode(`${resultEnd}${ANSWER_END}${JSON.stringify(id)}}`);
  const answer = new Uint8Array(ANSWER_START.length + tools.length + end.length);
  answer.set(ANSWER_START, 0);
  answer.set(tools, ANSWER_START.length);
  answer.set(end, ANSWER_START.length + tools.length);
  return answer;
}

/** The id of `body` when it is a plain 2025 `tools/list` this module answers, else undefined. */
function plainListId(request: Request, body: unknown): string | number | undefined {
  if (request.method !== 'POST' || !isPlainLegacyRequest(request, body)) return undefined;
  const { method, id, params } = body as { method: string; id: string | number; params?: object };
  if (method !== 'tools/list') return undefined;
  if (params !== undefined && Object.keys(params).length > 0) return undefined;
  const accept = request.headers.get('accept') ?? '';
  if (!accept.includes('application/json') || !accept.includes('text/event-stream')) {
    return undefined;
  }
  return id;
}
