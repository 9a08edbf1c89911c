import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

// What the console's browser test works on, and what the scripted model answers
// (docs/scripted-model.md: a real provider replaying these responses in order).

export const NOTES = 'original notes, written by a person\nkeep this line\n';
export const LONG = Array.from({ length: 60 }, (_, i) => `line ${i + 1}`).join('\n') + '\n';
/** The long command of turn 3: ticks once a second, then sleeps (the test stops it). */
export const LONG_COMMAND = 'for i in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20; do echo tick $i; sleep 1; done; sleep 40';

export function writeWorkspace(ws: string): void {
  mkdirSync(ws, { recursive: true });
  writeFileSync(join(ws, 'notes.md'), NOTES);
  writeFileSync(join(ws, 'long.txt'), LONG);
}

/**
 * Turn 1 (the console): Markdown, two writes (diffs), a push that asks (the console allows it), a
 * command with output, an open hint, a closing message. Turn 2 (the console): a push that asks,
 * answered from the editor (ACP on stdio). Turn 3 (the console): a long command, stopped.
 */
export const MODEL = {
  responses: [
    {
      chunks: ["I'll **create** `hello.py`, ", 'rewrite `notes.md` and push.\n\n', '- write the files\n- push them\n'],
      delayMs: 150,
      toolCalls: [
        { name: 'write_file', arguments: { path: 'hello.py', content: "print('hi')\n" } },
        { name: 'edit_file', arguments: { path: 'notes.md', old: 'original notes, written by a person', new: 'notes rewritten by the agent' } },
      ],
      usage: { input: 1200, output: 40 },
    },
    { chunks: ["Now I'll push."], toolCalls: [{ name: 'bash', arguments: { command: 'git push origin main' } }], usage: { input: 1300, output: 10 } },
    { chunks: ['Listing the folder.'], toolCalls: [{ name: 'bash', arguments: { command: 'echo built && ls' } }], usage: { input: 1350, output: 10 } },
    { chunks: ['Have a look here.'], toolCalls: [{ name: 'open_file', arguments: { path: 'long.txt', line: 42 } }], usage: { input: 1400, output: 10 } },
    { chunks: ['Done: `hello.py` prints *hi*.\n\n```python\nprint(\'hi\')\n```\n<img src=x onerror="window.pwned=1"> [a link](javascript:window.pwned=2)'], usage: { input: 1450, output: 30 } },
    { chunks: ['Pushing the release branch.'], toolCalls: [{ name: 'bash', arguments: { command: 'git push origin release' } }], usage: { input: 1600, output: 10 } },
    { chunks: ['Understood: not pushed.'], usage: { input: 1700, output: 8 } },
    { chunks: ['Running a long command.'], toolCalls: [{ name: 'bash', arguments: { command: LONG_COMMAND } }], usage: { input: 1800, output: 10 } },
    { chunks: ['(not reached: the turn is stopped)'] },
  ],
  pricing: { input: 1.25, output: 10, cache: 0.125, reasoning: 10 },
  contextWindow: 200000,
};
