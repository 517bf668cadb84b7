import { providerItemSchema, providerListSchema } from '../../../provider-clients/schemas.js';
import { userListSchema } from '../../../users/index.js';
import { confirmForm, copyButton, pill, time } from '../../components.js';
import { html } from '../../html.js';
import { action, type PageContext, page, seeOther, type WebKit } from '../../kit.js';
import { adminHead } from './admin-nav.js';

const PATH = '/admin/providers';

async function providersPage(ctx: PageContext): Promise<Response> {
  const [{ providers }, { users }] = await Promise.all([
    ctx.api.get('/api/providers', providerListSchema),
    ctx.api.get('/api/users', userListSchema),
  ]);
  const who = (id: string) => users.find((user) => user.id === id)?.email ?? id;
  const body = html`${adminHead('providers', 'The OAuth providers plugins bring themselves: give each the client id and secret it issued to this gateway, and users connect it from the Tools tab. Secrets are stored encrypted and never shown again.')}
${
  providers.length === 0
    ? html`<section class="card"><p class="empty">No loaded plugin declares an OAuth provider of its own.</p></section>`
    : providers.map(
        (
          provider,
        ) => html`<section class="card" data-provider="${provider.id}" aria-labelledby="provider-${provider.id}">
<h2 id="provider-${provider.id}">${provider.id} <span class="muted small">from the plugin ${provider.pluginName}</span></h2>
<p>${
          provider.client === 'settings'
            ? html`${pill('Set by the server settings', 'ok')} <span class="muted small"><code>${provider.settings[0]}</code> and <code>${provider.settings[1]}</code> win over a client given here.</span>`
            : provider.client === 'admin'
              ? html`${pill('Set here', 'ok')} <span class="muted small">by ${who(provider.stored?.updatedBy ?? '')} · ${time(provider.stored?.updatedAt)}</span>`
              : pill('Not set up: users cannot connect it yet', 'warn')
        }${provider.client === 'settings' ? '' : html` <span class="muted small">The server settings <code>${provider.settings[0]}</code> and <code>${provider.settings[1]}</code>, when set, win over a client given here.</span>`}</p>
<dl>
<dt>Client id</dt><dd>${provider.clientId === null ? html`<span class="muted">none</span>` : html`<code>${provider.clientId}</code>`}</dd>
<dt>Client secret</dt><dd>${provider.secretSet ? 'set (never shown)' : html`<span class="muted">none</span>`}</dd>
<dt>Redirect URI to register with the provider</dt><dd><code id="callback-${provider.id}">${provider.callbackUrl}</code> ${copyButton(`callback-${provider.id}`)}</dd>
</dl>
<form method="post" action="${PATH}/${encodeURIComponent(provider.id)}">
<label for="client-id-${provider.id}">Client id</label>
<input id="client-id-${provider.id}" name="clientId" type="text" required maxlength="500" autocomplete="off" value="${provider.stored?.clientId ?? ''}">
<label for="client-secret-${provider.id}">Client secret<span class="hint">${provider.stored === null ? 'Stored encrypted, never shown again' : 'Leave empty to keep the stored one'}</span></label>
<input id="client-secret-${provider.id}" name="clientSecret" type="password" maxlength="2000" autocomplete="new-password"${provider.stored === null ? ' required' : ''}>
<div class="actions"><button type="submit">Save client of ${provider.id}</button></div>
</form>
${
  provider.stored === null
    ? ''
    : confirmForm({
        action: `${PATH}/${encodeURIComponent(provider.id)}/delete`,
        question: `Forget the client given to “${provider.id}”? Users cannot connect it again until a client is set (settings excepted).`,
        label: 'Forget client',
        accessibleName: `Forget the client of ${provider.id}`,
      })
}
</section>`,
      )
}`;
  return ctx.render({ title: 'Providers', active: 'admin', body });
}

/** Admin → Providers: the clients of plugins' own OAuth providers, set and forgotten. */
export function mountProvidersPage(kit: WebKit): void {
  const { app } = kit;

  app.get(PATH, page(kit, providersPage, { admin: true }));

  app.post(
    `${PATH}/:id`,
    action(
      kit,
      PATH,
      async (ctx, form) => {
        const id = ctx.c.req.param('id') ?? '';
        const secret = form.clientSecret ?? '';
        await ctx.api.send(
          'PUT',
          `/api/providers/${encodeURIComponent(id)}`,
          { clientId: form.clientId ?? '', ...(secret === '' ? {} : { clientSecret: secret }) },
          providerItemSchema,
        );
        return seeOther(ctx.c, PATH, {
          kind: 'ok',
          text: `The client of ${id} is saved; users can connect it from the Tools tab.`,
        });
      },
      { admin: true },
    ),
  );

  app.post(
    `${PATH}/:id/delete`,
    action(
      kit,
      PATH,
      async (ctx) => {
        const id = ctx.c.req.param('id') ?? '';
        await ctx.api.send(
          'DELETE',
          `/api/providers/${encodeURIComponent(id)}`,
          undefined,
          providerItemSchema,
        );
        return seeOther(ctx.c, PATH, {
          kind: 'ok',
          text: `The client given to ${id} is forgotten.`,
        });
      },
      { admin: true },
    ),
  );
}
