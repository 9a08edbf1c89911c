import pino, { type DestinationStream, type Logger, type LoggerOptions } from 'pino';
import { lazyRequire } from '../util/lazy-require.js';

// Required, not import()ed: a chunk that calls import() cannot use V8's cached code (code-cache.ts).
const pinoPretty = lazyRequire<typeof import('pino-pretty')>('pino-pretty');

const OPTIONS = (level: string): LoggerOptions => ({
  name: 'ferret',
  level,
  redact: { paths: ['req.headers.authorization', 'headers.authorization', '*.apiKey', 'apiKey'], censor: '[redacted]' },
});

/**
 * Logs go to fd 2 only: stdout is the ACP channel. JSON lines, except for a person at a
 * terminal, who gets pino-pretty (loaded only then, so an editor's spawn never pays for it).
 */
export function createLogger(level = process.env['FERRET_LOG_LEVEL'] ?? 'info'): Logger {
  let dest: DestinationStream = pino.destination({ fd: 2, sync: false });
  if (process.stderr.isTTY) {
    dest = pinoPretty()({ destination: 2, colorize: true, sync: true });
  }
  return pino(OPTIONS(level), dest);
}
