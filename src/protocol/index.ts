// The vocabulary every part shares: types, events, errors, tool and file seams, config, wire shapes.
// Protocol imports nothing of ours, so any part may import it without closing a cycle.
export * from './types.js';
export * from './events.js';
export * from './plan.js';
export * from './images.js';
export * from './errors.js';
export * from './tools.js';
export * from './paths.js';
export * from './config.js';
export * from './session.js';
export * from './ferret-wire.js';
export * from './ferret-update.js';
export * from './commands.js';
export * from './lazy-schema.js';
export * from './bridge.js';
