import pino, { type DestinationStream, type Logger, type LoggerOptions } from 'pino';

const OPTIONS = (level: string): LoggerOptions => ({
  name: 'ferret',
  level,
  redact: { paths: ['req.headers.authorization', 'headers.authorization', '*.apiKey', 'apiKey'], censor: '[redacted]' },
});

/**
 * Logs go to fd 2 only: stdout is the ACP channel. JSON lines, except for a person at a
 * terminal, who gets pino-pretty (loaded only then, so an editor's spawn never pays for it).
 */
export async function createLogger(level = process.env['FERRET_LOG_LEVEL'] ?? 'info'): Promise<Logger> {
  let dest: DestinationStream = pino.destination({ fd: 2, sync: false });
  if (process.stderr.isTTY) {
    const { default: pretty } = await import('pino-pretty');
    dest = pretty({ destination: 2, colorize: true, sync: true });
  }
  return pino(OPTIONS(level), dest);
}
