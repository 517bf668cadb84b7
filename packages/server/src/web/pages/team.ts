import type { AuthProvider } from '@gateway/sdk';
import type { z } from 'zod';
import { deletedSchema } from '../../http/common-schemas.js';
import type { PluginCatalog } from '../../registry/plugin-catalog.js';
import {
  teamConnectionCreatedSchema,
  teamConnectionListSchema,
} from '../../team-connections/schemas.js';
import { providerName } from '../../tool-status/index.js';
import { pill, secretDialog } from '../components.js';
import { type Html, html } from '../html.js';
import { action, type PageContext, page, seeOther, type WebKit } from '../kit.js';
import { connectionTree } from './connection-tree.js';

const DIALOG = 'team-dialog';

interface TeamProvider {
  entry: AuthProvider;
  name: string;
  plugins: string[];
}

/** Every auth provider of the mounted plugins, once each, by name. */
function mountedProviders(services: { plugins: PluginCatalog }): TeamProvider[] {
  const pluginIds = new Set(services.plugins.tools().map((tool) => tool.pluginId));
  const byId = new Map<string, TeamProvider>();
  for (const pluginId of pluginIds) {
    const plugin = services.plugins.plugin(pluginId);
    if (plugin === undefined) continue;
    for (const entry of plugin.authProviders) {
      const known = byId.get(entry.id);
      if (known) known.plugins.push(plugin.name);
      else
        byId.set(entry.id, {
          entry,
          name: providerName(entry, plugin.name, plugin.authProviders.length === 1),
          plugins: [plugin.name],
        });
    }
  }
  return [...byId.values()].sort((a, b) => a.name.localeCompare(b.name));
}

/**
 * Team tools: admins connect a tool once for everyone (a team connection, which serves every
 * user without a connection of their own); everyone else sees what the team has connected.
 */
export function mountTeamPage(kit: WebKit): void {
  const { app } = kit;
  app.get('/team', page(kit, teamPage));
  app.post('/team/connections', action(kit, '/team', connectForTeam, { admin: true }));
  app.post(
    '/team/connections/:id/delete',
    action(kit, '/team', removeTeamConnection, { admin: true }),
  );
}

/** `GET /team`: a card per provider the mounted tools need, with what the team connected. */
async function teamPage(ctx: PageContext): Promise<Response> {
  const { connections } = await ctx.api.get('/api/team/connections', teamConnectionListSchema);
  const admin = ctx.viewer.isAdmin;
  const providers = mountedProviders(ctx.services);
  const block = (provider: TeamProvider) => providerCard(provider, connections, admin);
  const body = html`<div class="page-head"><div><h1>Team tools</h1>
<p class="lead">${
    admin
      ? 'Connect a tool once for everyone. A user’s own connection still comes first.'
      : 'Tools an admin connected for everyone. They show as “Connected by your team” in your Tools tab.'
  }</p></div></div>
${
  providers.length === 0
    ? html`<div class="card"><p class="empty">No mounted plugin needs credentials.</p></div>`
    : providers.map(block)
}
${
  admin
    ? secretDialog({
        id: DIALOG,
        action: '/team/connections',
        fields: ['toolId'],
        note: 'Stored encrypted and used for every user without their own connection. Only its last four characters are ever shown.',
      })
    : ''
}`;
  return ctx.render({ title: 'Team tools', active: 'team', body });
}

/** One provider's card: the team's connections of it, and for an admin the button to add one. */
function providerCard(
  provider: TeamProvider,
  connections: z.infer<typeof teamConnectionListSchema>['connections'],
  admin: boolean,
): Html {
  const mine = connections.filter((row) => row.toolId === provider.entry.id);
  const kind = provider.entry.type === 'oauth2' ? 'OAuth token' : 'API key';
  const tree = admin
    ? connectionTree(
        mine.map((row) => ({
          id: row.id,
          instanceName: row.instanceName,
          maskedSecret: row.maskedSecret,
          parentId: null,
        })),
        {
          toolId: provider.entry.id,
          providerName: `${provider.name}, for everyone`,
          deleteAction: (id) => `/team/connections/${encodeURIComponent(id)}/delete`,
        },
      )
    : html`<ul class="tree">${mine.map((row) => html`<li><div class="instance"><span class="instance-name">${row.instanceName}</span></div></li>`)}</ul>`;
  return html`<section class="card provider-card" id="team-${provider.entry.id}" data-provider="${provider.entry.id}" aria-labelledby="team-${provider.entry.id}-title">
<div class="provider-head"><h2 id="team-${provider.entry.id}-title">${provider.name} <span class="provider-kind">· ${kind}</span></h2>${
    mine.length > 0
      ? pill('Connected for everyone', 'ok')
      : pill('Not connected for the team', 'warn')
  }</div>
<p class="muted small">Used by ${provider.plugins.join(', ')}.</p>
${tree}
${
  admin
    ? html`<div class="actions"><button type="button" class="${mine.length === 0 ? '' : 'secondary'}" data-dialog="${DIALOG}" data-field-tool-id="${provider.entry.id}" data-field-instance-name="${mine.length === 0 ? 'Team' : ''}" data-slot-title="Connect ${provider.name} for everyone" data-slot-subtitle="${kind}; every user without their own connection uses it.">${mine.length === 0 ? 'Connect for everyone' : 'Add another'}</button></div>`
    : ''
}
</section>`;
}

/** `POST /team/connections`: connects a tool for everyone. */
async function connectForTeam(ctx: PageContext, form: Record<string, string>): Promise<Response> {
  const toolId = form.toolId ?? '';
  const created = await ctx.api.send(
    'POST',
    '/api/team/connections',
    { toolId, instanceName: form.instanceName?.trim() ?? '', secret: form.secret ?? '' },
    teamConnectionCreatedSchema,
  );
  return seeOther(ctx.c, `/team#team-${encodeURIComponent(toolId)}`, {
    kind: 'ok',
    text: `Connected “${created.instanceName}” for everyone (${created.maskedSecret}).`,
  });
}

/** `POST /team/connections/:id/delete`: removes a team connection. */
async function removeTeamConnection(ctx: PageContext): Promise<Response> {
  await ctx.api.send(
    'DELETE',
    `/api/team/connections/${encodeURIComponent(ctx.c.req.param('id') ?? '')}`,
    undefined,
    deletedSchema,
  );
  return seeOther(ctx.c, '/team', { kind: 'ok', text: 'Team connection removed.' });
}
