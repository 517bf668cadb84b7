export { type ExplainServices, type ExplainSubject, explain } from './explain.js';
export { explainRoutes } from './routes.js';
export { type Explanation, explanationSchema } from './schemas.js';
