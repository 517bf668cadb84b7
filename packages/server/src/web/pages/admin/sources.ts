import { sourceListSchema } from '../../../registry/schemas.js';
import { pill, time } from '../../components.js';
import { type Html, html } from '../../html.js';
import { page, type WebKit } from '../../kit.js';
import { addSourceCard, mountAddSource } from './add-source.js';
import { adminHead } from './admin-nav.js';
import { mountSourceSettings, sourceSettingsCard } from './source-settings.js';

/**
 * The sources: every plugin registration and upstream MCP server (issue 16), with what each
 * serves on this instance and, for an upstream, its address, auth kind and health, and a form
 * for its settings (which tools ask before running, whether service accounts may use them), and
 * a form to add an MCP server.
 */
export function mountSourcesPage(kit: WebKit): void {
  kit.app.get(
    '/admin/sources',
    page(
      kit,
      async (ctx) => {
        const { sources } = await ctx.api.get('/api/registry/sources', sourceListSchema);
        const body = html`${adminHead('sources', 'Where tools come from: plugins the gateway loaded, and upstream MCP servers. Add an MCP server with the form below, `gateway sources add <url>` or POST /api/registry/sources.')}
<section class="card" aria-labelledby="sources-title">
<h2 id="sources-title">Sources</h2>
${
  sources.length === 0
    ? html`<p class="empty">No sources registered yet.</p>`
    : html`<div class="table-wrap"><table>
<thead><tr><th scope="col">Source</th><th scope="col">Kind</th><th scope="col">Status</th><th scope="col">Tools</th></tr></thead>
<tbody>${sources.map((source) => {
        const upstream = source.upstream;
        const mapped = Object.entries(upstream?.mappedNames ?? {});
        const status: Html =
          upstream === undefined
            ? source.mounted
              ? pill('serving', 'ok')
              : pill('plugin not loaded', 'warn')
            : upstream.health.state === 'ok'
              ? pill('ok', 'ok')
              : html`${pill('degraded', 'danger')}<br><span class="small error">${upstream.health.lastError ?? ''}</span><br><span class="small muted">Tried again ${time(upstream.health.retryAt)}</span>`;
        return html`<tr data-source="${source.id}">
<td><strong>${source.id}</strong><br><span class="small muted">namespace <code>${source.namespace}</code></span></td>
<td>${
          upstream === undefined
            ? html`plugin <code>${source.pluginId ?? ''}</code>`
            : html`MCP (${upstream.transport})${upstream.url === null ? '' : html`<br><code class="small">${upstream.url}</code>`}<br><span class="small muted">auth ${upstream.auth?.kind ?? 'none'}${upstream.auth?.kind === 'header' ? html`: <code>${upstream.auth.provider}</code> in <code>${upstream.auth.header}</code>` : upstream.auth?.kind === 'oauth' ? html`: each user connects their own account${upstream.auth.clientId === undefined ? '' : html` (client <code>${upstream.auth.clientId}</code>)`}` : ''}</span>`
        }</td>
<td>${status}${upstream === undefined ? '' : upstream.auth?.kind === 'oauth' && upstream.toolsFetchedAt === null ? html`<br><span class="small muted">Tool list: when the first user connects</span>` : html`<br><span class="small muted">Tool list fetched ${time(upstream.toolsFetchedAt)}</span>`}${upstream === undefined ? '' : html`<br><a class="small" href="#settings-${source.id}">Settings of ${source.id}</a>`}</td>
<td>${source.tools.length} tool${source.tools.length === 1 ? '' : 's'}<details><summary class="small">Show</summary><ul class="small">${source.tools.map(
          (path) =>
            html`<li><code>${path}</code>${mapped.some(([served]) => served === path) ? html` <span class="muted">(upstream name <code>${upstream?.mappedNames[path] ?? ''}</code>)</span>` : ''}</li>`,
        )}</ul></details></td>
</tr>`;
      })}</tbody></table></div>`
}
</section>
${addSourceCard()}
${sources.map(sourceSettingsCard)}`;
        return ctx.render({ title: 'Sources', active: 'admin', body });
      },
      { admin: true },
    ),
  );
  mountSourceSettings(kit);
  mountAddSource(kit);
}
