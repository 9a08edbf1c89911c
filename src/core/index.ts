// The core's public face: transports and the CLI import from here and nowhere else in the core.
export { createCore } from './create-core.js';
export type { Core, CoreOptions, CoreSettings } from './create-core.js';
export { connectFleetStore, readServerConfig } from './fleet.js';
export type { FleetStore, FleetStoreOptions } from './fleet.js';
export type { StoreStatus } from '../store/session-store.js';
export { SessionManager } from './session-manager.js';
export type { NewSessionOptions, SessionDefaults } from './session-manager.js';
export type { CommandAnswer, SessionCommand } from './session-commands.js';
export { Session } from './session.js';
export type { AttachOptions, ClientAttachment } from './session.js';
export type { SessionDeps } from './turn-host.js';
export type { SessionFold } from './folds.js';
export type { Subscription, SubscribeOptions } from './bus.js';
export type { ListPage, ListQuery, SessionLimits } from './session-manager.js';
export type { Tool } from '../tools/define.js';
export type { Credential, ModelChoice } from '../providers/catalog.js';
export * from '../protocol/index.js';
