import type { z } from 'zod';
import { sourceListSchema, sourceUpdatedSchema } from '../../../registry/schemas.js';
import { type Html, html } from '../../html.js';
import { action, readFormValues, seeOther, type WebKit } from '../../kit.js';
import { approvalChoices } from './add-source.js';

type ListedSource = z.infer<typeof sourceListSchema>['sources'][number];

/** The settings an admin changes on an upstream MCP source (`PATCH /api/registry/sources/:id`). */
interface Settings {
  approvalRequired: readonly string[];
  /** Absent from what an older API answered. */
  approval?: string | undefined;
  serviceAccountAllowed: boolean;
  allowElicitation: boolean;
  allowSampling: boolean;
}

/** The upstream's own name of a served tool: its mapped name, else the path after the namespace. */
export function upstreamName(source: ListedSource, path: string): string {
  const mapped = source.upstream?.mappedNames[path];
  if (mapped !== undefined) return mapped;
  const prefix = `${source.namespace}.`;
  return path.startsWith(prefix) ? path.slice(prefix.length) : path;
}

function checkbox(options: {
  id: string;
  name: string;
  value: string;
  checked: boolean;
  label: Html;
}): Html {
  return html`<label class="check" for="${options.id}"><input type="checkbox" id="${options.id}" name="${options.name}" value="${options.value}"${options.checked ? html` checked` : ''}><span>${options.label}</span></label>`;
}

/**
 * The settings card of an upstream source on the Sources page: a checkbox per tool that asks
 * before running and one for service accounts. A stdio upstream's settings live in the config
 * file, which the API does not change, so it gets a sentence instead of a form.
 */
export function sourceSettingsCard(source: ListedSource): Html {
  const upstream = source.upstream;
  if (upstream === undefined) return html``;
  const prefix = `settings-${source.id}`;
  const title = html`<h2 id="${prefix}-title">Settings of <code>${source.id}</code></h2>`;
  if (upstream.transport === 'stdio') {
    return html`<section class="card" id="${prefix}" aria-labelledby="${prefix}-title">${title}
<p class="muted small">This upstream comes from the gateway's config file: change its settings there.</p>
</section>`;
  }
  return html`<section class="card" id="${prefix}" data-source-settings="${source.id}" aria-labelledby="${prefix}-title">${title}
<form method="post" action="/admin/sources/${encodeURIComponent(source.id)}/settings">
${askBeforeRunning(source, upstream, prefix)}
<fieldset>
<legend>Service accounts</legend>
${checkbox({
  id: `${prefix}-service-accounts`,
  name: 'serviceAccountAllowed',
  value: 'true',
  checked: upstream.serviceAccountAllowed,
  label: html`Service accounts may use its tools`,
})}
</fieldset>
<fieldset>
<legend>Questions from the upstream</legend>
<p class="hint">Each question or sampling request names this source and the tool that asks. Unticked, the gateway declines it at once and nobody is asked.</p>
${checkbox({
  id: `${prefix}-elicitation`,
  name: 'allowElicitation',
  value: 'true',
  checked: upstream.allowElicitation,
  label: html`Its questions reach the user (elicitation)`,
})}${checkbox({
  id: `${prefix}-sampling`,
  name: 'allowSampling',
  value: 'true',
  checked: upstream.allowSampling,
  label: html`Its sampling requests reach the user's AI client`,
})}
</fieldset>
<div class="actions"><button type="submit">Save settings of ${source.id}</button></div>
</form>
</section>`;
}

/**
 * The tools that always ask before running: one checkbox per tool the upstream lists, and per name
 * asked for that it no longer lists.
 */
function askBeforeRunning(
  source: ListedSource,
  upstream: NonNullable<ListedSource['upstream']>,
  prefix: string,
): Html {
  const listed = source.tools.map((path) => ({
    path,
    name: upstreamName(source, path),
    mapped: upstream.mappedNames[path] !== undefined,
  }));
  // Names asked for that the upstream no longer lists stay visible, so saving keeps them unless
  // unticked.
  const unlisted = upstream.approvalRequired.filter(
    (name) => !listed.some((tool) => tool.name === name),
  );
  let index = 0;
  const box = (name: string, label: Html) => {
    index += 1;
    return checkbox({
      id: `${prefix}-tool-${index}`,
      name: 'approvalRequired',
      value: name,
      checked: upstream.approvalRequired.includes(name),
      label,
    });
  };
  return html`<fieldset>
<legend>Ask before running</legend>
<p class="hint">Each ticked tool always asks the user for approval before the call goes to the upstream, whatever the upstream says of it. Which other tools ask:</p>
${approvalChoices(prefix, upstream.approval)}
<p class="hint">Always ask for:</p>
${
  listed.length === 0 && unlisted.length === 0
    ? html`<p class="muted small">No tools listed yet${upstream.auth?.kind === 'oauth' ? ': they are listed once the first user connects' : ''}.</p>`
    : ''
}${listed.map((tool) =>
  box(
    tool.name,
    html`<code>${tool.path}</code>${tool.mapped ? html` <span class="muted small">(upstream name <code>${tool.name}</code>)</span>` : ''}`,
  ),
)}${unlisted.map((name) =>
  box(
    name,
    html`<code>${name}</code> <span class="muted small">(not in the upstream's list now)</span>`,
  ),
)}
</fieldset>`;
}

/** Up to three names, then how many more: a flash message stays short. */
function names(list: readonly string[]): string {
  const shown = list.slice(0, 3).join(', ');
  return list.length > 3 ? `${shown} and ${list.length - 3} more` : shown;
}

/**
 * What changed between two settings of source `id`, as the sentence of a flash message.
 *
 * @example
 * settingsChange('sums', before, after); // "Source “sums” saved: get-sum now asks before running."
 */
export function settingsChange(id: string, before: Settings, after: Settings): string {
  const asks = after.approvalRequired.filter((name) => !before.approvalRequired.includes(name));
  const stops = before.approvalRequired.filter((name) => !after.approvalRequired.includes(name));
  const parts: string[] = [];
  if (after.approval !== undefined && before.approval !== after.approval)
    parts.push(`approval mode now ${after.approval}`);
  if (asks.length > 0)
    parts.push(`${names(asks)} now ask${asks.length === 1 ? 's' : ''} before running`);
  if (stops.length > 0)
    parts.push(`${names(stops)} no longer ask${stops.length === 1 ? 's' : ''} before running`);
  if (before.serviceAccountAllowed !== after.serviceAccountAllowed)
    parts.push(
      after.serviceAccountAllowed
        ? 'service accounts may now use its tools'
        : 'service accounts may no longer use its tools',
    );
  if (before.allowElicitation !== after.allowElicitation)
    parts.push(
      after.allowElicitation ? 'its questions now reach users' : 'its questions are now declined',
    );
  if (before.allowSampling !== after.allowSampling)
    parts.push(
      after.allowSampling
        ? 'its sampling requests now reach clients'
        : 'its sampling requests are now refused',
    );
  const text =
    parts.length === 0
      ? `Source “${id}”: nothing changed.`
      : `Source “${id}” saved: ${parts.join('; ')}.`;
  // A flash message holds 500 characters; tool names may be long.
  return text.length > 500 ? `${text.slice(0, 499)}…` : text;
}

/**
 * `POST /admin/sources/:id/settings`: the settings form, sent to
 * `PATCH /api/registry/sources/:id` as a whole (an unticked box is absent from the form, so every
 * field is always sent), then back to the Sources page saying what changed.
 */
export function mountSourceSettings(kit: WebKit): void {
  kit.app.post(
    '/admin/sources/:id/settings',
    action(
      kit,
      '/admin/sources',
      async (ctx, form) => {
        const id = ctx.c.req.param('id') ?? '';
        const { sources } = await ctx.api.get('/api/registry/sources', sourceListSchema);
        const before = sources.find((source) => source.id === id)?.upstream;
        const { source } = await ctx.api.send(
          'PATCH',
          `/api/registry/sources/${encodeURIComponent(id)}`,
          {
            approvalRequired: [...new Set(await readFormValues(ctx.c, 'approvalRequired'))],
            // Absent from a form without the radio buttons: the mode stays as it is.
            ...(form.approval === undefined ? {} : { approval: form.approval }),
            serviceAccountAllowed: form.serviceAccountAllowed === 'true',
            allowElicitation: form.allowElicitation === 'true',
            allowSampling: form.allowSampling === 'true',
          },
          sourceUpdatedSchema,
        );
        const after = source.upstream;
        return seeOther(ctx.c, `/admin/sources#settings-${source.id}`, {
          kind: 'ok',
          text:
            before === undefined || after === undefined
              ? `Source “${source.id}” saved.`
              : settingsChange(source.id, before, after),
        });
      },
      { admin: true },
    ),
  );
}
