import { describe, expect, it } from 'vitest';
import type { ToolCard } from '../../../extensions/vscode/src/model/chat-model.js';
import { personWords, reviewedElsewhere } from '../../../extensions/vscode/src/model/card-words.js';

// A card whose result was written for the model says what happened in a person's words.

const edit = (status: ToolCard['status'], output: string): ToolCard => ({ id: 'c1', title: 'Write todo.txt', name: 'write_file', kind: 'edit', status, output, diffs: [], locations: [{ path: '/ws/todo.txt' }] });

describe('personWords', () => {
  it('an edit rejected here: "You rejected…" with the reason, not the model\'s sentence', () => {
    const c = edit('failed', "cannot write /ws/notes.md: the person reviewing it in the editor rejected this change, so the file is unchanged. Their reason: keep my notes");
    expect(personWords(c, {}, [])).toEqual({ text: 'You rejected this edit; the file is unchanged. Your reason: keep my notes' });
    expect(personWords(edit('failed', 'cannot write /ws/n: the person reviewing it in the editor rejected this change, so the file is unchanged. Ask them what they want instead of retrying the same change'), {}, [])?.text).toBe('You rejected this edit; the file is unchanged.');
  });

  it('an edit whose turn ended at a reload, offered again: says so and offers it', () => {
    const c = edit('cancelled', 'cannot write /ws/todo.txt: the client closed the connection');
    expect(personWords(c, { '/ws/todo.txt': 'pending' }, [])).toEqual({ text: expect.stringMatching(/^Not written yet: the turn ended/), offer: '/ws/todo.txt' });
    expect(personWords(c, { '/ws/todo.txt': 'accepted' }, [])?.text).toMatch(/you accepted the edit afterwards, so the file has it/);
    expect(personWords(c, {}, [])?.text).toBe('Not written: the turn ended before you decided on this edit, so the file is unchanged.');
  });

  it('a denied call in a person\'s words', () => {
    const c: ToolCard = { ...edit('denied', 'the user denied this bash call; do not retry it, ask the user what to do instead'), kind: 'execute' };
    expect(personWords(c, {}, [])?.text).toBe('Denied: this bash call did not run.');
  });

  it('leaves running cards, other failures and ferret\'s own person text alone', () => {
    expect(personWords(edit('in_progress', ''), { '/ws/todo.txt': 'pending' }, ['/ws/todo.txt'])).toBeUndefined();
    expect(personWords(edit('failed', 'cannot write /ws/todo.txt: EACCES: permission denied'), {}, [])).toBeUndefined();
    expect(personWords({ ...edit('denied', 'You rejected this bash call.'), kind: 'execute' }, {}, [])).toBeUndefined();
  });
});

describe('reviewedElsewhere', () => {
  it('a running edit whose file another window reviews: the viewer card says where it waits', () => {
    const running = edit('in_progress', '');
    expect(reviewedElsewhere(running, {}, ['/ws/todo.txt'])).toBe(true);
    expect(reviewedElsewhere(edit('pending', ''), {}, ['/ws/todo.txt'])).toBe(true);
    // Not another window's: nothing waits there, or this window reviews it itself.
    expect(reviewedElsewhere(running, {}, [])).toBe(false);
    expect(reviewedElsewhere(running, {}, ['/ws/other.txt'])).toBe(false);
    expect(reviewedElsewhere(running, { '/ws/todo.txt': 'pending' }, ['/ws/todo.txt'])).toBe(false);
    // Decided (the card has ended) or not an edit.
    expect(reviewedElsewhere(edit('completed', 'wrote it'), {}, ['/ws/todo.txt'])).toBe(false);
    expect(reviewedElsewhere({ ...running, kind: 'execute' }, {}, ['/ws/todo.txt'])).toBe(false);
  });
});
