/** The project templates of `gateway new`, each a folder of `templates/`. */
export const templateNames = ['api-key', 'oauth', 'blank'] as const;

/**
 * A project template: `api-key` calls an HTTP API with a key the gateway vends, `oauth` calls a
 * GitHub-style API as the signed-in user, `blank` is one tool with no credentials.
 */
export type TemplateName = (typeof templateNames)[number];

/** Whether `value` names a template. */
export function isTemplateName(value: unknown): value is TemplateName {
  return templateNames.some((name) => name === value);
}
