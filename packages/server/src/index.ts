export type { Env, SignupMode } from './config/env.js';
export { createGateway, type Gateway, type GatewayDevHandle } from './gateway.js';
export type { GatewayOptions } from './gateway-settings.js';
export type { ErrorBody, ErrorCode } from './http/errors.js';
export type { LogSink } from './http/logger.js';
export type { Principal, SessionResolver } from './identity/index.js';
export type { SignupOptions, SignupPolicy } from './invites/index.js';
export type { McpOptions } from './mcp/options.js';
