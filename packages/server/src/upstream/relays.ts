import { validateElicitRequest, validateSampleRequest } from '@gateway/sdk';
import { type Client, ProtocolError, ProtocolErrorCode } from '@modelcontextprotocol/client';
import type { LoggingLevel } from '@modelcontextprotocol/server';
import type { SourceCall } from '../tool-sources/index.js';

/** Where {@link relayToCalls} finds the call a message of the upstream belongs to. */
export interface CallRelay {
  /** The call whose request stream (or lone session) carried the message, if it can be told. */
  callOf(): SourceCall | undefined;
  /** The served path of the tool `call` runs, for the questions it relays. */
  toolPathOf(call: SourceCall): string;
  /** The upstream said its tool list changed. */
  onToolsChanged(): void;
}

/**
 * Makes `client` relay what an upstream sends during a call to that call: sampling and form
 * elicitation go to the calling user's client (the call's `sample` and `ctx.elicit`, as for
 * plugin tools: the client, else the approvals path; on 2026-07-28 the upstream asks in an
 * `input_required` result, which the client answers with these same handlers before it sends the
 * call again), and log lines to that call alone. Anything asked outside a call, URL-mode
 * elicitation and forms the gateway cannot show are refused to the upstream.
 */
export function relayToCalls(client: Client, relay: CallRelay): void {
  client.setRequestHandler('sampling/createMessage', async (request) => {
    const call = relay.callOf();
    if (call === undefined) {
      throw new ProtocolError(
        ProtocolErrorCode.InvalidRequest,
        'Sampling is only relayed during a tool call',
      );
    }
    const { messages, maxTokens, systemPrompt, temperature, stopSequences, modelPreferences } =
      request.params;
    const asked = validateSampleRequest({
      messages,
      maxTokens,
      ...(systemPrompt === undefined ? {} : { systemPrompt }),
      ...(temperature === undefined ? {} : { temperature }),
      ...(stopSequences === undefined ? {} : { stopSequences }),
      ...(modelPreferences === undefined ? {} : { modelPreferences }),
    });
    if (!asked.success) {
      throw new ProtocolError(
        ProtocolErrorCode.InvalidParams,
        'The gateway relays text, image and audio sampling only',
      );
    }
    const answer = await call.sample(asked.data);
    return {
      role: answer.role,
      content: answer.content,
      model: answer.model,
      ...(answer.stopReason === undefined ? {} : { stopReason: answer.stopReason }),
    };
  });
  client.setRequestHandler('elicitation/create', async (request) => {
    const call = relay.callOf();
    const { params } = request;
    if (call === undefined || params.mode === 'url' || !('requestedSchema' in params)) {
      throw new ProtocolError(
        ProtocolErrorCode.InvalidRequest,
        'Only form elicitation during a tool call is relayed',
      );
    }
    const asked = validateElicitRequest({
      toolPath: relay.toolPathOf(call),
      message: params.message,
      type: 'form',
      fields: params.requestedSchema.properties,
      required: params.requestedSchema.required ?? [],
    });
    if (!asked.success) {
      throw new ProtocolError(
        ProtocolErrorCode.InvalidParams,
        'The form asks for fields the gateway cannot relay',
      );
    }
    const answer = await call.context.elicit(asked.data);
    if (!answer.approved) return { action: 'decline' as const };
    return isRecord(answer.data)
      ? { action: 'accept' as const, content: formContent(answer.data) }
      : { action: 'accept' as const };
  });
  client.setNotificationHandler('notifications/message', (notification) => {
    // Only the call whose request stream (or lone session) carried it is told; others' lines
    // stay in the log.
    const call = relay.callOf();
    if (call === undefined) return;
    const { level, data, logger: name } = notification.params;
    call.forwardLog(level as LoggingLevel, data, name);
  });
  client.setNotificationHandler('notifications/tools/list_changed', () => {
    relay.onToolsChanged();
  });
}

/** A form's answer as elicitation carries it: the fields whose values a form can hold. */
function formContent(data: Record<string, unknown>): Record<string, FormValue> {
  const content: Record<string, FormValue> = {};
  for (const [name, value] of Object.entries(data)) {
    const fits =
      typeof value === 'string' ||
      typeof value === 'number' ||
      typeof value === 'boolean' ||
      (Array.isArray(value) && value.every((one) => typeof one === 'string'));
    if (fits) content[name] = value;
  }
  return content;
}

type FormValue = string | number | boolean | string[];

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
