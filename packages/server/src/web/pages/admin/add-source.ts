import { sourceRegisteredSchema } from '../../../registry/schemas.js';
import { type Html, html } from '../../html.js';
import { action, seeOther, type WebKit } from '../../kit.js';

/** Which tools ask before running, as the form offers the modes (docs/federation.md). */
export const APPROVAL_CHOICES: readonly { mode: string; label: string }[] = [
  {
    mode: 'hints',
    label:
      'By its annotations: every tool asks unless the upstream says it is read-only or not destructive (MCP’s defaults)',
  },
  { mode: 'all', label: 'Every tool asks' },
  { mode: 'listed', label: 'Only the tools ticked in its settings ask' },
];

/** Radio buttons for the approval mode, `current` checked; ids start with `prefix`. */
export function approvalChoices(prefix: string, current: string): Html {
  return html`${APPROVAL_CHOICES.map(
    ({ mode, label }) =>
      html`<label class="check" for="${prefix}-approval-${mode}"><input type="radio" id="${prefix}-approval-${mode}" name="approval" value="${mode}"${mode === current ? html` checked` : ''}><span><code>${mode}</code>: ${label}</span></label>`,
  )}`;
}

/**
 * The "Add an MCP server" card of the Sources page: its URL, namespace, how the gateway
 * authenticates to it and which tools ask before running. Sent to `POST /api/registry/sources`,
 * which fetches its tool list before it answers.
 */
export function addSourceCard(): Html {
  return html`<section class="card" id="add-source" aria-labelledby="add-source-title">
<h2 id="add-source-title">Add an MCP server</h2>
<p class="muted small">An upstream MCP server reached over Streamable HTTP; its tools are served as <code>&lt;namespace&gt;.&lt;tool&gt;</code>. The gateway fetches its tool list first and adds nothing when it cannot. A server started as a program (stdio) is named in the gateway's config file instead.</p>
<form method="post" action="/admin/sources/add">
<label for="add-source-url">URL<span class="hint">Its Streamable HTTP endpoint, http(s)</span></label>
<input id="add-source-url" name="url" type="url" required maxlength="2048" autocomplete="off" placeholder="https://mcp.example.com/mcp">
<label for="add-source-namespace">Namespace<span class="hint">a-z, 0-9 and _; its tools are served as &lt;namespace&gt;.&lt;tool&gt;</span></label>
<input id="add-source-namespace" name="namespace" type="text" required maxlength="64" pattern="[a-z][a-z0-9_]*" autocomplete="off" placeholder="example">
<label for="add-source-id">Source id<span class="hint">Optional: the namespace, with - for _</span></label>
<input id="add-source-id" name="id" type="text" maxlength="64" autocomplete="off">
<fieldset>
<legend>Authentication</legend>
<label class="check" for="add-source-auth-none"><input type="radio" id="add-source-auth-none" name="authKind" value="none" checked><span>None</span></label>
<label class="check" for="add-source-auth-header"><input type="radio" id="add-source-auth-header" name="authKind" value="header"><span>A credential in a header: each calling user's own for the provider below, else the team's, else the server key</span></label>
<label for="add-source-provider">Provider<span class="hint">With a header credential: the provider users connect (Tools tab, <code>gateway connect</code>)</span></label>
<input id="add-source-provider" name="provider" type="text" maxlength="64" autocomplete="off" placeholder="acme">
<label for="add-source-header">Header</label>
<input id="add-source-header" name="header" type="text" maxlength="100" autocomplete="off" value="Authorization">
<label for="add-source-scheme">Scheme<span class="hint">Put before the credential; empty for none</span></label>
<input id="add-source-scheme" name="scheme" type="text" maxlength="40" autocomplete="off" value="Bearer">
<label class="check" for="add-source-auth-oauth"><input type="radio" id="add-source-auth-oauth" name="authKind" value="oauth"><span>OAuth: each user connects their own account at the server</span></label>
<label for="add-source-client-id">OAuth client id<span class="hint">Optional: a client registered there beforehand (else the gateway registers one)</span></label>
<input id="add-source-client-id" name="clientId" type="text" maxlength="200" autocomplete="off">
</fieldset>
<fieldset>
<legend>Ask before running</legend>
${approvalChoices('add-source', 'hints')}
</fieldset>
<div class="actions"><button type="submit">Add MCP server</button></div>
</form>
</section>`;
}

/** `value` trimmed, undefined when blank. */
function given(value: string | undefined): string | undefined {
  const trimmed = value?.trim();
  return trimmed === undefined || trimmed === '' ? undefined : trimmed;
}

/** The registration the form asks for; the API validates every field. */
function registration(form: Record<string, string>): Record<string, unknown> {
  const namespace = given(form.namespace) ?? '';
  const kind = form.authKind ?? 'none';
  const clientId = given(form.clientId);
  const scheme = given(form.scheme);
  const auth =
    kind === 'header'
      ? {
          kind: 'header',
          provider: given(form.provider) ?? '',
          header: given(form.header) ?? 'Authorization',
          ...(scheme === undefined ? {} : { scheme }),
        }
      : kind === 'oauth'
        ? { kind: 'oauth', ...(clientId === undefined ? {} : { clientId }) }
        : { kind };
  return {
    type: 'mcp',
    id: given(form.id) ?? namespace.replace(/_/g, '-'),
    namespace,
    url: given(form.url) ?? '',
    auth,
    ...(form.approval === undefined ? {} : { approval: form.approval }),
  };
}

/**
 * `POST /admin/sources/add`: the "Add an MCP server" form, sent to `POST /api/registry/sources`
 * as the admin; back to the Sources page at the new source's settings, or with the API's refusal.
 */
export function mountAddSource(kit: WebKit): void {
  kit.app.post(
    '/admin/sources/add',
    action(
      kit,
      '/admin/sources#add-source',
      async (ctx, form) => {
        const { source, tools } = await ctx.api.send(
          'POST',
          '/api/registry/sources',
          registration(form),
          sourceRegisteredSchema,
        );
        const count = `${tools.length} tool${tools.length === 1 ? '' : 's'}`;
        return seeOther(ctx.c, `/admin/sources#settings-${source.id}`, {
          kind: 'ok',
          text:
            form.authKind === 'oauth' && tools.length === 0
              ? `Source “${source.id}” added: its tools are listed once the first user connects it (Tools tab).`
              : `Source “${source.id}” added: ${count} now live.`,
        });
      },
      { admin: true },
    ),
  );
}
