import type { z } from 'zod';
import { deletedSchema } from '../../http/common-schemas.js';
import {
  endpointCreatedSchema,
  endpointListSchema,
  endpointUpdatedSchema,
} from '../../mcp-endpoints/schemas.js';
import { type Preview, previewSchema } from '../../role-preview/schemas.js';
import { withQuery } from '../api.js';
import { confirmForm, copyBlock, time } from '../components.js';
import { type Html, html } from '../html.js';
import { action, type PageContext, page, seeOther, type WebKit } from '../kit.js';
import { clientConfigs } from '../mcp-client-configs.js';
import { patternLines, previewBlock } from './admin/roles.js';

type Created = z.infer<typeof endpointCreatedSchema>;

function createdPanel(baseUrl: string, created: Created): Html {
  const configs = clientConfigs(baseUrl, created.token);
  return html`<section class="card secret-once" aria-labelledby="new-endpoint-title" id="new-endpoint">
<h2 id="new-endpoint-title">Endpoint “${created.name}” created</h2>
<p class="notice info" role="status">Copy the token now: it is shown only this once. Gateway keeps only its hash.</p>
<h3>Token</h3>
${copyBlock('new-token', created.token, 'The new MCP token')}
<p class="small">MCP URL: <code>${baseUrl}/mcp</code>, with the header <code>Authorization: Bearer &lt;token&gt;</code>.</p>
<h3>Client configurations</h3>
${configs.map(
  (config, index) => html`<details${index === 0 ? html` open` : ''}>
<summary>${config.client} <span class="muted small">· ${config.where}</span></summary>
${copyBlock(`config-${config.id}`, config.text, `${config.client} configuration`)}
</details>`,
)}
</section>`;
}

/** What an endpoint with `patterns` would serve the viewer (the preview route, over their role). */
function previewOf(ctx: PageContext, patterns: readonly string[]): Promise<Preview> {
  return ctx.api.send(
    'POST',
    '/api/connections/mcp-endpoints/preview',
    { userId: ctx.viewer.id, tools: patterns },
    previewSchema,
  );
}

/** The tools and mode fields of an endpoint form, with the live preview of what it serves. */
function scopeFields(
  ctx: PageContext,
  idPrefix: string,
  patterns: readonly string[],
  mode: 'tools' | 'discovery',
  preview: Preview,
): Html {
  return html`<label for="${idPrefix}-tools">Tools <span class="hint">Optional. Patterns, one per line (<code>notes.**</code>, <code>github.repos.*</code>): the endpoint serves only the tools of your role they match. Empty: every tool of your role.</span></label>
<textarea id="${idPrefix}-tools" name="tools" spellcheck="false" autocomplete="off" data-preview="${idPrefix}-preview" data-preview-user="${ctx.viewer.id}">${patterns.join('\n')}</textarea>
${previewBlock(`${idPrefix}-preview`, preview, true)}
<label for="${idPrefix}-mode">Mode <span class="hint">Discovery lists three tools (search, describe, call) instead of every tool: for large catalogs</span></label>
<select id="${idPrefix}-mode" name="mode">
<option value="tools"${mode === 'tools' ? html` selected` : ''}>Tools: list every tool</option>
<option value="discovery"${mode === 'discovery' ? html` selected` : ''}>Discovery: search, describe, call</option>
</select>`;
}

function modeOf(value: string | undefined): 'tools' | 'discovery' {
  return value === 'discovery' ? 'discovery' : 'tools';
}

async function endpointsPage(ctx: PageContext, created?: Created): Promise<Response> {
  const { endpoints } = await ctx.api.get(
    withQuery('/api/connections/mcp-endpoints', { userId: ctx.viewer.id }),
    endpointListSchema,
  );
  const previews = await Promise.all([
    previewOf(ctx, []),
    ...endpoints.map((endpoint) => previewOf(ctx, endpoint.tools ?? [])),
  ]);
  const baseUrl = ctx.services.baseUrl;
  const body = html`<div class="page-head"><div><h1>MCP endpoints</h1>
<p class="lead">Each endpoint has its own token, so you can connect an AI client and revoke it alone. Clients see the tools of your Tools tab, or only those an endpoint's patterns select.</p></div></div>
${created === undefined ? '' : createdPanel(baseUrl, created)}
<div class="grid-2">
<section class="card" aria-labelledby="create-title">
<h2 id="create-title">Create an endpoint</h2>
<form method="post" action="/endpoints">
<label for="endpoint-name">Name<span class="hint">Where you use it, e.g. Laptop Claude Code</span></label>
<input id="endpoint-name" name="name" type="text" required maxlength="100" autocomplete="off">
<label for="endpoint-description">Description <span class="hint">Optional</span></label>
<input id="endpoint-description" name="description" type="text" maxlength="1000" autocomplete="off">
${scopeFields(ctx, 'endpoint', [], 'tools', previews[0] as Preview)}
<div class="actions"><button type="submit">Create endpoint</button></div>
</form>
</section>
<section class="card" aria-labelledby="list-title">
<h2 id="list-title">Your endpoints</h2>
${
  endpoints.length === 0
    ? html`<p class="empty">No endpoints yet.</p>`
    : html`<div class="table-wrap"><table>
<thead><tr><th scope="col">Name</th><th scope="col">Token</th><th scope="col">Last used</th><th scope="col"><span class="visually-hidden">Actions</span></th></tr></thead>
<tbody>${endpoints.map(
        (endpoint, index) => html`<tr data-endpoint="${endpoint.name}">
<td><strong>${endpoint.name}</strong>${endpoint.description ? html`<br><span class="muted small">${endpoint.description}</span>` : ''}<br><span class="muted small">Created ${time(endpoint.createdAt)}</span>
<br><span class="small" data-endpoint-scope>${endpoint.tools === null ? 'Every tool of your role' : `Tools: ${endpoint.tools.join(', ')}`}${endpoint.mode === 'discovery' ? ' · discovery mode' : ''}</span>
<details><summary class="small">Change tools</summary>
<form method="post" action="/endpoints/${encodeURIComponent(endpoint.id)}/update">
${scopeFields(ctx, `endpoint-${index}`, endpoint.tools ?? [], endpoint.mode, previews[index + 1] as Preview)}
<div class="actions"><button type="submit">Save ${endpoint.name}</button></div>
</form></details></td>
<td data-token>${endpoint.kind === 'oauth' ? html`<span class="muted small">Signed in with OAuth</span>` : html`<code>${endpoint.maskedToken}</code>`}</td>
<td data-last-used>${time(endpoint.lastUsedAt)}</td>
<td>${confirmForm({
          action: `/endpoints/${encodeURIComponent(endpoint.id)}/delete`,
          question: `Delete the endpoint “${endpoint.name}”? Clients using its token lose access at once.`,
          label: 'Delete',
          accessibleName: `Delete ${endpoint.name}`,
        })}</td>
</tr>`,
      )}</tbody></table></div>`
}
</section>
</div>`;
  return ctx.render({ title: 'MCP endpoints', active: 'endpoints', body }, created ? 201 : 200);
}

/**
 * MCP endpoints: create one (its token shown once, with a copy button and ready-to-paste client
 * configurations), list them with their last use, change the tools one serves and its mode (with
 * a live preview of the tools over the user's role), delete one.
 */
export function mountEndpointsPage(kit: WebKit): void {
  const { app } = kit;

  app.get(
    '/endpoints',
    page(kit, (ctx) => endpointsPage(ctx)),
  );

  // Answers with the page itself (not a redirect), so the token never travels in a URL or cookie.
  app.post(
    '/endpoints',
    action(kit, '/endpoints', async (ctx, form) => {
      const description = form.description?.trim();
      const created = await ctx.api.send(
        'POST',
        '/api/connections/mcp-endpoints',
        {
          userId: ctx.viewer.id,
          name: form.name?.trim() ?? '',
          ...(description ? { description } : {}),
          tools: patternLines(form.tools),
          mode: modeOf(form.mode),
        },
        endpointCreatedSchema,
      );
      return endpointsPage(ctx, created);
    }),
  );

  app.post(
    '/endpoints/:id/update',
    action(kit, '/endpoints', async (ctx, form) => {
      const { endpoint } = await ctx.api.send(
        'PATCH',
        `/api/connections/mcp-endpoints/${encodeURIComponent(ctx.c.req.param('id') ?? '')}`,
        { userId: ctx.viewer.id, tools: patternLines(form.tools), mode: modeOf(form.mode) },
        endpointUpdatedSchema,
      );
      return seeOther(ctx.c, '/endpoints', {
        kind: 'ok',
        text: `Endpoint “${endpoint.name}” saved; its connected clients are told their tools changed.`,
      });
    }),
  );

  app.post(
    '/endpoints/:id/delete',
    action(kit, '/endpoints', async (ctx) => {
      await ctx.api.send(
        'DELETE',
        withQuery(
          `/api/connections/mcp-endpoints/${encodeURIComponent(ctx.c.req.param('id') ?? '')}`,
          {
            userId: ctx.viewer.id,
          },
        ),
        undefined,
        deletedSchema,
      );
      return seeOther(ctx.c, '/endpoints', {
        kind: 'ok',
        text: 'Endpoint deleted; its token no longer works.',
      });
    }),
  );
}
