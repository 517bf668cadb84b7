import { roleAssignedSchema, roleListSchema } from '../../../policy/schemas.js';
import { userListSchema } from '../../../users/index.js';
import { selected, time } from '../../components.js';
import { html } from '../../html.js';
import { action, page, seeOther, type WebKit } from '../../kit.js';
import { adminHead } from './admin-nav.js';

/** Users and their roles; an admin assigns a role per user. */
export function mountUsersPage(kit: WebKit): void {
  const { app } = kit;

  app.get(
    '/admin/users',
    page(
      kit,
      async (ctx) => {
        const [{ users }, { roles }] = await Promise.all([
          ctx.api.get('/api/users', userListSchema),
          ctx.api.get('/api/policy/roles', roleListSchema),
        ]);
        const body = html`${adminHead('users', 'Everyone who has signed up, and the role that decides their tools.')}
<section class="card" aria-labelledby="users-title">
<h2 id="users-title" class="visually-hidden">Users</h2>
<div class="table-wrap"><table>
<thead><tr><th scope="col">User</th><th scope="col">Joined</th><th scope="col">Role</th></tr></thead>
<tbody>${users.map(
          (user) => html`<tr data-user="${user.email}">
<td><strong>${user.name}</strong>${user.id === ctx.viewer.id ? html` <span class="muted small">(you)</span>` : ''}<br><span class="muted small">${user.email}</span></td>
<td>${time(user.createdAt)}</td>
<td><form class="inline-form" method="post" action="/admin/users/${encodeURIComponent(user.id)}/role">
<label class="visually-hidden" for="role-of-${user.id}">Role of ${user.email}</label>
<select id="role-of-${user.id}" name="roleId">${roles.map(
            (role) =>
              html`<option value="${role.id}"${selected(role.id === user.roleId)}>${role.name}${role.id === ctx.services.defaultRoleId ? ' (default)' : ''}</option>`,
          )}${
            roles.some((role) => role.id === user.roleId)
              ? ''
              : html`<option value="${user.roleId}" selected disabled>${user.roleId} (missing)</option>`
          }</select>
<button type="submit" class="secondary small" aria-label="Save the role of ${user.email}">Save</button>
</form></td>
</tr>`,
        )}</tbody></table></div>
</section>`;
        return ctx.render({ title: 'Users', active: 'admin', body });
      },
      { admin: true },
    ),
  );

  app.post(
    '/admin/users/:id/role',
    action(
      kit,
      '/admin/users',
      async (ctx, form) => {
        const userId = ctx.c.req.param('id') ?? '';
        const assigned = await ctx.api.send(
          'PUT',
          `/api/policy/users/${encodeURIComponent(userId)}/role`,
          { roleId: form.roleId ?? '' },
          roleAssignedSchema,
        );
        return seeOther(ctx.c, '/admin/users', {
          kind: 'ok',
          text: `Role “${assigned.roleId}” assigned.`,
        });
      },
      { admin: true },
    ),
  );
}
