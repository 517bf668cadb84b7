export { createScriptLoader } from './load-scripts.js';
export { BUILD_ID_FILE, runScripts } from './run-scripts.js';
export { BUILD_ID, ScriptCache } from './script-cache.js';
