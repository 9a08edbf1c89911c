import { describe, expect, it } from 'vitest';
import { ChatModel } from '../../../extensions/vscode/src/model/chat-model.js';
import { rejectedWriteMessage } from '../../../extensions/vscode/src/model/review-words.js';
import { matchingCommands, unknownCommand } from '../../../extensions/vscode/src/model/slash.js';

// The extension's `/` menu and local answer, what the model reads for a rejected edit, and the
// context meter after a failed call.

const commands = [
  { name: 'status', description: 'show the session' },
  { name: 'compact', description: 'summarize the history' },
];

describe('slash commands in the extension', () => {
  it('offers the commands that start with what is typed', () => {
    expect(matchingCommands('/', commands).map((c) => c.name)).toEqual(['status', 'compact']);
    expect(matchingCommands('/st', commands).map((c) => c.name)).toEqual(['status']);
    expect(matchingCommands('/status now', commands)).toEqual([]);
  });

  it('answers an unknown command locally and names the real ones', () => {
    expect(unknownCommand('/nonsense', commands)).toBe('/nonsense is not a command here, so nothing was sent. Commands: /status, /compact. Type / to pick one.');
    expect(unknownCommand('/status', commands)).toBeUndefined();
    expect(unknownCommand('/etc/hosts looks wrong', commands)).toBeUndefined();
  });

  it('the menu comes from available_commands_update', () => {
    const m = new ChatModel();
    m.apply({ sessionUpdate: 'available_commands_update', availableCommands: [{ name: 'rewind', description: 'go back', input: { hint: '[N]' } }] });
    expect(m.view().commands).toEqual([{ name: 'rewind', description: 'go back', hint: '[N]' }]);
  });
});

describe('a rejected edit, as the model reads it', () => {
  it('says the file is unchanged, with the reason when one was given', () => {
    expect(rejectedWriteMessage('keep the name')).toBe('the person reviewing it in the editor rejected this change, so the file is unchanged. Their reason: keep the name');
    expect(rejectedWriteMessage(undefined)).toMatch(/unchanged\. Ask them what they want/);
  });
});

describe('the context meter', () => {
  it('keeps the last real figure when a failed call reports nothing used', () => {
    const m = new ChatModel();
    m.apply({ sessionUpdate: 'usage_update', used: 2500, size: 200_000 });
    m.apply({ sessionUpdate: 'usage_update', used: 0, size: 200_000 });
    expect(m.view().usage).toEqual({ used: 2500, size: 200_000 });
  });

  it('a failed turn leaves one error with Retry (the message) and the setting that fixes it', () => {
    const m = new ChatModel();
    m.turnStarted();
    m.turnFailed('Chimera has no model to use.', 'hello', 'chimera.args');
    expect(m.view().entries).toEqual([{ id: 'e1', kind: 'notice', level: 'error', text: 'Chimera has no model to use.', retry: 'hello', setting: 'chimera.args' }]);
    expect(m.view().busy).toBe(false);
  });
});
