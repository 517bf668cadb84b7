export {
  CONFIG_FILE_NAMES,
  ConfigError,
  type LoadConfigOptions,
  type LoadedConfig,
  loadConfig,
} from './load-config.js';
export {
  type CatalogListener,
  type JsonSchema,
  type MountedTool,
  type MountSource,
  PluginCatalog,
  PluginCatalogError,
  type PluginCatalogErrorReason,
  type ToolSetSource,
} from './plugin-catalog.js';
export {
  type RegisterSourceInput,
  RegistryService,
  type RegistrySource,
  type RegistrySourceStatus,
} from './registry-service.js';
