// Fleet mode's store (`--store redis://HOST:PORT/DB`): import this module dynamically, only in
// fleet mode; ioredis itself is loaded by connection.ts on the first connect.
export { RedisSessionStore, type RedisStoreOptions } from './store.js';
export { RedisSessionLog } from './session-log.js';
export { RedisAuditLog, type RedisAuditOptions } from './audit-log.js';
export { parseRedisUrl, type RedisHealth, type RedisUrl } from './connection.js';
export { FleetTrust, fleetSecretProblem, type Dropped } from './fleet-trust.js';
