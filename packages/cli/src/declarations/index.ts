export { declareAccountCommands } from './account-commands.js';
export { declareAdminCommands } from './admin-commands.js';
export { declareAuthorCommands } from './author-commands.js';
export { examples } from './options.js';
export { declareToolUseCommands } from './tool-use-commands.js';
