export { serveFederated } from './federated-handlers.js';
export { SessionNotices } from './session-notices.js';
export { federatedCapabilities, visibleSources } from './visible-sources.js';
