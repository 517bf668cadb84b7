import type { AsyncLocalStorage } from 'node:async_hooks';
import {
  ProtocolError as ClientProtocolError,
  type InputRequests,
  type InputRequiredResult,
  type InputResponses,
  isInputRequiredResult,
  type JSONRPCMessage,
  type Tool as McpTool,
  type RequestOptions,
  type StandardSchemaV1,
  specTypeSchemas,
} from '@modelcontextprotocol/client';
import { isRecord } from '../json/is-record.js';
import type { SourceCall } from '../tool-sources/index.js';
import { signalOf } from './abort-signals.js';
import type { Connection } from './connection.js';
import type { RelayedRequests } from './relays.js';

/**
 * A tool result as it came; `resultOf` checks it, once. Through `callTool` the SDK would
 * also parse every result with its revision's schema and look up the tool's output schema and
 * `Mcp-Param-*` declarations: a second pass over every forwarded result.
 */
export const AS_SENT: StandardSchemaV1<unknown, unknown> = {
  '~standard': { version: 1, vendor: 'gateway', validate: (value) => ({ value }) },
};

type CallParams = {
  name: string;
  arguments: Record<string, unknown>;
  _meta?: Record<string, unknown>;
};

/**
 * The result of a plain `tools/call` answered through the connection's transport, without the SDK
 * client: as it came, `input_required` included. A JSON-RPC error is thrown as the SDK client
 * throws it.
 */
function resultOfAnswer(answer: JSONRPCMessage): unknown {
  if ('error' in answer) {
    const { code, message, data } = answer.error;
    throw ClientProtocolError.fromError(code, message, data);
  }
  if (!('result' in answer)) throw new Error('The upstream answered with a request');
  return answer.result;
}

/**
 * The answers to an `input_required` result's questions, asked of the calling user's client by
 * the same handlers the SDK client would dispatch them to, after the same validation; undefined
 * when one of them is not a form, link or sampling request fit to relay (the SDK client then asks
 * the upstream again and deals with it, as it always has).
 */
async function answerInputRequests(
  relayed: RelayedRequests,
  requests: InputRequests,
): Promise<InputResponses | undefined> {
  const entries = Object.entries(requests);
  if (entries.length === 0) return undefined;
  const asked = entries.map(([key, entry]) => {
    if (!isRecord(entry) || !isRecord(entry.params)) return undefined;
    if (entry.method === 'sampling/createMessage') {
      const checked = specTypeSchemas.CreateMessageRequest['~standard'].validate(entry);
      return checked.issues === undefined
        ? () => relayed['sampling/createMessage'](checked.value).then((answer) => [key, answer])
        : undefined;
    }
    if (entry.method !== 'elicitation/create') return undefined;
    // 2026-07-28 links carry no id (the 2025 schema wants one): the relay makes a new one anyway.
    const params =
      entry.params.mode === 'url' && entry.params.elicitationId === undefined
        ? { ...entry.params, elicitationId: crypto.randomUUID() }
        : entry.params;
    const checked = specTypeSchemas.ElicitRequest['~standard'].validate({
      method: entry.method,
      params,
    });
    return checked.issues === undefined
      ? () => relayed['elicitation/create'](checked.value).then((answer) => [key, answer])
      : undefined;
  });
  if (asked.some((ask) => ask === undefined)) return undefined;
  const answers = await Promise.all(
    asked.map((ask) => (ask as () => Promise<[string, unknown]>)()),
  );
  return Object.fromEntries(answers) as InputResponses;
}

/**
 * The call's next round after an `input_required` answer that came past the SDK client: the
 * same call with the answers and the upstream's `requestState`, as the SDK client would send it,
 * so the upstream sees its first round once. Undefined when the SDK client should ask it again.
 */
async function nextRound(
  relayed: RelayedRequests,
  params: CallParams,
  asked: InputRequiredResult,
): Promise<CallParams | undefined> {
  const responses = await answerInputRequests(relayed, asked.inputRequests ?? {});
  if (responses === undefined) return undefined;
  return {
    ...params,
    inputResponses: responses,
    ...(asked.requestState === undefined ? {} : { requestState: asked.requestState }),
  } as CallParams;
}

/** The call's context, where the upstream's questions and log lines find their call (`callOf`). */
export interface CallFrame {
  storage: AsyncLocalStorage<SourceCall>;
  /** Whether messages for the call need it: a stdio process's are told apart by its calls. */
  needed: boolean;
}

/**
 * Sends a `tools/call` on `connection`. A plain call of a 2026-07-28 upstream or a stdio process
 * (no progress, log level or argument headers) goes out past the SDK client, which would add its request machinery,
 * a second parse and ~90 KB of garbage to every call (issue 37). One that asks for input has its
 * questions answered here and its later rounds run by the SDK client, as any other call's.
 *
 * The call's stop stops the request: a plain call's through `call.onStop`, the SDK client's
 * through a signal made for it. What the upstream asks or says for the call (a question, a log
 * line) is handled in the call's context (`frame`), entered only where such a message can be: a
 * plain call's JSON answer carries none (issue 37).
 */
export async function sendCall(
  connection: Connection,
  params: CallParams,
  sending: Omit<RequestOptions, 'signal'>,
  call: SourceCall,
  headerDeclaring: McpTool | undefined,
  frame: CallFrame,
): Promise<unknown> {
  const direct = connection.direct;
  let sent = params;
  if (
    direct !== undefined &&
    headerDeclaring === undefined &&
    !call.takesProgress &&
    params._meta === undefined
  ) {
    // Awaited here, not in a function of its own: one promise and turn fewer a call (issue 37).
    const { envelope } = direct;
    const first = resultOfAnswer(
      await direct.transport.call(
        'tools/call',
        envelope === undefined ? params : { ...params, _meta: envelope },
        call,
        frame.needed ? (work) => frame.storage.run(call, work) : undefined,
        call.sending?.(),
      ),
    );
    if (!isInputRequiredResult(first)) return first;
    sent = (await inCall(frame, call, () => nextRound(direct.relayed, params, first))) ?? params;
  }
  return await inCall(frame, call, () =>
    sendBySdk(connection, sent, sending, call, headerDeclaring),
  );
}

/** The call through the SDK client, stopped by a signal made for it. */
async function sendBySdk(
  connection: Connection,
  params: CallParams,
  sending: Omit<RequestOptions, 'signal'>,
  call: SourceCall,
  headerDeclaring: McpTool | undefined,
): Promise<unknown> {
  const stop = signalOf(call);
  try {
    const options = { ...sending, signal: stop.signal };
    return connection.modern && headerDeclaring !== undefined
      ? await connection.client.callTool(params, {
          ...options,
          toolDefinition: { ...headerDeclaring, outputSchema: undefined },
        })
      : await connection.client.request({ method: 'tools/call', params }, AS_SENT, options);
  } finally {
    stop.off();
  }
}

function inCall<T>(frame: CallFrame, call: SourceCall, work: () => T): T {
  return frame.needed ? frame.storage.run(call, work) : work();
}
