import {
  urlElicitationProblem,
  validateElicitRequest,
  validateSampleRequest,
} from '@gateway/sdk/kernel';
import {
  type Client,
  type CreateMessageRequest,
  type CreateMessageResult,
  type ElicitRequest,
  type ElicitResult,
  ProtocolError,
  ProtocolErrorCode,
} from '@modelcontextprotocol/client';
import type { LoggingLevel } from '@modelcontextprotocol/server';
import { isRecord } from '../json/is-record.js';
import type { UrlElicitation } from '../mcp/call/elicitation.js';
import type { SourceCall } from '../tool-sources/index.js';
import type { UpstreamNotice } from './notice.js';
import type { RelaySettings } from './target.js';

/** Where {@link relayToCalls} finds the call a message of the upstream belongs to. */
export interface CallRelay {
  /**
   * The call in progress whose own request stream carried the message (a stdio process's: the
   * one call it serves), if it can be told.
   */
  callOf(): SourceCall | undefined;
  /**
   * The call a request of the upstream's (a question, a sampling request) belongs to: as
   * {@link CallRelay.callOf}, or later, when a stdio process's cannot be told at once (see
   * `heldQuestionOwner`).
   */
  questionOf(): SourceCall | undefined | Promise<SourceCall | undefined>;
  /** A request of the upstream's (`method`) was refused: it belongs to no call in progress. */
  refused(method: string): void;
  /** The served path of the tool `call` runs, for the questions it relays. */
  toolPathOf(call: SourceCall): string;
  /** The upstream said its tool list changed. */
  onToolsChanged(): void;
  /** The upstream said its resources or prompts changed. */
  onNotice(notice: UpstreamNotice): void;
  /** The source's id, which every relayed question names. */
  sourceId: string;
  /** Whether its questions and sampling requests reach the user (the source's settings, now). */
  settings(): RelaySettings;
}

/**
 * Who asks, put before every question and sampling request an upstream relays: the person
 * answering knows it is not the gateway (nor the client) asking, and which source and tool to
 * blame for a hostile question.
 */
export function whoAsks(sourceId: string, toolPath: string): string {
  return `Upstream source ${sourceId}, tool ${toolPath}, asks`;
}

/**
 * Makes `client` relay what an upstream sends during a call to that call: sampling and form
 * elicitation go to the calling user's client (the call's `sample` and `ctx.elicit`, as for
 * plugin tools: the client, else the approvals path; on 2026-07-28 the upstream asks in an
 * `input_required` result, which the client answers with these same handlers before it sends the
 * call again), URL-mode elicitation likewise to a client that declared it (`call.elicitUrl`, and
 * the upstream's word that a link's step is done to the client shown that link), and log lines
 * to that call alone. A message belongs to the call whose own request stream carried it, while
 * that call runs ({@link CallRelay.callOf}); anything asked outside one (on a session's GET
 * stream, on a tool list's stream, after the call ended), links that are not https and forms the
 * gateway cannot show are refused to the upstream, and log lines outside a call are dropped.
 */
export function relayToCalls(client: Client, relay: CallRelay): RelayedRequests {
  const sample = sampleFor(relay);
  const elicit = elicitFor(relay);
  client.setRequestHandler('sampling/createMessage', sample);
  client.setRequestHandler('elicitation/create', elicit);
  relayNotifications(client, relay);
  return { 'sampling/createMessage': sample, 'elicitation/create': elicit };
}

/** Relays an upstream's sampling request to the calling user's client, labelled with who asks. */
function sampleFor(relay: CallRelay) {
  return async (request: CreateMessageRequest): Promise<CreateMessageResult> => {
    const found = relay.questionOf();
    const call = found instanceof Promise ? await found : found;
    if (call === undefined) {
      relay.refused('sampling/createMessage');
      throw new ProtocolError(
        ProtocolErrorCode.InvalidRequest,
        'Sampling is only relayed during a tool call, on its stream',
      );
    }
    if (!relay.settings().allowSampling) {
      // Refused at once: the client never hears of it.
      throw new ProtocolError(
        ProtocolErrorCode.InvalidRequest,
        `Sampling is turned off for source "${relay.sourceId}" at the gateway`,
      );
    }
    const { messages, maxTokens, systemPrompt, temperature, stopSequences, modelPreferences } =
      request.params;
    // The client shows the system prompt with the request: it says who asks first.
    const label = `${whoAsks(relay.sourceId, relay.toolPathOf(call))} for this completion.`;
    const asked = validateSampleRequest({
      messages,
      maxTokens,
      systemPrompt: systemPrompt === undefined ? label : `${label}\n\n${systemPrompt}`,
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
  };
}

/** Relays an upstream's form or URL elicitation to the calling user, labelled with who asks. */
function elicitFor(relay: CallRelay) {
  return async (request: ElicitRequest): Promise<ElicitResult> => {
    const found = relay.questionOf();
    const call = found instanceof Promise ? await found : found;
    const { params } = request;
    if (call === undefined) {
      relay.refused('elicitation/create');
      throw new ProtocolError(
        ProtocolErrorCode.InvalidRequest,
        'Elicitation is only relayed during a tool call, on its stream',
      );
    }
    // Turned off: declined at once, the user never asked.
    if (!relay.settings().allowElicitation) return { action: 'decline' as const };
    const asks = whoAsks(relay.sourceId, relay.toolPathOf(call));
    if (params.mode === 'url') {
      const link = checkedLink(params);
      if (typeof link === 'string') throw new ProtocolError(ProtocolErrorCode.InvalidParams, link);
      const origin = new URL(link.url).origin;
      return {
        action: await call.elicitUrl({
          ...link,
          message: `${asks} you to open a page at ${origin}: ${link.message}`,
        }),
      };
    }
    if (!('requestedSchema' in params)) {
      throw new ProtocolError(
        ProtocolErrorCode.InvalidRequest,
        'Only form and URL elicitation are relayed',
      );
    }
    const asked = validateElicitRequest({
      toolPath: relay.toolPathOf(call),
      message: `${asks}: ${params.message}`,
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
  };
}

/** Passes an upstream's log lines, link completions and list changes to the call or the gateway. */
function relayNotifications(client: Client, relay: CallRelay): void {
  client.setNotificationHandler('notifications/message', (notification) => {
    // Only the call whose request stream (or lone session) carried it is told; others' lines
    // stay in the log.
    const call = relay.callOf();
    if (call === undefined) return;
    const { level, data, logger: name } = notification.params;
    call.forwardLog(level as LoggingLevel, data, name);
  });
  client.setNotificationHandler('notifications/elicitation/complete', (notification) => {
    // Passed on only to the call that showed its client that link (see `forwardLinkDone`).
    relay.callOf()?.forwardLinkDone(notification.params.elicitationId);
  });
  client.setNotificationHandler('notifications/tools/list_changed', () => {
    relay.onToolsChanged();
  });
  client.setNotificationHandler('notifications/resources/list_changed', () => {
    relay.onNotice({ kind: 'resources_changed' });
  });
  client.setNotificationHandler('notifications/prompts/list_changed', () => {
    relay.onNotice({ kind: 'prompts_changed' });
  });
  client.setNotificationHandler('notifications/resources/updated', (notification) => {
    const { uri } = notification.params;
    if (typeof uri === 'string' && uri.length <= MAX_URI_CHARS) {
      relay.onNotice({ kind: 'resource_updated', uri });
    }
  });
}

/**
 * The requests {@link relayToCalls} answers for the SDK client, by method: what answers the
 * input requests of an `input_required` result that came past the client.
 */
export interface RelayedRequests {
  'sampling/createMessage': (request: CreateMessageRequest) => Promise<CreateMessageResult>;
  'elicitation/create': (request: ElicitRequest) => Promise<ElicitResult>;
}

/** The longest resource URI an upstream's update notice may name. */
const MAX_URI_CHARS = 4096;

/** The longest message and elicitation id of a URL-mode elicitation the gateway relays. */
const MAX_LINK_MESSAGE_CHARS = 2000;
const MAX_ELICITATION_ID_CHARS = 200;

/**
 * A URL-mode elicitation fit to show a person, or why not: the link is `https:` (or `http:` to
 * this machine, for an upstream under development), carries no user name or password, and it,
 * the message and the id are of reasonable length. Anything else (`javascript:`, `data:`,
 * `file:`, a plain-http address elsewhere) is refused to the upstream, and the user is not asked.
 */
export function checkedLink(params: {
  message?: unknown;
  url?: unknown;
  elicitationId?: unknown;
}): UrlElicitation | string {
  const { message, url } = params;
  // 2026-07-28 carries no id in an input request: a 2025 client, which needs one, gets a new one.
  const elicitationId = params.elicitationId ?? crypto.randomUUID();
  if (typeof message !== 'string' || typeof url !== 'string' || typeof elicitationId !== 'string') {
    return 'A URL elicitation needs a message, a url and an elicitation id, all strings';
  }
  // The rules a plugin's link is held to (`ctx.elicit({ type: 'url' })`), one sentence for all.
  if (urlElicitationProblem(url) !== undefined) {
    return 'The gateway relays https links only (http only to localhost), without credentials, of at most 2048 characters';
  }
  if (message.length > MAX_LINK_MESSAGE_CHARS || elicitationId.length > MAX_ELICITATION_ID_CHARS) {
    return 'The message or elicitation id is too long to relay';
  }
  // Checked above, so it parses; the normalised address is what the person sees.
  return { message, url: new URL(url).href, elicitationId };
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
