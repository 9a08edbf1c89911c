// The core's public face: transports and the CLI import from here and nowhere else in the core.
// Interfaces only: a transport holds `Sessions` and `SessionHandle`s, never a class of the core.
import { createCore as buildCore, type Core, type CoreOptions } from './create-core.js';

/** Builds the core once: providers, tools, rules, audit, MCP, and the sessions transports reach. */
export function createCore(opts: CoreOptions): Core {
  return buildCore(opts);
}
export type { Core, CoreOptions, CoreSettings } from './create-core.js';
export { connectFleetStore, readServerConfig } from './fleet/connect.js';
export type { FleetStore, FleetStoreOptions } from './fleet/connect.js';
export type { Fleet } from './fleet/fleet.js';
export type { StoreStatus } from '../store/session-store.js';
export type {
  AttachOptions,
  CommandAnswer,
  SessionCommand,
  ClientAttachment,
  ListPage,
  ListQuery,
  NewSessionOptions,
  Mention,
  QueuedTurnOptions,
  SessionDefaults,
  SessionHandle,
  Sessions,
  StartedTurn,
  TurnOptions,
} from './api.js';
export type { SessionState } from './session-state.js';
export type { SessionFold } from './folds.js';
export type { Listener, Subscription, SubscribeOptions } from './bus.js';
export type { SessionLimits } from './sessions/session-manager.js';
export type { TurnActivity } from './sessions/turn-activity.js';
export type { Tool } from '../tools/define.js';
export type { Credential, ModelChoice } from '../providers/catalog.js';
export * from '../protocol/index.js';
