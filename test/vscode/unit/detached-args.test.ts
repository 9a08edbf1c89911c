import { describe, expect, it } from 'vitest';
import { detachedArgs, IDLE_EXIT_S } from '../../../extensions/vscode/src/acp/detached-server.js';

// The detached server's flags: the person's chimera.args, with the transport flags the extension
// sets itself replaced (a person's `--http --port 0` must not fight its own).

describe('detachedArgs', () => {
  it("keeps the person's flags and replaces the transport ones with its own", () => {
    expect(detachedArgs(['ferret', 'serve', '--model', 'scripted:m.json', '--http', '--port', '5173', '--approval', 'auto', '--idle-exit=9', '--no-stdio'])).toEqual([
      'ferret',
      'serve',
      '--model',
      'scripted:m.json',
      '--approval',
      'auto',
      '--http',
      '--port',
      '0',
      '--no-stdio',
      '--idle-exit',
      String(IDLE_EXIT_S),
    ]);
  });
});
