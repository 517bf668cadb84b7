import type { z } from 'zod';
import { deletedSchema } from '../../../http/common-schemas.js';
import { signupRefusalText } from '../../../invites/index.js';
import { DEFAULT_INVITE_DAYS } from '../../../invites/routes.js';
import { inviteCreatedSchema, inviteListSchema } from '../../../invites/schemas.js';
import { userListSchema } from '../../../users/index.js';
import { confirmForm, copyBlock, pill, time } from '../../components.js';
import { type Html, html } from '../../html.js';
import { action, type PageContext, page, seeOther, type WebKit } from '../../kit.js';
import { adminHead } from './admin-nav.js';

type Created = z.infer<typeof inviteCreatedSchema>;
type Status = Created['invite']['status'];

const TONE: Record<Status, 'ok' | 'info' | 'neutral' | 'danger'> = {
  pending: 'info',
  used: 'ok',
  expired: 'neutral',
  revoked: 'danger',
};

function policyNote(ctx: PageContext): Html {
  const { mode, emailDomains } = ctx.services.signup;
  const domains =
    emailDomains === undefined
      ? ''
      : ` ${signupRefusalText(ctx.services.signup, 'signup_email_domain')}.`;
  if (mode === 'closed') {
    return html`<p class="notice error" role="status">Sign-up is closed (<code>GATEWAY_SIGNUP=closed</code>): invites cannot be used. Set <code>GATEWAY_SIGNUP=invite</code> to invite people.</p>`;
  }
  return mode === 'invite'
    ? html`<p class="notice info" role="status">Sign-up needs an invite (<code>GATEWAY_SIGNUP=invite</code>).${domains}</p>`
    : html`<p class="notice info" role="status">Sign-up is open to anyone (<code>GATEWAY_SIGNUP=open</code>); an invite is not needed.${domains}</p>`;
}

async function invitesPage(ctx: PageContext, created?: Created): Promise<Response> {
  const [{ invites }, { users }] = await Promise.all([
    ctx.api.get('/api/invites', inviteListSchema),
    ctx.api.get('/api/users', userListSchema),
  ]);
  const who = (id: string | null) =>
    id === null ? '' : (users.find((user) => user.id === id)?.email ?? id);
  const closed = ctx.services.signup.mode === 'closed';
  const body = html`${adminHead('invites', 'Single-use sign-up links. Each lets one person create an account; bound to an email, only that address.')}
${policyNote(ctx)}
${
  created === undefined
    ? ''
    : html`<section class="card secret-once" aria-labelledby="new-invite-title">
<h2 id="new-invite-title">Invite created${created.invite.email === null ? '' : html` for ${created.invite.email}`}</h2>
<p class="notice info" role="status">Copy the link now: it is shown only this once. It works once, until ${time(created.invite.expiresAt)}.</p>
${copyBlock('new-invite', created.url, 'The new invite link')}
</section>`
}
<div class="grid-2">
${
  closed
    ? ''
    : html`<section class="card" aria-labelledby="create-invite-title">
<h2 id="create-invite-title">Create an invite</h2>
<form method="post" action="/admin/invites">
<label for="invite-email">Email<span class="hint">Optional: only this address may use the link</span></label>
<input id="invite-email" name="email" type="email" maxlength="254" autocomplete="off">
<label for="invite-days">Valid for (days)<span class="hint">1 to 90</span></label>
<input id="invite-days" name="days" type="number" min="1" max="90" step="1" required value="${String(DEFAULT_INVITE_DAYS)}">
<div class="actions"><button type="submit">Create and show link</button></div>
</form>
</section>`
}
<section class="card" aria-labelledby="invite-list-title">
<h2 id="invite-list-title">Invites</h2>
${
  invites.length === 0
    ? html`<p class="empty">None yet.</p>`
    : html`<div class="table-wrap"><table>
<thead><tr><th scope="col">For</th><th scope="col">Status</th><th scope="col">Expires</th><th scope="col"><span class="visually-hidden">Actions</span></th></tr></thead>
<tbody>${invites.map(
        (invite) => html`<tr data-invite="${invite.id}">
<td><strong>${invite.email ?? 'anyone'}</strong><br><span class="muted small">by ${who(invite.createdBy)} · ${time(invite.createdAt)}${invite.usedBy === null ? '' : html` · used by ${who(invite.usedBy)}`}</span></td>
<td>${pill(invite.status, TONE[invite.status])}</td>
<td>${time(invite.expiresAt)}</td>
<td>${
          invite.status === 'pending' || invite.status === 'expired'
            ? confirmForm({
                action: `/admin/invites/${encodeURIComponent(invite.id)}/revoke`,
                question: `Revoke the invite for ${invite.email ?? 'anyone'}? Its link stops working at once.`,
                label: 'Revoke',
                accessibleName: `Revoke the invite for ${invite.email ?? 'anyone'}`,
              })
            : ''
        }</td>
</tr>`,
      )}</tbody></table></div>`
}
</section>
</div>`;
  return ctx.render({ title: 'Invites', active: 'admin', body }, created ? 201 : 200);
}

/** Invites: create one (its link shown once), list, revoke. */
export function mountInvitesPage(kit: WebKit): void {
  const { app } = kit;

  app.get(
    '/admin/invites',
    page(kit, (ctx) => invitesPage(ctx), { admin: true }),
  );

  app.post(
    '/admin/invites',
    action(
      kit,
      '/admin/invites',
      async (ctx, form) => {
        const email = form.email?.trim() ?? '';
        const days = Number(form.days ?? DEFAULT_INVITE_DAYS);
        const created = await ctx.api.send(
          'POST',
          '/api/invites',
          {
            ...(email === '' ? {} : { email }),
            // A non-number goes through as given, for the API to refuse in words.
            expiresInDays: Number.isFinite(days) ? days : (form.days ?? ''),
          },
          inviteCreatedSchema,
        );
        return invitesPage(ctx, created);
      },
      { admin: true },
    ),
  );

  app.post(
    '/admin/invites/:id/revoke',
    action(
      kit,
      '/admin/invites',
      async (ctx) => {
        await ctx.api.send(
          'DELETE',
          `/api/invites/${encodeURIComponent(ctx.c.req.param('id') ?? '')}`,
          undefined,
          deletedSchema,
        );
        return seeOther(ctx.c, '/admin/invites', {
          kind: 'ok',
          text: 'Invite revoked; its link no longer works.',
        });
      },
      { admin: true },
    ),
  );
}
