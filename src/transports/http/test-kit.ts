// Shared by the HTTP transport's tests (not part of the product): buildApp's options as the tests
// run it, so that each test states only what it is about.
import type { AppOptions } from './app.js';

/** Options for `manager` with the tests' limits and timings; `over` gives the token and hosts, and anything else a test changes. */
export function testAppOptions(manager: AppOptions['manager'], logger: AppOptions['logger'], over: Pick<AppOptions, 'token' | 'hosts'> & Partial<AppOptions>): AppOptions {
  return {
    manager,
    logger,
    version: 'test',
    sandbox: 'workspace-write',
    ideSchema: true,
    heartbeatMs: 15_000,
    maxBufferBytes: 1 << 20,
    stallMs: 5000,
    bodyLimit: 1 << 20,
    ...over,
  };
}
