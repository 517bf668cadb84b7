/** Why a plugin could not be loaded or mounted. */
export type PluginCatalogErrorReason =
  | 'invalid_plugin'
  | 'duplicate_plugin'
  | 'duplicate_provider'
  | 'unknown_plugin'
  | 'duplicate_source'
  | 'namespace_taken'
  | 'namespace_reserved'
  | 'path_outside_namespace'
  | 'unrepresentable_schema';

/**
 * Thrown by {@link PluginCatalog} when a plugin cannot be loaded or mounted. `details` lists the
 * offending items (tool paths, problems) so the HTTP layer can pass them on.
 */
export class PluginCatalogError extends Error {
  readonly reason: PluginCatalogErrorReason;
  readonly details: readonly string[];

  constructor(reason: PluginCatalogErrorReason, message: string, details: readonly string[] = []) {
    super(message);
    this.name = 'PluginCatalogError';
    this.reason = reason;
    this.details = details;
  }
}
