import type { z } from 'zod';
import { deletedSchema } from '../../http/common-schemas.js';
import { endpointCreatedSchema, endpointListSchema } from '../../mcp-endpoints/schemas.js';
import { withQuery } from '../api.js';
import { confirmForm, copyBlock, time } from '../components.js';
import { type Html, html } from '../html.js';
import { action, type PageContext, page, seeOther, type WebKit } from '../kit.js';
import { clientConfigs } from '../mcp-client-configs.js';

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

async function endpointsPage(ctx: PageContext, created?: Created): Promise<Response> {
  const { endpoints } = await ctx.api.get(
    withQuery('/api/connections/mcp-endpoints', { userId: ctx.viewer.id }),
    endpointListSchema,
  );
  const baseUrl = ctx.services.baseUrl;
  const body = html`<div class="page-head"><div><h1>MCP endpoints</h1>
<p class="lead">Each endpoint has its own token, so you can connect an AI client and revoke it alone. Clients see exactly the tools of your Tools tab.</p></div></div>
${created === undefined ? '' : createdPanel(baseUrl, created)}
<div class="grid-2">
<section class="card" aria-labelledby="create-title">
<h2 id="create-title">Create an endpoint</h2>
<form method="post" action="/endpoints">
<label for="endpoint-name">Name<span class="hint">Where you use it, e.g. Laptop Claude Code</span></label>
<input id="endpoint-name" name="name" type="text" required maxlength="100" autocomplete="off">
<label for="endpoint-description">Description <span class="hint">Optional</span></label>
<input id="endpoint-description" name="description" type="text" maxlength="1000" autocomplete="off">
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
        (endpoint) => html`<tr data-endpoint="${endpoint.name}">
<td><strong>${endpoint.name}</strong>${endpoint.description ? html`<br><span class="muted small">${endpoint.description}</span>` : ''}<br><span class="muted small">Created ${time(endpoint.createdAt)}</span></td>
<td>${endpoint.kind === 'oauth' ? html`<span class="muted small">Signed in with OAuth</span>` : html`<code>${endpoint.maskedToken}</code>`}</td>
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
 * configurations), list them with their last use, delete one.
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
        },
        endpointCreatedSchema,
      );
      return endpointsPage(ctx, created);
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
