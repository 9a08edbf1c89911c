import { Writable } from 'node:stream';
import pino, { type Logger } from 'pino';
import { describe, expect, it } from 'vitest';
import { createLogger, deferredLogger } from './logger.js';

/** A deferred logger over a real pino writing JSON lines to memory; `built` counts pino builds. */
function setup(level = 'info') {
  const lines: Record<string, unknown>[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _enc, done) {
      for (const l of chunk.toString('utf8').split('\n')) if (l) lines.push(JSON.parse(l) as Record<string, unknown>);
      done();
    },
  });
  let built = 0;
  const logger = deferredLogger((): Logger => {
    built++;
    return pino({ level }, sink);
  }, level);
  return { logger, lines, builds: () => built };
}

describe('deferredLogger', () => {
  it('builds pino only when a line at or above its level is logged', () => {
    const { logger, lines, builds } = setup('info');
    logger.debug('not shown');
    logger.trace({ a: 1 }, 'nor this');
    expect(builds()).toBe(0);
    expect(logger.level).toBe('info');
    expect(logger.isLevelEnabled('warn')).toBe(true);
    expect(logger.isLevelEnabled('debug')).toBe(false);
    expect(builds()).toBe(0);
    logger.warn({ why: 'x' }, 'shown');
    expect(builds()).toBe(1);
    expect(lines).toMatchObject([{ level: 40, why: 'x', msg: 'shown' }]);
  });

  it('defers a child too, which logs with its bindings once used', () => {
    const { logger, lines, builds } = setup('info');
    const child = logger.child({ connectionId: 'c1' });
    child.debug('dropped');
    expect(builds()).toBe(0);
    child.info({ n: 2 }, 'hello');
    logger.error('parent');
    expect(builds()).toBe(1);
    expect(lines).toMatchObject([
      { level: 30, connectionId: 'c1', n: 2, msg: 'hello' },
      { level: 50, msg: 'parent' },
    ]);
    expect(lines[1]).not.toHaveProperty('connectionId');
  });

  it("keeps a child's own level", () => {
    const { logger, lines } = setup('debug');
    const quiet = logger.child({ transport: 'http' }, { level: 'warn' });
    quiet.info('dropped');
    quiet.warn('kept');
    expect(lines.map((l) => l['msg'])).toEqual(['kept']);
  });

  it('flushes without building, and passes anything else to pino', () => {
    const { logger, builds } = setup('info');
    let flushed = false;
    logger.flush(() => (flushed = true));
    expect(flushed).toBe(true);
    expect(builds()).toBe(0);
    expect(typeof logger.bindings).toBe('function');
    expect(builds()).toBe(1);
  });

  it('takes FERRET_LOG_LEVEL in any case, and refuses an unknown one at once, naming it', () => {
    expect(createLogger('DEBUG').isLevelEnabled('debug')).toBe(true);
    expect(createLogger(' Warn ').level).toBe('warn');
    expect(() => createLogger('verbose')).toThrow('FERRET_LOG_LEVEL: unknown level "verbose"; expected one of trace, debug, info, warn, error, fatal, silent');
  });
});
