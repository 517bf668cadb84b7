export { PluginTool } from './plugin-tool.js';
export {
  CallFailure,
  type CheckedInput,
  type SourceCall,
  type SourceKind,
  type ToolSource,
} from './tool-source.js';
