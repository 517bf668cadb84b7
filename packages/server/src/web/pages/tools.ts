import { z } from 'zod';
import { oauthErrorText } from '../../auth/oauth-error-text.js';
import { startProviderLink } from '../../cli-auth/browser-connect.js';
import { callAuth } from '../../cli-auth/page-kit.js';
import { connectionCreatedSchema } from '../../connections/schemas.js';
import { deletedSchema } from '../../http/common-schemas.js';
import { type ProviderStatus, type ToolStatus, toolStatusSchema } from '../../tool-status/index.js';
import { PLUGIN_OAUTH_PREFIX, pluginOAuthKey } from '../../upstream/oauth-hooks.js';
import { startUpstreamConnect } from '../../upstream-oauth/index.js';
import { findLinkedAccountId } from '../../vending/linked-accounts.js';
import { withQuery } from '../api.js';
import { confirmForm, pill, secretDialog, selected, statePill } from '../components.js';
import { type Html, html } from '../html.js';
import { action, type PageContext, page, seeOther, type WebKit } from '../kit.js';
import { connectionTree } from './connection-tree.js';

const DIALOG = 'secret-dialog';

/**
 * Whether a provider connects through the upstream OAuth flow, its tokens the user's connection:
 * an upstream MCP source's (`mcp.<source id>`) or a plugin's own OAuth provider (`@<id>`).
 */
function connectsAsUpstream(key: string): boolean {
  return key.startsWith(UPSTREAM_PREFIX) || key.startsWith(PLUGIN_OAUTH_PREFIX);
}
/** The provider id of an upstream MCP source's OAuth connection: `mcp.<source id>`. */
const UPSTREAM_PREFIX = 'mcp.';

const STATE_HELP: Record<ProviderStatus['state'], string> = {
  you: 'Your tools use your own credential.',
  team: 'An admin connected it for everyone. Add your own to use yours instead.',
  server: 'The server’s own key serves it. Add your own to use yours instead.',
  reconnect: 'Tools that need it cannot run until you reconnect it.',
  none: 'Tools that need it cannot run until it is connected.',
};

function stateHelp(provider: ProviderStatus): string {
  if (provider.state === 'you' && provider.source === 'oauth')
    return `Your linked ${provider.name} account serves it.`;
  return STATE_HELP[provider.state];
}

function opener(provider: ProviderStatus, label: string, primary: boolean): Html {
  const kind = provider.type === 'oauth2' ? 'Token' : 'API key';
  const first = provider.connections.length === 0;
  return html`<button type="button" class="${primary ? '' : 'secondary'}" data-dialog="${DIALOG}" data-field-tool-id="${provider.id}" data-field-instance-name="${first ? 'Default' : ''}" data-slot-title="${first ? `Connect ${provider.name}` : `Add a ${provider.name} instance`}" data-slot-subtitle="${kind} for ${provider.name}">${label}</button>`;
}

function oauthActions(provider: ProviderStatus): Html {
  const oauth = provider.oauth;
  if (oauth === null) return html``;
  if (!oauth.configured) {
    return html`<p class="muted small">${provider.name} sign-in is not set up on this server; you can paste a token instead.</p>`;
  }
  const connect = `/tools/oauth/${encodeURIComponent(provider.upstream)}/connect`;
  if (connectsAsUpstream(provider.upstream)) {
    // Its tokens are a connection (listed above with Disconnect), not a linked account.
    if (oauth.needsReconnect) {
      return html`<p class="notice error small" role="status" data-reconnect="${provider.upstream}">The upstream refused your token (revoked or expired), so its tools cannot run as you. Reconnect to sign in there again.</p>
<form method="post" action="${connect}"><button type="submit">Reconnect ${provider.name}</button></form>`;
    }
    if (oauth.moreScope !== undefined && oauth.linked) {
      return html`<p class="notice small" role="status" data-more-scope="${provider.upstream}">A tool of this source needs more access than your connection grants (${oauth.moreScope}). Reconnect to grant it; your other tools keep working meanwhile.</p>
<form method="post" action="${connect}"><button type="submit">Reconnect ${provider.name}</button></form>`;
    }
    return html`<form method="post" action="${connect}"><button type="submit" class="${oauth.linked ? 'secondary' : ''}">${oauth.linked ? 'Reconnect' : 'Connect'} ${provider.name}</button></form>`;
  }
  if (oauth.linked) {
    const disconnect = confirmForm({
      action: `/tools/oauth/${encodeURIComponent(provider.upstream)}/disconnect`,
      question: `Disconnect your ${provider.name} account? Tools that use it stop working until you connect again.`,
      label: `Disconnect ${provider.name} account`,
      confirmLabel: 'Disconnect',
    });
    // The words a tool answers with when the account fails name this button
    // (vending/token-vendor.ts): "Reconnect it in the Tools tab".
    if (oauth.needsReconnect) {
      return html`<p class="notice error small" role="status" data-reconnect="${provider.upstream}">${provider.name} refused to renew your sign-in (it was revoked or has expired), so your tools cannot use it. Reconnect to sign in at ${provider.name} again.</p>
<form method="post" action="${connect}"><button type="submit">Reconnect ${provider.name}</button></form>
${disconnect}`;
    }
    return html`<p class="small">Your ${provider.name} account is linked.</p>
<form method="post" action="${connect}"><button type="submit" class="secondary">Reconnect ${provider.name}</button></form>
${disconnect}`;
  }
  return html`<form method="post" action="${connect}"><button type="submit">Connect ${provider.name}</button></form>`;
}

function providerBlock(provider: ProviderStatus): Html {
  const kind = provider.type === 'oauth2' ? 'OAuth' : 'API key';
  const tree = connectionTree(provider.connections, {
    toolId: provider.id,
    providerName: provider.name,
    deleteAction: (id) => `/tools/connections/${encodeURIComponent(id)}/delete`,
    addDialog: DIALOG,
  });
  const hasOwn = provider.connections.length > 0;
  const keyButton =
    provider.type === 'api_key'
      ? opener(
          provider,
          hasOwn ? 'Add instance' : provider.state === 'none' ? 'Connect' : 'Use your own key',
          !hasOwn,
        )
      : opener(provider, hasOwn ? 'Add token' : 'Use a token instead', false);
  return html`<div class="provider" id="provider-${provider.id}" data-provider="${provider.id}">
<div class="provider-head"><h3>${provider.name} <span class="provider-kind">· ${kind}</span></h3>${statePill(provider.state)}</div>
<p class="muted small">${stateHelp(provider)}</p>
${tree}
<div class="actions">${oauthActions(provider)}${keyButton}</div>
</div>`;
}

/** Which credentials a tool may obtain: its plugin's declared providers, and no other. */
function allowedProviders(ids: readonly string[]): Html {
  if (ids.length === 0) {
    return html`<p class="small muted" data-allowed-providers="">May use no credentials.</p>`;
  }
  return html`<p class="small muted" data-allowed-providers="${ids.join(' ')}">May use credentials of ${ids.map(
    (id, index) => html`${index === 0 ? '' : ', '}<code>${id}</code>`,
  )} only.</p>`;
}

/** The states a plugin's providers are in, for the state filter ("none-needed": no provider). */
function statesOf(plugin: ToolStatus['plugins'][number]): string[] {
  return plugin.providers.length === 0
    ? ['none-needed']
    : [...new Set(plugin.providers.map((provider) => provider.state))];
}

function pluginCard(plugin: ToolStatus['plugins'][number]): Html {
  return html`<section class="card" aria-labelledby="plugin-${plugin.id}" data-plugin="${plugin.id}" data-filter-group data-states="${statesOf(plugin).join(' ')}">
<div class="plugin-head"><h2 id="plugin-${plugin.id}">${plugin.name}</h2><p class="muted">${plugin.description}</p></div>
${
  plugin.providers.length === 0
    ? html`<p class="small">${pill('No credentials needed', 'ok')}</p>`
    : plugin.providers.map(providerBlock)
}
<ul class="tools" aria-label="Tools of ${plugin.name}">${plugin.tools.map(
    (
      tool,
    ) => html`<li data-tool="${tool.path}" data-filter-text="${`${tool.name} ${tool.path} ${plugin.id} ${plugin.name}`.toLowerCase()}">
<div class="tool-title"><strong>${tool.name}</strong> <code>${tool.path}</code>${tool.destructive ? html` ${pill('Asks first', 'warn')}` : ''} <a class="button secondary small" href="/tools/explain?tool=${encodeURIComponent(tool.path)}" aria-label="Explain ${tool.path}">Explain</a></div>
<p class="muted small">${tool.description}</p>
${allowedProviders(tool.allowedProviders)}
</li>`,
  )}</ul>
</section>`;
}

const STATE_FILTERS = [
  ['', 'Any state'],
  ['you', 'Connected by you'],
  ['team', 'Connected by your team'],
  ['server', 'Connected by a server key'],
  ['reconnect', 'Needs reconnecting'],
  ['none', 'Not connected'],
  ['none-needed', 'No credentials needed'],
] as const;

/** The plugins with the tools matching `q` (name, path, namespace), whose providers are in `state`. */
function filterPlugins(
  plugins: ToolStatus['plugins'],
  q: string,
  state: string,
): ToolStatus['plugins'] {
  const needle = q.toLowerCase();
  return plugins.flatMap((plugin) => {
    if (state !== '' && !statesOf(plugin).includes(state)) return [];
    const tools = plugin.tools.filter((tool) =>
      `${tool.name} ${tool.path} ${plugin.id} ${plugin.name}`.toLowerCase().includes(needle),
    );
    return tools.length === 0 && (needle !== '' || plugin.tools.length > 0)
      ? []
      : [{ ...plugin, tools }];
  });
}

/**
 * Search and the connection-state filter: a GET form that works without the script; with it,
 * the list narrows as one types (`data-filter`), announcing how many tools match.
 */
function toolFilterForm(q: string, state: string, plugins: ToolStatus['plugins']): Html {
  const count = plugins.reduce((sum, plugin) => sum + plugin.tools.length, 0);
  return html`<form class="card filters" method="get" action="/tools" role="search" aria-label="Search tools" data-filter-form>
<div><label for="tool-search">Search tools<span class="hint">By name, path or namespace</span></label>
<input id="tool-search" name="q" type="search" maxlength="200" value="${q}" autocomplete="off" spellcheck="false" data-filter aria-controls="tool-count"></div>
<div><label for="tool-state">Connection</label>
<select id="tool-state" name="state" data-filter-state>${STATE_FILTERS.map(
    ([value, label]) =>
      html`<option value="${value}"${selected(value === state)}>${label}</option>`,
  )}</select></div>
<div class="actions"><button type="submit" class="secondary">Filter</button>
<p class="small muted" id="tool-count" role="status" data-filter-count>${count} tool${count === 1 ? '' : 's'}</p></div>
</form>`;
}

/**
 * The Tools tab: every tool the viewer's role allows, grouped by plugin, with each provider's
 * state and the ways to connect it (the OAuth link flow, or the API-key dialog), nested
 * instances, and Disconnect.
 */
export function mountToolsPage(kit: WebKit): void {
  const { app } = kit;
  app.get('/tools', page(kit, toolsPage));
  app.post('/tools/connections', action(kit, '/tools', saveConnection));
  app.post('/tools/connections/:id/delete', action(kit, '/tools', disconnect));
  app.post('/tools/oauth/:provider/connect', action(kit, '/tools', connectProvider));
  app.post('/tools/oauth/:provider/disconnect', action(kit, '/tools', unlinkProvider));
}

/** `GET /tools`: the viewer's tools by plugin, filtered, with what a connect just did. */
async function toolsPage(ctx: PageContext): Promise<Response> {
  const { services } = ctx;
  const status = await ctx.api.get(
    withQuery('/api/tools/status', { userId: ctx.viewer.id }),
    toolStatusSchema,
  );
  const connected = ctx.c.req.query('connected');
  const connectedName =
    services.auth.providers.find((p) => p.id === connected)?.name ??
    (connected?.startsWith(UPSTREAM_PREFIX) &&
    (await services.upstreamOAuth.isOAuthSource(connected.slice(UPSTREAM_PREFIX.length)))
      ? `The upstream MCP server ${connected.slice(UPSTREAM_PREFIX.length)}`
      : connected !== undefined &&
          (await services.upstreamOAuth.isOAuthSource(pluginOAuthKey(connected)))
        ? connected
        : undefined);
  const error = ctx.c.req.query('error');
  const q = (ctx.c.req.query('q') ?? '').trim().slice(0, 200);
  const state = ctx.c.req.query('state') ?? '';
  const plugins = filterPlugins(status.plugins, q, state);
  const notices = html`${connectedName === undefined ? '' : html`<p class="notice ok" role="status">${connectedName} connected.</p>`}${
    error === undefined
      ? ''
      : html`<p class="notice error" role="alert">${oauthErrorText(error)}</p>`
  }`;
  const body = html`<div class="page-head"><div><h1>Tools</h1>
<p class="lead">Every tool your role <code>${status.roleId}</code> allows, grouped by plugin, and who connects what it needs.</p></div></div>
${notices}
${
  status.plugins.length === 0
    ? html`<div class="card"><p class="empty">Your role allows no tools yet. Ask an admin to add tool patterns to the <code>${status.roleId}</code> role.</p></div>`
    : html`${toolFilterForm(q, state, plugins)}${
        plugins.length === 0
          ? html`<div class="card"><p class="empty">No tool matches.</p></div>`
          : plugins.map(pluginCard)
      }`
}
${secretDialog({
  id: DIALOG,
  action: '/tools/connections',
  fields: ['toolId', 'parentId'],
  note: 'Stored encrypted. After saving, only its last four characters are ever shown.',
})}`;
  return ctx.render({ title: 'Tools', active: 'tools', body });
}

/** `POST /tools/connections`: stores an API key (or a nested instance) as the user's connection. */
async function saveConnection(ctx: PageContext, form: Record<string, string>): Promise<Response> {
  const toolId = form.toolId ?? '';
  const created = await ctx.api.send(
    'POST',
    '/api/connections',
    {
      userId: ctx.viewer.id,
      toolId,
      instanceName: form.instanceName?.trim() ?? '',
      secret: form.secret ?? '',
      ...(form.parentId ? { parentId: form.parentId } : {}),
    },
    connectionCreatedSchema,
  );
  return seeOther(ctx.c, `/tools#provider-${encodeURIComponent(toolId)}`, {
    kind: 'ok',
    text: `Saved “${created.instanceName}” (${created.maskedSecret}).`,
  });
}

/** `POST /tools/connections/:id/delete`: removes a connection and the instances nested in it. */
async function disconnect(ctx: PageContext): Promise<Response> {
  const id = ctx.c.req.param('id') ?? '';
  const { deleted } = await ctx.api.send(
    'DELETE',
    withQuery(`/api/connections/${encodeURIComponent(id)}`, { userId: ctx.viewer.id }),
    undefined,
    deletedSchema,
  );
  const nested = deleted.length - 1;
  return seeOther(ctx.c, '/tools', {
    kind: 'ok',
    text:
      nested > 0
        ? `Disconnected, with ${nested} nested instance${nested === 1 ? '' : 's'}.`
        : 'Disconnected.',
  });
}

/** `POST /tools/oauth/:provider/connect`: starts linking the user's account at a provider or an upstream. */
async function connectProvider(ctx: PageContext): Promise<Response> {
  const { services } = ctx;
  const param = ctx.c.req.param('provider') ?? '';
  if (connectsAsUpstream(param)) return connectUpstream(ctx, param);
  const provider = services.auth.providers.find((p) => p.id === param);
  if (provider === undefined) {
    return seeOther(ctx.c, '/tools', {
      kind: 'error',
      text: 'That provider is not set up on this server.',
    });
  }
  const started = await startProviderLink(ctx.c, services, provider.id, {
    callbackURL: `${services.baseUrl}/tools?connected=${encodeURIComponent(provider.id)}`,
    errorCallbackURL: `${services.baseUrl}/tools`,
  });
  if ('error' in started) {
    return seeOther(ctx.c, '/tools', {
      kind: 'error',
      text:
        started.error === 'rate_limited'
          ? 'Too many attempts; wait a minute and try again.'
          : started.error === 'provider_unavailable'
            ? `${provider.name} cannot be reached right now, so connecting it cannot start. Try again in a minute.`
            : `Could not start connecting ${provider.name}.`,
    });
  }
  for (const cookie of started.cookies ?? []) {
    ctx.c.header('Set-Cookie', cookie, { append: true });
  }
  ctx.c.header('Cache-Control', 'no-store');
  return ctx.c.redirect(started.url, 303);
}

/** `POST /tools/oauth/:provider/disconnect`: unlinks the user's account at a sign-in provider. */
async function unlinkProvider(ctx: PageContext): Promise<Response> {
  const { services } = ctx;
  const provider = services.auth.providers.find((p) => p.id === ctx.c.req.param('provider'));
  if (provider === undefined) {
    return seeOther(ctx.c, '/tools', {
      kind: 'error',
      text: 'That provider is not set up on this server.',
    });
  }
  const accountId = await findLinkedAccountId(services.database.db, ctx.viewer.id, provider.id);
  if (accountId === undefined) {
    return seeOther(ctx.c, '/tools', {
      kind: 'info',
      text: `Your ${provider.name} account is not linked.`,
    });
  }
  const result = await callAuth(ctx.c, services, '/unlink-account', { accountId });
  if (result.status >= 200 && result.status < 300) {
    return seeOther(ctx.c, '/tools', {
      kind: 'ok',
      text: `${provider.name} account disconnected.`,
    });
  }
  const error = z.object({ error: z.object({ message: z.string() }) }).safeParse(result.json);
  return seeOther(ctx.c, '/tools', {
    kind: 'error',
    text: error.success ? error.data.error.message : `Could not disconnect ${provider.name}.`,
  });
}

/**
 * Starts the signed-in user's OAuth connect to an upstream MCP source (`mcp.<source id>`) or a
 * plugin's own OAuth provider (`@<id>`): to its authorization server, back at the gateway's
 * callback, then the Tools tab.
 */
async function connectUpstream(ctx: PageContext, provider: string): Promise<Response> {
  // `@<id>`, a plugin's own OAuth provider, is its own key in the upstream OAuth flow.
  const sourceId = provider.startsWith(UPSTREAM_PREFIX)
    ? provider.slice(UPSTREAM_PREFIX.length)
    : provider;
  const started = await startUpstreamConnect(ctx.services.upstreamOAuth, {
    userId: ctx.viewer.id,
    sourceId,
    returnTo: { kind: 'web' },
  });
  if ('error' in started) {
    return seeOther(ctx.c, '/tools', {
      kind: 'error',
      text: `Connecting ${sourceId} could not start: ${started.message ?? started.error}`,
    });
  }
  ctx.c.header('Cache-Control', 'no-store');
  return ctx.c.redirect(started.url, 303);
}
