import { isAbsolute } from 'node:path';
import type { ApprovalPreset, Risk, ToolEffect, ToolJudgement } from '../../protocol/index.js';
import { findRule, type RuleSet } from './rules.js';

export interface PolicyInput {
  preset: ApprovalPreset;
  tool: string;
  effect: ToolEffect;
  /** For path rules: the first path the call names, workspace-relative. */
  path?: string;
  /** The tool's own judgement (it applied the rules itself); without one, the effect and path rules decide. */
  judgement?: ToolJudgement;
  rules: RuleSet;
  persisted?: 'always' | 'never';
}

export interface PolicyVerdict {
  action: 'allow' | 'ask' | 'deny';
  risk: Risk;
  reason: string;
  rule?: string;
  by: 'rule' | 'preset' | 'persisted' | 'classifier';
}

const RISK_OF: Record<ToolEffect, Risk> = { read: 'low', write: 'medium', execute: 'medium' };

/**
 * What a call needs, as a pure function of (policy, call): a deny rule or a persisted
 * "never" refuses under every preset; what cannot be judged is never run unattended nor
 * allowed by a remembered "always"; full-auto never asks; the rest follows the preset.
 */
export function decide(input: PolicyInput): PolicyVerdict {
  const j = input.judgement;
  const risk = j?.risk ?? RISK_OF[input.effect];
  const hit = j
    ? j.action === 'deny' ? { list: 'deny' as const, rule: j.rule } : undefined
    : toHit(findRule(input.rules, input.tool, input.path !== undefined ? { path: input.path } : {}));
  if (hit?.list === 'deny') {
    // A tool's own refusal that no rule made (web_fetch of a private address) says its own reason.
    if (j && !j.rule) return { action: 'deny', risk, reason: j.reason, by: 'classifier' };
    return { action: 'deny', risk, reason: `refused by rule ${hit.rule ?? ''}`.trim(), by: 'rule', ...opt(hit.rule) };
  }
  if (input.persisted === 'never') {
    return { action: 'deny', risk, reason: 'refused: a person chose "never" for this exact request', by: 'persisted' };
  }
  if (j?.opaque) {
    // An "always" was given to the text, not to the code it will run: `eval "$(cat step.txt)"` changes under it.
    if (input.preset === 'full-auto') {
      return { action: 'deny', risk, reason: `full-auto refuses commands that cannot be judged before they run: ${j.reason}`, by: 'classifier' };
    }
    return { action: 'ask', risk, reason: j.reason, by: j.rule ? 'rule' : 'classifier', ...opt(j.rule) };
  }
  if (input.persisted === 'always') {
    return { action: 'allow', risk, reason: 'allowed: a person chose "always" for this exact request', by: 'persisted' };
  }
  if (input.preset === 'full-auto') return { action: 'allow', risk, reason: 'full-auto preset', by: 'preset' };

  if (j) {
    const by = j.rule ? ('rule' as const) : ('classifier' as const);
    if (j.action === 'ask') return { action: 'ask', risk, reason: j.reason, by, ...opt(j.rule) };
    if (input.preset === 'suggest' && !j.readOnly) {
      return { action: 'ask', risk, reason: `suggest preset asks before commands that may write: ${j.reason}`, by: 'preset' };
    }
    return { action: 'allow', risk, reason: j.reason, by, ...opt(j.rule) };
  }
  if (hit?.list === 'ask') return { action: 'ask', risk, reason: `rule ${hit.rule} asks first`, by: 'rule', ...opt(hit.rule) };
  if (hit?.list === 'allow') return { action: 'allow', risk, reason: `allowed by rule ${hit.rule}`, by: 'rule', ...opt(hit.rule) };
  if (input.effect === 'read') return { action: 'allow', risk, reason: 'reads are allowed', by: 'preset' };
  if (input.preset === 'suggest') return { action: 'ask', risk, reason: `suggest preset asks before every ${input.effect}`, by: 'preset' };
  if (input.effect === 'write') {
    // Only danger-full-access lets a file tool reach outside; auto still asks before it does.
    const outside = input.path !== undefined && (input.path.startsWith('..') || isAbsolute(input.path));
    if (outside) return { action: 'ask', risk: 'high', reason: `auto preset asks before writing outside the workspace (${input.path})`, by: 'preset' };
    return { action: 'allow', risk, reason: 'auto preset: writes inside the workspace', by: 'preset' };
  }
  return { action: 'ask', risk, reason: `${input.tool} is not known to be safe`, by: 'preset' };
}

function toHit(h: ReturnType<typeof findRule>): { list: 'deny' | 'ask' | 'allow'; rule?: string } | undefined {
  return h ? { list: h.list, rule: h.rule.text } : undefined;
}

function opt(rule: string | undefined): { rule?: string } {
  return rule ? { rule } : {};
}
