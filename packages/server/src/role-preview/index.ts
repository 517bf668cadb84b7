export { previewPatterns } from './preview.js';
export { rolePreviewRoutes } from './routes.js';
export { type Preview, previewBody, previewSchema } from './schemas.js';
