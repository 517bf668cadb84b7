import { type Html, html, raw } from './html.js';

/** Who serves a provider's credential for the user, as the Tools tab words it. */
export type ConnectionState = 'you' | 'team' | 'server' | 'reconnect' | 'none';

const STATE_LABELS: Record<ConnectionState, { text: string; tone: string }> = {
  you: { text: 'Connected by you', tone: 'ok' },
  team: { text: 'Connected by your team', tone: 'info' },
  server: { text: 'Connected by a server key', tone: 'neutral' },
  reconnect: { text: 'Needs reconnecting', tone: 'danger' },
  none: { text: 'Not connected', tone: 'warn' },
};

/** The state as a coloured label (the colour is never the only cue: the text says it). */
export function statePill(state: ConnectionState): Html {
  const { text, tone } = STATE_LABELS[state];
  return html`<span class="pill ${tone}" data-state="${state}">${text}</span>`;
}

/** A pill with free text. */
export function pill(text: string, tone: 'ok' | 'info' | 'warn' | 'neutral' | 'danger'): Html {
  return html`<span class="pill ${tone}">${text}</span>`;
}

/** A timestamp, in UTC on the server and in the reader's local time once the script runs. */
export function time(iso: string | null | undefined, fallback = 'never'): Html {
  if (iso === null || iso === undefined) return html`<span class="muted">${fallback}</span>`;
  const date = new Date(iso);
  const text = Number.isNaN(date.getTime())
    ? iso
    : `${date.toISOString().slice(0, 16).replace('T', ' ')} UTC`;
  return html`<time datetime="${iso}" data-local>${text}</time>`;
}

/** A button that copies the text of element `targetId`. */
export function copyButton(targetId: string, label = 'Copy'): Html {
  return html`<button type="button" class="secondary small" data-copy="${targetId}" aria-label="${label} to the clipboard">${label}</button>`;
}

/** A block of text with a copy button beside it. */
export function copyBlock(id: string, text: string, label: string): Html {
  return html`<div class="copy-row"><pre id="${id}" tabindex="0" role="region" aria-label="${label}"><code>${text}</code></pre>${copyButton(id)}</div>`;
}

/** Hidden form fields. */
export function hidden(values: Record<string, string | undefined>): Html {
  return html`${Object.entries(values).map(([name, value]) =>
    value === undefined ? '' : html`<input type="hidden" name="${name}" value="${value}">`,
  )}`;
}

/** ` selected` when `on`. */
export function selected(on: boolean): Html {
  return on ? raw(' selected') : raw('');
}

/**
 * A form that posts to `action` and asks `question` in the confirmation dialog first (the
 * script's; without it the post goes straight through).
 */
export function confirmForm(options: {
  action: string;
  question: string;
  label: string;
  confirmLabel?: string;
  fields?: Record<string, string>;
  className?: string;
  accessibleName?: string;
}): Html {
  return html`<form method="post" action="${options.action}" data-confirm="${options.question}" data-confirm-label="${options.confirmLabel ?? options.label}">
${hidden(options.fields ?? {})}<button type="submit" class="${options.className ?? 'danger small'}"${options.accessibleName === undefined ? '' : html` aria-label="${options.accessibleName}"`}>${options.label}</button>
</form>`;
}

/** The shared confirmation dialog; Cancel is the default focus. */
export function confirmDialog(): Html {
  return html`<dialog id="confirm-dialog" aria-labelledby="confirm-title">
<form method="dialog">
<h2 id="confirm-title">Are you sure?</h2>
<p data-confirm-text></p>
<div class="actions">
<button type="submit" value="yes" class="danger-solid" data-confirm-yes>Confirm</button>
<button type="submit" value="cancel" class="secondary" data-confirm-cancel>Cancel</button>
</div>
</form>
</dialog>`;
}

/**
 * The dialog that takes an API key or token, posting to `action`. Openers set its hidden fields
 * (`data-field-<name>`) and texts (`data-slot-<name>`).
 */
export function secretDialog(options: {
  id: string;
  action: string;
  fields: readonly string[];
  note: string;
}): Html {
  return html`<dialog id="${options.id}" aria-labelledby="${options.id}-title">
<form method="post" action="${options.action}">
<h2 id="${options.id}-title" data-slot="title">Connect</h2>
<p class="muted" data-slot="subtitle" hidden></p>
${options.fields.map((name) => html`<input type="hidden" name="${name}" data-field>`)}
<label for="${options.id}-name">Name<span class="hint">Tells this connection apart from others of the same tool, e.g. Personal or Work</span></label>
<input id="${options.id}-name" name="instanceName" type="text" required maxlength="200" autocomplete="off" data-field>
<label for="${options.id}-secret">API key or token</label>
<input id="${options.id}-secret" name="secret" type="password" required maxlength="10000" autocomplete="off" spellcheck="false">
<p class="muted small">${options.note}</p>
<div class="actions">
<button type="submit">Save</button>
<button type="button" class="secondary" data-close>Cancel</button>
</div>
</form>
</dialog>`;
}
