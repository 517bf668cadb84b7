import {
  type CallToolRequestParams,
  type CallToolResult,
  CLIENT_CAPABILITIES_META_KEY,
  CLIENT_INFO_META_KEY,
  type ClientCapabilities,
  type InputRequiredResult,
  isSpecType,
  PROTOCOL_VERSION_META_KEY,
  ProtocolError,
  ProtocolErrorCode,
} from '@modelcontextprotocol/server';
import { isDatabaseUnavailable } from '../../db/unavailable.js';
import { whenClientLeaves } from '../../http/client-left.js';
import { decidedOnce } from '../../http/decided-names.js';
import { OnceStop } from '../../http/once-stop.js';
import { callTool } from '../call/call-tool.js';
import type { CallContext, CallSite } from '../call-site.js';
import type { McpPrincipal } from '../principal.js';
import type { McpRuntime } from '../runtime.js';
import { callAnswerText } from './call-answer.js';

const MODERN = '2026-07-28';
/** 2025's "resource not found", which 2026-07-28 answers as invalid params (the SDK maps it so). */
const RESOURCE_NOT_FOUND_2025 = -32002;
const REQUEST_KEYS = new Set(['jsonrpc', 'id', 'method', 'params']);
const PARAMS_KEYS = new Set(['name', 'arguments', '_meta']);
const ENVELOPE_KEYS = new Set([
  PROTOCOL_VERSION_META_KEY,
  CLIENT_INFO_META_KEY,
  CLIENT_CAPABILITIES_META_KEY,
]);

/** The longest envelope value, as JSON text, whose verdict is kept. */
const MAX_KEPT_TEXT = 1024;

/**
 * Whether a client's capabilities and info are valid by the spec's schemas: a value equal to the
 * last valid one at once ({@link likeLastValid}), else decided once per JSON text (a client sends
 * the same envelope with every call, and the schemas' checks cost a call more than writing the
 * value as text; issue 37). Texts up to 1 KiB are kept, at most 1,000. The text of a value parsed
 * from JSON stands for the value: the check of the text's own parse is the check of the value.
 */
const validCapabilities = likeLastValid(
  decidedOnce((text) => isSpecType.ClientCapabilities(JSON.parse(text)), MAX_KEPT_TEXT),
);
const validInfo = likeLastValid(
  decidedOnce((text) => isSpecType.Implementation(JSON.parse(text)), MAX_KEPT_TEXT),
);

/** A 2026-07-28 `tools/call` the gateway answers itself ({@link directCallOf}). */
export interface DirectCall {
  id: string | number;
  params: CallToolRequestParams;
  envelope: Record<string, unknown>;
  capabilities: ClientCapabilities;
}

/**
 * The call when `body` is the plain 2026-07-28 `tools/call` that the gateway answers without the
 * SDK's per-request server, else `undefined` (the SDK serves it, as every other request).
 *
 * The SDK builds a server, a transport and a context for every 2026-07-28 request, validates the
 * message against the spec's schemas in four places and wraps the answer in promises and streams:
 * about half of the gateway's CPU time for a call (bench/mcp/README.md). A call is answered here
 * only when everything in it is something the SDK would accept as it stands and its answer is one
 * JSON body:
 * - one request (no batch) with exactly `jsonrpc`, `id`, `method` and `params`; `params` with
 *   `name`, `arguments` (an object, without an argument named `__proto__`) and `_meta`;
 * - `_meta` holding the envelope and nothing else: protocol version `2026-07-28`, the client's
 *   capabilities and, if given, its info, each valid by the spec's schema. So no progress token and
 *   no log level, the only ways a call could send the client notifications, and no `requestState`
 *   or `inputResponses` (a retried round goes to the SDK, which checks them);
 * - the `MCP-Protocol-Version`, `Mcp-Method` and `Mcp-Name` headers naming the same revision,
 *   method and tool as the body.
 *
 * Anything else, malformed or merely unusual, takes the SDK's way and its answers.
 */
export function directCallOf(request: Request, body: unknown): DirectCall | undefined {
  const plain = plainModernRequestOf(request, body, 'tools/call', PARAMS_KEYS);
  if (plain === undefined) return undefined;
  const { name, arguments: args } = plain.params;
  if (typeof name !== 'string' || (args !== undefined && !isPlain(args))) return undefined;
  // The SDK's schema drops an argument named `__proto__` (as zod does); the tool's own schema
  // would refuse it. Either answer is safe, but there is one: the SDK's.
  if (args !== undefined && Object.hasOwn(args, '__proto__')) return undefined;
  if (request.headers.get('mcp-name') !== name) return undefined;
  return {
    id: plain.id,
    params: args === undefined ? { name } : { name, arguments: args },
    envelope: plain.envelope,
    capabilities: plain.capabilities,
  };
}

/** A plain 2026-07-28 request ({@link plainModernRequestOf}), its params as sent. */
export interface PlainModernRequest {
  id: string | number;
  params: Record<string, unknown>;
  envelope: Record<string, unknown>;
  capabilities: ClientCapabilities;
}

/**
 * `body` when it is one 2026-07-28 request of `method` that the SDK would accept as it stands:
 * exactly `jsonrpc`, `id`, `method` and `params`; `params` with no key outside `paramKeys`, and a
 * `_meta` holding the envelope and nothing else (protocol version `2026-07-28`, the client's
 * capabilities and, if given, its info, each valid by the spec's schema); the
 * `MCP-Protocol-Version` and `Mcp-Method` headers naming the same revision and method. Else
 * `undefined`. What else a method's params must be is its caller's to check.
 */
export function plainModernRequestOf(
  request: Request,
  body: unknown,
  method: string,
  paramKeys: ReadonlySet<string>,
): PlainModernRequest | undefined {
  if (!isPlain(body) || body.method !== method || body.jsonrpc !== '2.0') return undefined;
  const { id, params } = body;
  if (typeof id !== 'string' && !Number.isSafeInteger(id)) return undefined;
  if (!onlyKeys(body, REQUEST_KEYS) || !isPlain(params) || !onlyKeys(params, paramKeys)) {
    return undefined;
  }
  const envelope = params._meta;
  if (!isPlain(envelope) || !onlyKeys(envelope, ENVELOPE_KEYS)) return undefined;
  const headers = request.headers;
  if (
    envelope[PROTOCOL_VERSION_META_KEY] !== MODERN ||
    headers.get('mcp-protocol-version') !== MODERN ||
    headers.get('mcp-method') !== method
  ) {
    return undefined;
  }
  const capabilities = envelope[CLIENT_CAPABILITIES_META_KEY];
  const info = envelope[CLIENT_INFO_META_KEY];
  if (!isPlain(capabilities) || !validCapabilities(capabilities)) return undefined;
  if (info !== undefined && (!isPlain(info) || !validInfo(info))) return undefined;
  return {
    id: id as string | number,
    params,
    envelope,
    // Checked by the schema and kept as sent, as the SDK keeps a client's declaration.
    capabilities: capabilities as ClientCapabilities,
  };
}

/**
 * The calls answered without the SDK, in flight: {@link DirectCalls.serve} answers one,
 * {@link DirectCalls.stopAll} stops them all (the gateway is stopping), as closing the SDK's
 * handler stops the calls it serves.
 */
export class DirectCalls {
  readonly #running = new Set<OnceStop>();
  readonly #runtime: McpRuntime;

  constructor(runtime: McpRuntime) {
    this.#runtime = runtime;
  }

  /**
   * Answers `call` through the same call path as the SDK's server would ({@link callTool}), with
   * the answer the SDK would give: the result stamped `resultType` and the server's identity, a
   * protocol error as a JSON-RPC error, and 499 with no body when the client left (or the
   * gateway stopped) before the answer.
   */
  async serve(principal: McpPrincipal, call: DirectCall, request: Request): Promise<Response> {
    const site: CallSite = {
      principal,
      kind: 'modern',
      clientCapabilities: () => call.capabilities,
    };
    // A stop of the call's own, not AbortSignal.any() over a signal that lives as long as the
    // gateway: each call would add a dependant to it. Neither it nor the request makes a signal
    // unless something reads one (OnceStop, whenClientLeaves).
    const stop = new OnceStop();
    const stopListening = whenClientLeaves(request, (reason) => stop.stop(reason));
    this.#running.add(stop);
    let result: CallToolResult | InputRequiredResult | undefined;
    let error: object | undefined;
    try {
      result = await callTool(this.#runtime, site, call.params, contextOf(call, stop));
    } catch (failure) {
      // Before the tool ran (a lookup of the call path): the gateway's 503, for any client.
      if (isDatabaseUnavailable(failure)) throw failure;
      error = errorOf(failure, this.#runtime);
    } finally {
      this.#running.delete(stop);
      stopListening();
    }
    if (stop.stopped) return new Response(null, { status: 499 });
    // As `Response.json` makes it, the result's answer written as text once (call-answer.ts).
    const answer =
      error === undefined
        ? callAnswerText(result as CallToolResult | InputRequiredResult, call.id)
        : JSON.stringify({ jsonrpc: '2.0', id: call.id, error });
    return new Response(answer, { headers: { 'content-type': 'application/json' } });
  }

  /** Stops every call in flight. */
  stopAll(): void {
    for (const stop of this.#running) stop.stop(new Error('The gateway is stopping'));
  }
}

/**
 * What the call path reads of its request. Nothing here can reach the client before the answer:
 * a 2026-07-28 call asks its questions in its result (`input_required`), and without a progress
 * token or a log level nothing is sent to the client (see {@link directCallOf}).
 */
function contextOf(call: DirectCall, stop: OnceStop): CallContext {
  return { mcpReq: new DirectRequest(call, stop), onStop: (listener) => stop.onStop(listener) };
}

const noSession = () => {
  throw new ProtocolError(ProtocolErrorCode.InternalError, 'No session to ask the client on');
};

/** The request a direct call's context describes; its `signal` is made when first read. */
class DirectRequest
  implements Pick<CallContext['mcpReq'], Exclude<keyof CallContext['mcpReq'], 'signal'>>
{
  readonly id: string | number;
  readonly _meta = undefined;
  readonly envelope: Record<string, unknown>;
  readonly inputResponses = undefined;
  readonly #stop: OnceStop;

  constructor(call: DirectCall, stop: OnceStop) {
    this.id = call.id;
    this.envelope = call.envelope;
    this.#stop = stop;
  }

  get signal(): AbortSignal {
    return this.#stop.signal;
  }

  requestState(): undefined {
    return undefined;
  }

  // Nothing is sent before the answer (above); were it ever, it is dropped, as the SDK drops a
  // JSON exchange's notifications.
  async notify(): Promise<void> {}

  readonly elicitInput = noSession;
  readonly requestSampling = noSession;
}

/**
 * A protocol error (an unknown tool) as the SDK answers it. The call path turns every failure of a
 * tool into an `isError` result, so anything else is the gateway's own bug: logged, and answered
 * without its message.
 */
function errorOf(error: unknown, runtime: McpRuntime): object {
  if (error instanceof ProtocolError) {
    return {
      code: error.code === RESOURCE_NOT_FOUND_2025 ? ProtocolErrorCode.InvalidParams : error.code,
      message: error.message,
      ...(error.data === undefined ? {} : { data: error.data }),
    };
  }
  runtime.services.logger.error('MCP tool call failed', {
    error: error instanceof Error ? error.message : String(error),
  });
  return { code: ProtocolErrorCode.InternalError, message: 'Internal error' };
}

/**
 * `validText` for a value parsed from JSON, answered true at once for a value equal to the last
 * one found valid (its own copy, which no caller can change). A client sends the same envelope
 * with every call: comparing it with the last costs a few hundred instructions, where writing it
 * as text and looking the text up cost every direct call ~3.5 k (issue 37). Any other value is
 * written as text and judged by `validText`, as before.
 */
function likeLastValid(validText: (text: string) => boolean): (value: object) => boolean {
  let lastValid: unknown;
  return (value) => {
    if (lastValid !== undefined && sameJson(value, lastValid)) return true;
    const text = JSON.stringify(value);
    const valid = validText(text);
    if (valid && text.length <= MAX_KEPT_TEXT) lastValid = JSON.parse(text);
    return valid;
  };
}

/**
 * Whether the JSON value `given` equals `kept` (members in any order): the walk goes no deeper
 * and no wider than `kept`, which is at most {@link MAX_KEPT_TEXT} characters of JSON.
 */
function sameJson(given: unknown, kept: unknown): boolean {
  if (given === kept) return true;
  if (typeof given !== 'object' || typeof kept !== 'object' || given === null || kept === null) {
    return false;
  }
  if (Array.isArray(kept)) {
    if (!Array.isArray(given) || given.length !== kept.length) return false;
    for (let i = 0; i < kept.length; i += 1) if (!sameJson(given[i], kept[i])) return false;
    return true;
  }
  if (Array.isArray(given)) return false;
  const keptMembers = kept as Record<string, unknown>;
  const givenMembers = given as Record<string, unknown>;
  let count = 0;
  for (const key in keptMembers) {
    if (!Object.hasOwn(givenMembers, key) || !sameJson(givenMembers[key], keptMembers[key])) {
      return false;
    }
    count += 1;
  }
  for (const key in givenMembers) {
    if (!Object.hasOwn(keptMembers, key) || --count < 0) return false;
  }
  return true;
}

function isPlain(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function onlyKeys(value: Record<string, unknown>, allowed: ReadonlySet<string>): boolean {
  for (const key in value) if (!allowed.has(key)) return false;
  return true;
}
