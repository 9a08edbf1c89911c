import pino, { type Logger } from 'pino';

/** Logs go to fd 2 only: stdout is the ACP channel. Pretty output is not worth a dependency; JSON lines always. */
export function createLogger(level = process.env['FERRET_LOG_LEVEL'] ?? 'info'): Logger {
  return pino(
    {
      name: 'ferret',
      level,
      redact: { paths: ['req.headers.authorization', 'headers.authorization', '*.apiKey', 'apiKey'], censor: '[redacted]' },
    },
    pino.destination({ fd: 2, sync: false }),
  );
}
