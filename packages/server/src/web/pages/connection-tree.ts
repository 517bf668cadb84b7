import { confirmForm } from '../components.js';
import { type Html, html } from '../html.js';

/** A stored connection as the tree shows it (secret masked). */
export interface TreeConnection {
  id: string;
  instanceName: string;
  maskedSecret?: string | undefined;
  parentId: string | null;
}

/** Where a tree's buttons post and which dialog adds instances. */
export interface TreeActions {
  /** The provider id (the connections' `toolId`). */
  toolId: string;
  providerName: string;
  /** Disconnect form action for a connection id. */
  deleteAction: (id: string) => string;
  /** The dialog that adds an instance; undefined hides "Add nested". */
  addDialog?: string | undefined;
}

function descendants(id: string, children: Map<string, TreeConnection[]>): number {
  return (children.get(id) ?? []).reduce(
    (count, child) => count + 1 + descendants(child.id, children),
    0,
  );
}

/**
 * Connections as a tree: top-level instances with their nested instances below, each with its
 * masked secret, "Add nested" and "Disconnect" (which removes the nested ones too, and says so).
 */
export function connectionTree(connections: readonly TreeConnection[], actions: TreeActions): Html {
  const ids = new Set(connections.map((connection) => connection.id));
  const children = new Map<string, TreeConnection[]>();
  const roots: TreeConnection[] = [];
  for (const connection of connections) {
    if (connection.parentId === null || !ids.has(connection.parentId)) roots.push(connection);
    else
      children.set(connection.parentId, [...(children.get(connection.parentId) ?? []), connection]);
  }
  const item = (connection: TreeConnection): Html => {
    const nested = children.get(connection.id) ?? [];
    const below = descendants(connection.id, children);
    const question =
      below === 0
        ? `Disconnect “${connection.instanceName}” (${actions.providerName})? Tools stop using this key.`
        : `Disconnect “${connection.instanceName}” (${actions.providerName})? Its ${below} nested instance${below === 1 ? '' : 's'} ${below === 1 ? 'is' : 'are'} removed too.`;
    return html`<li data-connection="${connection.instanceName}">
<div class="instance">
<span class="instance-name">${connection.instanceName}</span>
${connection.maskedSecret === undefined ? '' : html`<span class="visually-hidden">Masked secret: </span><code>${connection.maskedSecret}</code>`}
<div class="actions">
${
  actions.addDialog === undefined
    ? ''
    : html`<button type="button" class="secondary small" data-dialog="${actions.addDialog}" data-field-tool-id="${actions.toolId}" data-field-parent-id="${connection.id}" data-slot-title="Add an instance under “${connection.instanceName}”" data-slot-subtitle="${actions.providerName}" aria-label="Add an instance nested under ${connection.instanceName}">Add nested</button>`
}
${confirmForm({
  action: actions.deleteAction(connection.id),
  question,
  label: 'Disconnect',
  accessibleName: `Disconnect ${connection.instanceName}`,
})}
</div>
</div>
${nested.length === 0 ? '' : html`<ul>${nested.map(item)}</ul>`}
</li>`;
  };
  if (roots.length === 0) return html``;
  return html`<ul class="tree" aria-label="${actions.providerName} connections">${roots.map(item)}</ul>`;
}
