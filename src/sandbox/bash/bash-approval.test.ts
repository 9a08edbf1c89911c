import { describe, expect, it } from 'vitest';
import { bashApproval, judgedLines, MAX_JUDGED_LINES } from './bash-approval.js';
import { buildRuleSet } from '../policy/rules.js';

const rules = buildRuleSet({});

describe('bash approval stays within the event-loop budget', () => {
  it('counts shell lines, not here-document bodies, comments or blank lines', () => {
    expect(judgedLines('ls\n\n# note\npwd')).toBe(2);
    expect(judgedLines(`cat > a.txt <<'EOF'\n${'x\n'.repeat(500)}EOF\necho done`)).toBe(2);
    expect(judgedLines(`cat <<-END\n\tbody\n\tEND\nls`)).toBe(2);
  });

  it('a long script is asked for as a whole (opaque), never judged piece by piece; a long heredoc is judged', async () => {
    const script = Array.from({ length: MAX_JUDGED_LINES + 1 }, (_, i) => `echo ${i}`).join('\n');
    const long = await bashApproval(script, rules);
    expect(long.judgement).toMatchObject({ action: 'ask', risk: 'high', opaque: true, readOnly: false });
    expect(long.judgement.reason).toMatch(/too long to judge/);
    const heredoc = await bashApproval(`cat > notes.txt <<'EOF'\n${'line\n'.repeat(400)}EOF`, rules);
    expect(heredoc.judgement.opaque).toBeUndefined();
  });
});

describe('bash approval keeps its recent verdicts per rule set', () => {
  it('the same text under other rules is judged again, and a caller changing its copy changes nothing', async () => {
    const denyAll = buildRuleSet({ deny: ['bash(npm publish:*)'] });
    const first = await bashApproval('npm publish --dry-run', rules);
    expect(first.judgement.action).not.toBe('deny');
    const ruled = await bashApproval('npm publish --dry-run', denyAll);
    expect(ruled.judgement).toMatchObject({ action: 'deny', rule: 'bash(npm publish:*)' });
    first.judgement.action = 'deny';
    expect((await bashApproval('npm publish --dry-run', rules)).judgement.action).not.toBe('deny');
    expect((await bashApproval('  npm publish --dry-run ', rules)).key).toBe(first.key);
  });
});
