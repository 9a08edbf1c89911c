// The approval side of host-meta.ts: a file tool that writes a file the host runs later
// (`.vscode/tasks.json`, `.envrc`, a git hook under danger-full-access) is asked for under
// `auto`, and refused under `full-auto` where confined commands could not write it either.
import type { ApprovalPreset, SandboxMode } from '../../protocol/index.js';
import type { HostMeta } from '../paths/host-meta.js';
import type { PolicyVerdict } from './policy.js';

export interface ProtectedWrite {
  preset: ApprovalPreset;
  sandbox: SandboxMode;
  /** The workspace-relative (or absolute) path, for the message. */
  path: string;
  meta: HostMeta;
}

/**
 * Tightens a verdict for a write to protected metadata. A person's own choices stand: a
 * persisted "always" for this exact request, or an allow rule in config.json that names it.
 */
export function guardProtectedWrite(v: PolicyVerdict, w: ProtectedWrite): PolicyVerdict {
  if (v.action !== 'allow' || v.by === 'persisted' || v.by === 'rule') return v;
  const what = `${w.path} is ${w.meta.what}`;
  if (w.preset === 'full-auto') {
    // danger-full-access lets commands write it too; the file tools do not pretend otherwise.
    if (w.sandbox === 'danger-full-access') return v;
    return {
      action: 'deny',
      risk: 'high',
      reason: `full-auto does not write files the host runs later: ${what}. Ask the user to make this change, or switch to the auto preset to be asked`,
      by: 'preset',
    };
  }
  return { action: 'ask', risk: 'high', reason: `${what}; writing it runs code on this machine later, outside the sandbox`, by: 'preset' };
}
