import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

// What the end-to-end test's user works on, and what the scripted model answers (a real
// provider replaying responses in order: docs/scripted-model.md).

export const NOTES = 'original notes, written by a person\n';
export const LONG = Array.from({ length: 60 }, (_, i) => `line ${i + 1}`).join('\n') + '\n';

export function writeWorkspace(ws: string): void {
  mkdirSync(ws, { recursive: true });
  writeFileSync(join(ws, 'notes.md'), NOTES);
  writeFileSync(join(ws, 'long.txt'), LONG);
}

/** The model's plan for turn 1 after `done` steps (the next one in progress). */
export const PLAN_STEPS = ['Create hello.py and rewrite notes.md', 'Push to origin', 'Show long.txt at line 42'];
const planAt = (done: number) => ({
  name: 'update_plan',
  arguments: { entries: PLAN_STEPS.map((content, i) => ({ content, status: i < done ? 'completed' : i === done ? 'in_progress' : 'pending', ...(i === 1 ? { priority: 'high' } : {}) })) },
});

/** Turn 1: streamed text, a plan, two writes, a command, a push that asks, an open (the plan ticked off on the way); turn 2: a long command; a bot's turn; a turn across a reload. */
export const MODEL = {
  contextWindow: 200_000, // a known window: the context line shows it (none is drawn for an unknown one)
  responses: [
    {
      // Slow enough that a reader polling through two iframes on a busy machine sees it grow.
      chunks: ["I'll create ", 'hello.py, ', 'rewrite notes.md ', 'and list the folder.'],
      delayMs: 400,
      toolCalls: [
        planAt(0),
        { name: 'write_file', arguments: { path: 'hello.py', content: "print('hi')\n" } },
        { name: 'write_file', arguments: { path: 'notes.md', content: 'rewritten by the agent\n' } },
        // Runs after both edits were decided: it must see hello.py as accepted, notes.md untouched.
        { name: 'bash', arguments: { command: 'echo built && cat hello.py notes.md && ls' } },
      ],
      usage: { input: 1200, output: 40 },
    },
    { chunks: ["Now I'll push."], toolCalls: [planAt(1), { name: 'bash', arguments: { command: 'git push origin main' } }], usage: { input: 1300, output: 10 } },
    { chunks: ['Opening the file.'], toolCalls: [planAt(3), { name: 'open_file', arguments: { path: 'long.txt', line: 42 } }], usage: { input: 1350, output: 10 } },
    {
      // Markdown the chat renders as formatted text: heading, table, list, quote, highlighted code.
      chunks: [
        '## Summary\n\nDone: hello.py prints hi.\n\n',
        '| file | state |\n|---|---|\n| hello.py | **written** |\n| notes.md | kept as you asked |\n\n',
        '- accepted one edit\n- rejected one, with a [reason](https://example.com/why)\n\n> nothing was pushed\n\n',
        '```python\ndef hi():\n    # say it\n    return "hi" * 42\n```\n',
      ],
      usage: { input: 1400, output: 12 },
    },
    { chunks: ['Running a long command.'], toolCalls: [{ name: 'bash', arguments: { command: 'sleep 29.5' } }], usage: { input: 1500, output: 10 } },
    // (a stopped turn asks for nothing more: the next answer is the bot's)
    // A prompt a CI bot sends over HTTP to the same session.
    { chunks: ['The tests pass.'] },
    // Turn 4: a turn still running when the window reloads, its edit waiting for review; after the
    // reload Accept answers the write the server waits on and the turn goes on to its end.
    { chunks: ['Writing a todo.'], toolCalls: [{ name: 'write_file', arguments: { path: 'todo.txt', content: 'ship it\n' } }] },
    { chunks: ['Checking it.'], toolCalls: [{ name: 'bash', arguments: { command: 'sleep 2 && cat todo.txt' } }] },
    { chunks: ['Done after the reload: todo.txt says ship it.'] },
  ],
  pricing: { input: 1.25, output: 10, cache: 0.125, reasoning: 10 },
};
