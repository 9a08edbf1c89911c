// Reads that would send the model (and so its provider, a third party) what is not the
// workspace's: a secret location asks (refused under full-auto) in every mode but
// danger-full-access + full-auto; under read-only, a command naming a path outside the workspace
// asks too, unless config.json says sandbox.readOutside "allow". Applied after the policy, like
// the guard on protected writes: a deny stays a deny, and a person's "always" or allow rule holds.
import type { ApprovalPreset, SandboxMode } from '../../protocol/index.js';
import type { WorkspaceFacts } from '../facts.js';
import type { PolicyVerdict } from './policy.js';
import { commandReach, filesReach, type ReadReach } from '../paths/read-reach.js';
import { commandWords } from '../bash/path-words.js';

export type { ReadReach } from '../paths/read-reach.js';

/** What a call may read beyond the workspace: its real paths (file tools) or its command text (bash). */
export async function callReach(facts: WorkspaceFacts, mode: SandboxMode, call: { reals: readonly string[]; command?: string }): Promise<ReadReach> {
  const files = filesReach(facts, call.reals);
  if (files.secret !== undefined || call.command === undefined) return files;
  // The shell parser (WASM) loads on first use, not with the door.
  const { loadBashParser } = await import('../bash/parse/shell-parse.js');
  let words;
  try {
    words = commandWords(await loadBashParser(), call.command);
  } catch {
    return {}; // the classifier reports an unparsable command (and asks) on its own
  }
  if (!words) return {};
  return commandReach(facts, words, mode === 'read-only' && facts.host.readOutside === 'ask');
}

/** The verdict once the call's reach is known. */
export function guardReads(verdict: PolicyVerdict, reach: ReadReach, ctx: { preset: ApprovalPreset; sandbox: SandboxMode }): PolicyVerdict {
  if (verdict.action === 'deny') return verdict;
  // The person's own word for this exact request, or a rule they wrote that names it.
  if (verdict.action === 'allow' && (verdict.by === 'persisted' || verdict.rule !== undefined)) return verdict;
  if (reach.secret !== undefined) {
    if (ctx.sandbox === 'danger-full-access' && ctx.preset === 'full-auto') return verdict;
    const what = `it may read ${reach.secret}, where credentials are kept, and send them to the model provider`;
    if (ctx.preset === 'full-auto') {
      return { action: 'deny', risk: 'high', reason: `refused: ${what} (only danger-full-access + full-auto reads secret locations unasked)`, by: 'preset' };
    }
    return { action: 'ask', risk: 'high', reason: `Asks first: ${what}.`, by: 'preset' };
  }
  if (reach.outside !== undefined && ctx.sandbox === 'read-only' && ctx.preset !== 'full-auto' && verdict.action === 'allow') {
    const reason = `Asks first: it reads ${reach.outside}, outside the workspace; the read-only sandbox asks before such a read reaches the model (config sandbox.readOutside).`;
    return { action: 'ask', risk: 'medium', reason, by: 'preset' };
  }
  return verdict;
}
