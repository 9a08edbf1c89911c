import { describe, expect, it } from 'vitest';
import type { ToolJudgement } from '../../protocol/index.js';
import { decide, type PolicyInput } from './policy.js';
import { buildRuleSet } from './rules.js';

const rules = buildRuleSet({ allow: ['write_file(docs/**)'], ask: ['edit_file(src/secret/**)'], deny: ['write_file(dist/**)'] });
const bash = (v: Partial<ToolJudgement>): ToolJudgement => ({ action: 'allow', risk: 'low', reason: 'read-only', readOnly: true, ...v });
const base = (over: Partial<PolicyInput>): PolicyInput => ({ preset: 'auto', tool: 'write_file', effect: 'write', rules, ...over });

describe('decide(policy, call)', () => {
  const table: [string, Partial<PolicyInput>, 'allow' | 'ask' | 'deny', PolicyInputBy?][] = [
    ['reads are allowed under suggest', { preset: 'suggest', tool: 'read_file', effect: 'read', path: 'a.ts' }, 'allow'],
    ['suggest asks before a write', { preset: 'suggest', path: 'a.ts' }, 'ask', 'preset'],
    ['auto writes inside the workspace', { path: 'a.ts' }, 'allow', 'preset'],
    ['auto asks before a write outside the workspace', { path: '../elsewhere/a.ts' }, 'ask', 'preset'],
    ['full-auto writes', { preset: 'full-auto', path: 'a.ts' }, 'allow', 'preset'],
    ['a deny rule refuses under full-auto', { preset: 'full-auto', path: 'dist/x.js' }, 'deny', 'rule'],
    ['an ask rule asks under auto', { tool: 'edit_file', path: 'src/secret/k.ts' }, 'ask', 'rule'],
    ['an allow rule lets suggest write', { preset: 'suggest', path: 'docs/a.md' }, 'allow', 'rule'],
    ['persisted never refuses under full-auto', { preset: 'full-auto', path: 'a.ts', persisted: 'never' }, 'deny', 'persisted'],
    ['persisted always allows under suggest', { preset: 'suggest', path: 'a.ts', persisted: 'always' }, 'allow', 'persisted'],
    ['a deny rule beats persisted always', { path: 'dist/x.js', persisted: 'always' }, 'deny', 'rule'],
    ['auto runs a read-only command', { tool: 'bash', effect: 'execute', judgement: bash({}) }, 'allow', 'classifier'],
    ['suggest runs a read-only command', { preset: 'suggest', tool: 'bash', effect: 'execute', judgement: bash({}) }, 'allow', 'classifier'],
    ['suggest asks before an allowed command that writes', { preset: 'suggest', tool: 'bash', effect: 'execute', judgement: bash({ readOnly: false }) }, 'ask', 'preset'],
    ['auto asks what the classifier asks', { tool: 'bash', effect: 'execute', judgement: bash({ action: 'ask', risk: 'medium', readOnly: false }) }, 'ask', 'classifier'],
    ['a bash deny verdict refuses', { preset: 'full-auto', tool: 'bash', effect: 'execute', judgement: bash({ action: 'deny', rule: 'bash(rm -rf /)' }) }, 'deny', 'rule'],
    ['full-auto runs what the classifier would ask', { preset: 'full-auto', tool: 'bash', effect: 'execute', judgement: bash({ action: 'ask', readOnly: false }) }, 'allow', 'preset'],
    ['full-auto refuses an opaque command', { preset: 'full-auto', tool: 'bash', effect: 'execute', judgement: bash({ action: 'ask', risk: 'high', opaque: true }) }, 'deny', 'classifier'],
    ['persisted always never allows an opaque command', { tool: 'bash', effect: 'execute', persisted: 'always', judgement: bash({ action: 'ask', risk: 'high', opaque: true }) }, 'ask', 'classifier'],
    ['persisted always on an opaque command is still refused under full-auto', { preset: 'full-auto', tool: 'bash', effect: 'execute', persisted: 'always', judgement: bash({ action: 'ask', risk: 'high', opaque: true }) }, 'deny', 'classifier'],
    ['persisted never refuses an opaque command', { tool: 'bash', effect: 'execute', persisted: 'never', judgement: bash({ action: 'ask', risk: 'high', opaque: true }) }, 'deny', 'persisted'],
    ['auto asks before an MCP tool', { tool: 'mcp__srv__echo', effect: 'execute' }, 'ask', 'preset'],
  ];
  it.each(table)('%s', (_name, over, action, by) => {
    const v = decide(base(over));
    expect(v.action).toBe(action);
    if (by) expect(v.by).toBe(by);
    expect(v.reason.length).toBeGreaterThan(0);
  });

  it('carries the bash verdict risk and the rule that decided', () => {
    const v = decide(base({ tool: 'bash', effect: 'execute', judgement: bash({ action: 'ask', risk: 'high', rule: 'bash(git push:*)', readOnly: false }) }));
    expect(v).toMatchObject({ action: 'ask', risk: 'high', rule: 'bash(git push:*)' });
  });
});

type PolicyInputBy = ReturnType<typeof decide>['by'];
