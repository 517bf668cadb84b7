import type { z } from 'zod';
import { deletedSchema } from '../../../http/common-schemas.js';
import { roleListSchema } from '../../../policy/schemas.js';
import {
  serviceAccountCreatedSchema,
  serviceAccountListSchema,
} from '../../../service-accounts/index.js';
import { userListSchema } from '../../../users/index.js';
import { confirmForm, copyBlock, time } from '../../components.js';
import { html } from '../../html.js';
import { action, type PageContext, page, seeOther, type WebKit } from '../../kit.js';
import { adminHead } from './admin-nav.js';

type Created = z.infer<typeof serviceAccountCreatedSchema>;

async function serviceAccountsPage(ctx: PageContext, created?: Created): Promise<Response> {
  const [{ serviceAccounts }, { roles }, { users }] = await Promise.all([
    ctx.api.get('/api/service-accounts', serviceAccountListSchema),
    ctx.api.get('/api/policy/roles', roleListSchema),
    ctx.api.get('/api/users', userListSchema),
  ]);
  const who = (id: string) => users.find((user) => user.id === id)?.email ?? id;
  const body = html`${adminHead('service-accounts', 'Non-human callers (CI jobs, scripts) with a role and a key of their own. They may call only tools marked for service accounts.')}
${
  created === undefined
    ? ''
    : html`<section class="card secret-once" aria-labelledby="new-key-title">
<h2 id="new-key-title">Service account “${created.name}” created</h2>
<p class="notice info" role="status">Copy the key now: it is shown only this once. Use it as <code>Authorization: Bearer &lt;key&gt;</code>.</p>
${copyBlock('new-key', created.key, 'The new service account key')}
</section>`
}
<div class="grid-2">
<section class="card" aria-labelledby="create-sa-title">
<h2 id="create-sa-title">Create a service account</h2>
<form method="post" action="/admin/service-accounts">
<label for="sa-name">Name<span class="hint">What it is for, e.g. nightly-report</span></label>
<input id="sa-name" name="name" type="text" required maxlength="100" autocomplete="off">
<label for="sa-role">Role</label>
<select id="sa-role" name="roleId" required>${roles.map((role) => html`<option value="${role.id}">${role.name}</option>`)}</select>
<div class="actions"><button type="submit">Create and show key</button></div>
</form>
</section>
<section class="card" aria-labelledby="sa-list-title">
<h2 id="sa-list-title">Service accounts</h2>
${
  serviceAccounts.length === 0
    ? html`<p class="empty">None yet.</p>`
    : html`<div class="table-wrap"><table>
<thead><tr><th scope="col">Name</th><th scope="col">Key</th><th scope="col">Last used</th><th scope="col"><span class="visually-hidden">Actions</span></th></tr></thead>
<tbody>${serviceAccounts.map(
        (account) => html`<tr data-service-account="${account.name}">
<td><strong>${account.name}</strong><br><span class="muted small">Role <code>${account.roleId}</code> · by ${who(account.createdBy)} · ${time(account.createdAt)}</span></td>
<td>${account.maskedKey === null ? html`<span class="muted">revoked</span>` : html`<code>${account.maskedKey}</code>`}</td>
<td>${time(account.lastUsedAt)}</td>
<td>${confirmForm({
          action: `/admin/service-accounts/${encodeURIComponent(account.id)}/delete`,
          question: `Delete the service account “${account.name}”? Its key stops working at once.`,
          label: 'Delete',
          accessibleName: `Delete ${account.name}`,
        })}</td>
</tr>`,
      )}</tbody></table></div>`
}
</section>
</div>`;
  return ctx.render({ title: 'Service accounts', active: 'admin', body }, created ? 201 : 200);
}

/** Service accounts: create one (its key shown once), list, delete. */
export function mountServiceAccountsPage(kit: WebKit): void {
  const { app } = kit;

  app.get(
    '/admin/service-accounts',
    page(kit, (ctx) => serviceAccountsPage(ctx), { admin: true }),
  );

  app.post(
    '/admin/service-accounts',
    action(
      kit,
      '/admin/service-accounts',
      async (ctx, form) => {
        const created = await ctx.api.send(
          'POST',
          '/api/service-accounts',
          { name: form.name ?? '', roleId: form.roleId ?? '' },
          serviceAccountCreatedSchema,
        );
        return serviceAccountsPage(ctx, created);
      },
      { admin: true },
    ),
  );

  app.post(
    '/admin/service-accounts/:id/delete',
    action(
      kit,
      '/admin/service-accounts',
      async (ctx) => {
        await ctx.api.send(
          'DELETE',
          `/api/service-accounts/${encodeURIComponent(ctx.c.req.param('id') ?? '')}`,
          undefined,
          deletedSchema,
        );
        return seeOther(ctx.c, '/admin/service-accounts', {
          kind: 'ok',
          text: 'Service account deleted; its key no longer works.',
        });
      },
      { admin: true },
    ),
  );
}
