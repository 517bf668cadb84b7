import {
  type CompleteResult,
  type GetPromptResult,
  isSpecType,
  type Prompt,
  ProtocolError,
  type ReadResourceResult,
  type Resource,
  type ResourceTemplateType,
  type Server,
  type ServerCapabilities,
} from '@modelcontextprotocol/server';
import type { FederatedSource } from '../../upstream/federation.js';
import {
  namespacedContent,
  namespacedPrompt,
  namespacedUri,
  splitPrompt,
  splitUri,
} from '../../upstream/namespaced-names.js';
import { CallRedaction } from '../call-redaction.js';
import { type McpPrincipal, subjectId } from '../principal.js';
import type { McpRuntime } from '../runtime.js';
import {
  federatedError,
  malformedAnswer,
  promptNotFound,
  resourceNotFound,
} from './federated-errors.js';
import { federatedPage } from './federated-pages.js';
import type { SessionNotices } from './session-notices.js';
import { visibleSources } from './visible-sources.js';

/**
 * Serves on `server` the resources, resource templates, prompts and completions of the upstream
 * sources `principal` sees (see `visibleSources`, read again for every request), for the parts
 * `capabilities` declares. Each request goes to its source with the caller's own credential;
 * what comes back is checked against MCP's types and named in the source's namespace
 * (`namespaced-names.ts`). A resource or prompt of a source the caller does not see is not found,
 * exactly as one that does not exist.
 */
export function serveFederated(
  server: Server,
  runtime: McpRuntime,
  principal: McpPrincipal,
  capabilities: ServerCapabilities,
  notices: SessionNotices | undefined,
): void {
  const federation = federationOf(runtime, principal);
  if (capabilities.resources !== undefined) {
    serveResources(server, federation, capabilities.resources.subscribe === true, notices);
  }
  if (capabilities.prompts !== undefined) servePrompts(server, federation);
  if (capabilities.completions !== undefined) serveCompletions(server, federation);
}

/** What every federated request of one caller goes through: the sources it sees, and the hop. */
type Federation = ReturnType<typeof federationOf>;

function federationOf(runtime: McpRuntime, principal: McpPrincipal) {
  const { services } = runtime;
  const { logger, upstreams } = services;
  const subject = subjectId(principal);
  const offering = async (what: 'resources' | 'prompts' | 'completions') =>
    (await visibleSources(runtime, principal)).filter(
      (source) => source.offers[what] !== undefined,
    );
  const forward = async (
    source: FederatedSource,
    method: string,
    params: Record<string, unknown>,
    signal: AbortSignal,
  ): Promise<unknown> => {
    // The credential sent is masked in what comes back, as in a tool call's result and errors.
    const redaction = new CallRedaction(services.redactor);
    try {
      const answer = await upstreams.forward(source.id, subject, method, params, {
        signal,
        remember: (credential) => redaction.remember(credential),
      });
      return redaction.data(answer);
    } catch (error) {
      if (signal.aborted) throw error;
      const failure = federatedError(error, source.id, logger);
      return Promise.reject(
        failure instanceof ProtocolError
          ? new ProtocolError(failure.code, redaction.message(failure.message))
          : failure,
      );
    }
  };
  /** The source a namespaced resource URI belongs to, among those the caller sees. */
  const resourceSource = async (uri: string) => {
    const split = splitUri(uri);
    const source =
      split && (await offering('resources')).find((one) => one.namespace === split.namespace);
    if (split === undefined || source === undefined) throw resourceNotFound(uri);
    return { source, uri: split.name };
  };
  const promptSource = async (name: string) => {
    const split = splitPrompt(name);
    const source =
      split && (await offering('prompts')).find((one) => one.namespace === split.namespace);
    if (split === undefined || source === undefined) throw promptNotFound(name);
    return { source, name: split.name };
  };
  return { logger, offering, forward, resourceSource, promptSource };
}

/** `resources/list`, `resources/templates/list`, `resources/read` and (un)subscriptions. */
function serveResources(
  server: Server,
  federation: Federation,
  subscribe: boolean,
  notices: SessionNotices | undefined,
): void {
  const { logger, offering, forward, resourceSource } = federation;
  server.setRequestHandler('resources/list', async (request, ctx) => {
    const page = await federatedPage<Resource>({
      sources: await offering('resources'),
      cursor: request.params?.cursor,
      key: 'resources',
      served: (source, item) =>
        isSpecType.Resource(item)
          ? { ...item, uri: namespacedUri(source.namespace, item.uri) }
          : undefined,
      fetch: (source, cursor) =>
        forward(source, 'resources/list', cursorParams(cursor), ctx.mcpReq.signal),
      logger,
    });
    return { resources: page.items, ...nextOf(page) };
  });
  server.setRequestHandler('resources/templates/list', async (request, ctx) => {
    const page = await federatedPage<ResourceTemplateType>({
      sources: await offering('resources'),
      cursor: request.params?.cursor,
      key: 'resourceTemplates',
      served: (source, item) =>
        isSpecType.ResourceTemplate(item)
          ? { ...item, uriTemplate: namespacedUri(source.namespace, item.uriTemplate) }
          : undefined,
      fetch: (source, cursor) =>
        forward(source, 'resources/templates/list', cursorParams(cursor), ctx.mcpReq.signal),
      logger,
    });
    return { resourceTemplates: page.items, ...nextOf(page) };
  });
  server.setRequestHandler('resources/read', async (request, ctx) => {
    const { source, uri } = await resourceSource(request.params.uri);
    const answer = await forward(source, 'resources/read', { uri }, ctx.mcpReq.signal);
    if (!isSpecType.ReadResourceResult(answer)) throw malformedAnswer(source.id);
    const result: ReadResourceResult = {
      contents: answer.contents.map((content) => ({
        ...content,
        uri: namespacedUri(source.namespace, content.uri),
      })),
    };
    return result;
  });
  if (subscribe && notices !== undefined) {
    server.setRequestHandler('resources/subscribe', async (request, ctx) => {
      const { source, uri } = await resourceSource(request.params.uri);
      if (source.offers.resources?.subscribe !== true) throw resourceNotFound(request.params.uri);
      await forward(source, 'resources/subscribe', { uri }, ctx.mcpReq.signal);
      notices.subscribe(server, namespacedUri(source.namespace, uri), ctx.sessionId);
      return {};
    });
    server.setRequestHandler('resources/unsubscribe', async (request, ctx) => {
      notices.unsubscribe(server, request.params.uri);
      const { source, uri } = await resourceSource(request.params.uri);
      if (source.offers.resources?.subscribe !== true) return {};
      await forward(source, 'resources/unsubscribe', { uri }, ctx.mcpReq.signal);
      return {};
    });
  }
}

/** `prompts/list` and `prompts/get`. */
function servePrompts(server: Server, federation: Federation): void {
  const { logger, offering, forward, promptSource } = federation;
  server.setRequestHandler('prompts/list', async (request, ctx) => {
    const page = await federatedPage<Prompt>({
      sources: await offering('prompts'),
      cursor: request.params?.cursor,
      key: 'prompts',
      served: (source, item) =>
        isSpecType.Prompt(item)
          ? { ...item, name: namespacedPrompt(source.namespace, item.name) }
          : undefined,
      fetch: (source, cursor) =>
        forward(source, 'prompts/list', cursorParams(cursor), ctx.mcpReq.signal),
      logger,
    });
    return { prompts: page.items, ...nextOf(page) };
  });
  server.setRequestHandler('prompts/get', async (request, ctx) => {
    const { source, name } = await promptSource(request.params.name);
    const args = request.params.arguments;
    const answer = await forward(
      source,
      'prompts/get',
      { name, ...(args === undefined ? {} : { arguments: args }) },
      ctx.mcpReq.signal,
    );
    if (!isSpecType.GetPromptResult(answer)) throw malformedAnswer(source.id);
    const result: GetPromptResult = {
      ...(answer.description === undefined ? {} : { description: answer.description }),
      messages: answer.messages.map((message) => ({
        ...message,
        content: namespacedContent(source.namespace, [message.content])[0] ?? message.content,
      })),
    };
    return result;
  });
}

/** `completion/complete`, for a prompt's or a resource template's argument. */
function serveCompletions(server: Server, federation: Federation): void {
  const { forward, promptSource, resourceSource } = federation;
  server.setRequestHandler('completion/complete', async (request, ctx) => {
    const { ref, argument, context } = request.params;
    let located: { source: FederatedSource; ref: Record<string, unknown> };
    if (ref.type === 'ref/prompt') {
      const found = await promptSource(ref.name);
      located = { source: found.source, ref: { type: 'ref/prompt', name: found.name } };
    } else {
      const found = await resourceSource(ref.uri);
      located = { source: found.source, ref: { type: 'ref/resource', uri: found.uri } };
    }
    // Completions of a source that offers none are empty, as MCP has it for no suggestions.
    if (located.source.offers.completions === undefined) {
      return { completion: { values: [] } };
    }
    const answer = await forward(
      located.source,
      'completion/complete',
      { ref: located.ref, argument, ...(context === undefined ? {} : { context }) },
      ctx.mcpReq.signal,
    );
    if (!isSpecType.CompleteResult(answer)) throw malformedAnswer(located.source.id);
    const result: CompleteResult = { completion: answer.completion };
    return result;
  });
}

function cursorParams(cursor: string | undefined): Record<string, unknown> {
  return cursor === undefined ? {} : { cursor };
}

function nextOf(page: { nextCursor?: string }): { nextCursor?: string } {
  return page.nextCursor === undefined ? {} : { nextCursor: page.nextCursor };
}
