// The door's way to the bash classifier: it and its WASM shell parser (~100 KB of code) load on
// first use, not with the door, so a server's start-up (which imports the door) does not load them.
import { setImmediate as nextTurn } from 'node:timers/promises';
import type { RuleSet } from '../policy/rules.js';
import type { BashApproval } from './bash-approval.js';

// The loaded module, so that calls after the first do not wait for import() again.
let approval: typeof import('./bash-approval.js') | undefined;

/** The bash tool's approval knowledge (bash-approval.ts): the classifier's verdict and the persisted key. */
export async function bashApproval(command: string, rules: RuleSet): Promise<BashApproval> {
  if (!approval) {
    approval = await import('./bash-approval.js');
    // Evaluating the module (its option tables) and the first judgement are each several ms of
    // synchronous work: requests that arrived meanwhile are served between the two.
    await nextTurn();
  }
  return approval.bashApproval(command, rules);
}

/** Loads the shell parser (WASM) ahead of the first command: the warm-up's step. */
export async function loadBashParser(): Promise<void> {
  await (await import('./parse/shell-parse.js')).loadBashParser();
}
