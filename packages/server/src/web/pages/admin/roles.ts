import type { Role } from '@gateway/sdk/kernel';
import { ADMIN_ROLE_ID } from '../../../identity/index.js';
import {
  roleCreatedSchema,
  roleDeletedSchema,
  roleListSchema,
  roleUpdatedSchema,
} from '../../../policy/schemas.js';
import type { PluginCatalog } from '../../../registry/plugin-catalog.js';
import { previewPatterns } from '../../../role-preview/index.js';
import type { Preview } from '../../../role-preview/schemas.js';
import { userListSchema } from '../../../users/index.js';
import { confirmForm, pill } from '../../components.js';
import { type Html, html } from '../../html.js';
import { action, type PageContext, page, seeOther, type WebKit } from '../../kit.js';
import { adminHead } from './admin-nav.js';

/** The patterns of a textarea: one a line, blanks dropped. */
export function patternLines(text: string | undefined): string[] {
  return (text ?? '')
    .split(/\r?\n/)
    .map((line) => line.trim())
    .filter((line) => line !== '');
}

/**
 * The live preview of patterns (filled again by the client script as they are typed). For an MCP
 * endpoint (`endpoint`), the tools are the user's role's, and a valid pattern matching none of them
 * is said to match nothing today.
 */
export function previewBlock(id: string, preview: Preview, endpoint = false): Html {
  const problems = preview.patterns.flatMap((entry, index) => {
    const problem =
      entry.problem ?? (endpoint && entry.matches === 0 ? 'matches nothing today' : null);
    return problem === null ? [] : [{ line: index + 1, pattern: entry.pattern, problem }];
  });
  const tools = `${preview.totalTools} tool${preview.totalTools === 1 ? '' : 's'}`;
  const summary = !endpoint
    ? `Matches ${preview.tools.length} of ${tools}`
    : preview.patterns.length === 0
      ? `Serves all ${tools} of your role`
      : `Serves ${preview.tools.length} of ${tools} of your role`;
  return html`<div class="preview" id="${id}">
<p class="small" data-preview-summary aria-live="polite">${summary}</p>
<ul class="problems small" data-preview-problems${problems.length === 0 ? html` hidden` : ''}>${problems.map(
    (problem) => html`<li>Line ${problem.line} (${problem.pattern}): ${problem.problem}</li>`,
  )}</ul>
<details><summary class="small">Matching tools</summary>
<ul class="small" data-preview-tools>${preview.tools.map(
    (tool) => html`<li><code>${tool.path}</code> ${tool.name}</li>`,
  )}</ul></details>
</div>`;
}

function patternsField(idPrefix: string, patterns: readonly string[], preview: Preview): Html {
  return html`<label for="${idPrefix}-patterns">Tool patterns<span class="hint">One per line. <code>*</code> matches one path segment, <code>**</code> one or more: <code>notes.**</code>, <code>github.repos.*</code>, <code>**</code> for every tool.</span></label>
<textarea id="${idPrefix}-patterns" name="patterns" spellcheck="false" autocomplete="off" data-preview="${idPrefix}-preview">${patterns.join('\n')}</textarea>
${previewBlock(`${idPrefix}-preview`, preview)}`;
}

function roleCard(
  role: Role,
  users: number,
  services: { defaultRoleId: string; plugins: PluginCatalog },
): Html {
  const prefix = `role-${role.id}`;
  const fixed =
    role.id === ADMIN_ROLE_ID
      ? 'The admin role makes its holders admins; it cannot be deleted.'
      : role.id === services.defaultRoleId
        ? 'The default role of users with none assigned (GATEWAY_DEFAULT_ROLE); it cannot be deleted.'
        : undefined;
  return html`<section class="card" id="${prefix}" data-role="${role.id}" aria-labelledby="${prefix}-title">
<div class="provider-head"><h2 id="${prefix}-title">${role.name} <code>${role.id}</code></h2>
<span>${role.id === services.defaultRoleId ? pill('default', 'info') : ''} <span class="muted small">${users} user${users === 1 ? '' : 's'}</span></span></div>
<form method="post" action="/admin/roles/${encodeURIComponent(role.id)}">
<label for="${prefix}-name">Name</label>
<input id="${prefix}-name" name="name" type="text" required maxlength="100" value="${role.name}">
${patternsField(prefix, role.patterns, previewPatterns(role.patterns, services.plugins.tools()))}
<div class="actions"><button type="submit">Save ${role.name}</button></div>
</form>
${
  fixed === undefined
    ? html`<div class="actions">${confirmForm({
        action: `/admin/roles/${encodeURIComponent(role.id)}/delete`,
        question: `Delete the role “${role.name}”? Its ${users} user${users === 1 ? '' : 's'} fall back to the default role.`,
        label: 'Delete role',
        accessibleName: `Delete role ${role.name}`,
      })}</div>`
    : html`<p class="muted small">${fixed}</p>`
}
</section>`;
}

/**
 * Roles: edit a role's name and patterns with a live preview of the tools they match (the
 * preview route compiles them with the sdk's matcher), create and delete roles.
 */
export function mountRolesPage(kit: WebKit): void {
  const { app } = kit;
  app.get('/admin/roles', page(kit, rolesPage, { admin: true }));
  app.post('/admin/roles', action(kit, '/admin/roles', createRole, { admin: true }));
  app.post('/admin/roles/:id', action(kit, '/admin/roles', saveRole, { admin: true }));
  app.post('/admin/roles/:id/delete', action(kit, '/admin/roles', deleteRole, { admin: true }));
}

/** `GET /admin/roles`: a card per role, with its users' count, and the new role form. */
async function rolesPage(ctx: PageContext): Promise<Response> {
  const { services } = ctx;
  const [{ roles }, { users }] = await Promise.all([
    ctx.api.get('/api/policy/roles', roleListSchema),
    ctx.api.get('/api/users', userListSchema),
  ]);
  const count = (roleId: string) => users.filter((user) => user.roleId === roleId).length;
  const body = html`${adminHead('roles', 'Roles decide which tools their users see and call.')}
${roles.map((role) => roleCard(role, count(role.id), services))}
<section class="card" aria-labelledby="new-role-title">
<h2 id="new-role-title">New role</h2>
<form method="post" action="/admin/roles">
<label for="new-role-id">Id<span class="hint">Lowercase letters, digits, _ and -; starts with a letter</span></label>
<input id="new-role-id" name="id" type="text" required maxlength="64" pattern="[a-z][a-z0-9_\\-]{0,63}" autocomplete="off">
<label for="new-role-name">Name</label>
<input id="new-role-name" name="name" type="text" required maxlength="100" autocomplete="off">
${patternsField('new-role', [], previewPatterns([], services.plugins.tools()))}
<div class="actions"><button type="submit">Create role</button></div>
</form>
</section>`;
  return ctx.render({ title: 'Roles', active: 'admin', body });
}

/** `POST /admin/roles`: creates a role. */
async function createRole(ctx: PageContext, form: Record<string, string>): Promise<Response> {
  const { created } = await ctx.api.send(
    'POST',
    '/api/policy/roles',
    {
      id: form.id?.trim() ?? '',
      name: form.name ?? '',
      patterns: patternLines(form.patterns),
    },
    roleCreatedSchema,
  );
  return seeOther(ctx.c, `/admin/roles#role-${created.id}`, {
    kind: 'ok',
    text: `Role “${created.name}” created.`,
  });
}

/** `POST /admin/roles/:id`: saves a role's name and patterns. */
async function saveRole(ctx: PageContext, form: Record<string, string>): Promise<Response> {
  const id = ctx.c.req.param('id') ?? '';
  const { updated } = await ctx.api.send(
    'PUT',
    `/api/policy/roles/${encodeURIComponent(id)}`,
    { id, name: form.name ?? '', patterns: patternLines(form.patterns) },
    roleUpdatedSchema,
  );
  return seeOther(ctx.c, `/admin/roles#role-${updated.id}`, {
    kind: 'ok',
    text: `Role “${updated.name}” saved: ${updated.patterns.length} pattern${updated.patterns.length === 1 ? '' : 's'}.`,
  });
}

/** `POST /admin/roles/:id/delete`: deletes a role; its users fall back to the default role. */
async function deleteRole(ctx: PageContext): Promise<Response> {
  const id = ctx.c.req.param('id') ?? '';
  await ctx.api.send(
    'DELETE',
    `/api/policy/roles/${encodeURIComponent(id)}`,
    undefined,
    roleDeletedSchema,
  );
  return seeOther(ctx.c, '/admin/roles', { kind: 'ok', text: `Role “${id}” deleted.` });
}
