export { previewPatterns } from './preview.js';
