export { PluginTool } from './plugin-tool.js';
export { Stopped } from './stopped.js';
export {
  CallFailure,
  type CheckedInput,
  LinksRequired,
  type SourceCall,
  type SourceKind,
  type ToolSource,
} from './tool-source.js';
