import type { Logger } from 'pino';
import { describe, expect, it } from 'vitest';
import { DropLog } from './drop-log.js';

function fakeLogger(): { logger: Logger; lines: { obj: Record<string, unknown>; msg: string }[] } {
  const lines: { obj: Record<string, unknown>; msg: string }[] = [];
  return { logger: { warn: (obj: Record<string, unknown>, msg: string) => lines.push({ obj, msg }) } as unknown as Logger, lines };
}

describe('the fleet drop log', () => {
  it('a flood of one kind is cut to 20 lines and a count, and does not hide the first drop of another kind', () => {
    let t = 1_000_000;
    const { logger, lines } = fakeLogger();
    const log = new DropLog(logger, () => t);
    for (let i = 0; i < 50; i++) log.report({ what: 'bus message', why: 'no mac', where: 'ferret:cmd:x', sample: 'null' });
    log.report({ what: 'lease record', why: 'not sealed', where: 'ferret:s:{s}:lease', sample: 'evil#99' });
    expect(lines.filter((l) => l.obj['what'] === 'bus message')).toHaveLength(20);
    expect(lines.filter((l) => l.obj['what'] === 'lease record').map((l) => l.obj['sample'])).toEqual(['evil#99']);
    t += 10_000;
    log.report({ what: 'bus message', why: 'no mac', where: 'ferret:cmd:x' });
    expect(lines.some((l) => l.obj['dropped'] === 30)).toBe(true);
    expect(lines.at(-1)!.obj['what']).toBe('bus message');
  });
});
