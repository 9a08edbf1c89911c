import { describe, expect, it } from 'vitest';
import { ProcessList } from '../../../extensions/vscode/src/model/processes.js';

// The extension's list of background processes, from ferret's notifications, without VS Code.

describe('ProcessList', () => {
  it('lists what started, running first, and says how each ended', () => {
    const l = new ProcessList();
    expect(l.apply('_ferret/process_started', { sessionId: 's', processId: 'proc_1', command: 'npm run dev\nmore' } as never)).toBe('Background process proc_1 started: npm run dev');
    l.apply('_ferret/process_started', { processId: 'proc_2', command: 'pytest -f' });
    expect(l.apply('_ferret/process_exited', { processId: 'proc_1', reason: 'killed', exitCode: null })).toBe('Background process proc_1 ended (killed)');
    expect(l.all().map((p) => [p.id, p.running])).toEqual([
      ['proc_2', true],
      ['proc_1', false],
    ]);
    expect(l.apply('_ferret/notice', { processId: 'proc_3' })).toBeUndefined();
  });
});
