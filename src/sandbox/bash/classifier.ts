// The bash classifier: parse the command with a real shell parser, judge every simple command
// in it (and in `bash -c` strings, `eval`, substitutions, ...) against the rules and built-in
// knowledge, and combine: deny beats ask beats allow, risk is the maximum.
import { loadBashParser } from './parse/shell-parse.js';
import type { ParseFn } from './parse/shell-parse.js';
import type { Risk } from './knowledge/command-knowledge.js';
import type { RuleSet } from '../policy/rules.js';
import { ShellWalk } from './classify-walk.js';
import type { Item } from './classify-walk.js';

export type { Risk } from './knowledge/command-knowledge.js';

export interface BashVerdict {
  /** allow = known safe or allowed by a rule; ask = needs a person; deny = refused by a rule. */
  action: 'allow' | 'ask' | 'deny';
  risk: Risk;
  /** One human sentence, shown in the permission request. */
  reason: string;
  /** The rule text that decided, e.g. "bash(git push:*)"; undefined when built-in knowledge decided. */
  rule?: string;
  /** Every simple command is known read-only and nothing is written by redirection. */
  readOnly: boolean;
  /** Every simple command found (argv words after unwrapping), for display and debugging. */
  commands: string[][];
  /**
   * Set when part of the command cannot be seen before it runs (parse failure, `eval` of a
   * run-time string, a computed command name, a shell reading code from a pipe). Such a command
   * is always `ask`/high; an unattended caller (full-auto) should refuse it rather than run it.
   */
  opaque?: true;
}

const ACTION_RANK = { allow: 0, ask: 1, deny: 2 } as const;
const RISK_RANK: Record<Risk, number> = { low: 0, medium: 1, high: 2 };

/** Classify a bash command line. Loads the parser on first use (tens of ms), then is sub-millisecond. */
export async function classifyBash(command: string, rules: RuleSet): Promise<BashVerdict> {
  let parse: ParseFn;
  try {
    parse = await loadBashParser();
  } catch (err) {
    const why = err instanceof Error ? err.message : String(err);
    return { action: 'ask', risk: 'high', reason: `The shell parser could not be loaded (${why}).`, readOnly: false, commands: [], opaque: true };
  }
  const walk = new ShellWalk(parse, rules);
  walk.script(command, 0, true);
  walk.finish();
  return combine(walk.items, walk.commands);
}

function combine(items: readonly Item[], commands: string[][]): BashVerdict {
  const readOnly = items.every((i) => i.readOnly);
  const opaque = items.some((i) => i.opaque) ? { opaque: true as const } : {};
  let worst: Item | undefined;
  for (const item of items) {
    if (!worst || worse(item, worst)) worst = item;
  }
  if (!worst) return { action: 'allow', risk: 'low', reason: 'The command runs no program.', readOnly: true, commands };
  const risk = items.reduce<Risk>((r, i) => (RISK_RANK[i.risk] > RISK_RANK[r] ? i.risk : r), 'low');
  const base = { action: worst.action, risk, readOnly, commands, ...opaque };
  if (worst.action !== 'allow' || items.length === 1) {
    return { ...base, reason: worst.reason, ...(worst.rule ? { rule: worst.rule } : {}) };
  }
  const ruled = items.find((i) => i.rule);
  const parts = items.map((i) => i.label).filter((l, k, all) => all.indexOf(l) === k);
  const reason = ruled
    ? `Every part is read-only or allowed by a rule: ${parts.join(', ')}.`
    : `Every part only reads: ${parts.join(', ')}.`;
  return { ...base, reason, ...(ruled?.rule ? { rule: ruled.rule } : {}) };
}

/** Deny over ask over allow, then higher risk, then (for the reason shown) hidden code, then a rule. */
function worse(a: Item, b: Item): boolean {
  const byAction = ACTION_RANK[a.action] - ACTION_RANK[b.action];
  if (byAction !== 0) return byAction > 0;
  const byRisk = RISK_RANK[a.risk] - RISK_RANK[b.risk];
  if (byRisk !== 0) return byRisk > 0;
  if (a.opaque !== b.opaque) return a.opaque === true;
  return a.rule !== undefined && b.rule === undefined;
}
