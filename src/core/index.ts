// The core's public face: transports import from here and nowhere else in the core.
export { SessionManager } from './session-manager.js';
export type { NewSessionOptions, SessionDefaults } from './session-manager.js';
export { SessionSummarySchema } from '../store/session-meta.js';
export type { SessionSummary } from '../store/session-meta.js';
export { Session } from './session.js';
export type { SessionDeps, TurnResult } from './session.js';
export { FerretError, isFerretError, errorText, ERROR_CODES } from './errors.js';
export type { ErrorCode } from './errors.js';
export { SessionEventSchema } from './events.js';
export type { SessionEvent, EventType, EventOf, EventData } from './events.js';
export * from './types.js';
export type { FileAccess, Tool } from '../tools/define.js';
