import type { ToolJudgement } from '../protocol/index.js';
import { classifyBash } from './classifier.js';
import { normalizeBash } from './normalize.js';
import type { RuleSet } from './rules.js';

/**
 * The bash tool's approval knowledge: the classifier's verdict and the canonical key that a
 * person's "always"/"never" persists under. The parser keeps its last parses, so the two share one.
 */
export async function bashApproval(command: string, rules: RuleSet): Promise<{ key: string; judgement: ToolJudgement }> {
  const text = command.trim();
  const verdict = await classifyBash(text, rules);
  const key = await normalizeBash(text);
  const { commands: _commands, ...judgement } = verdict;
  return { key, judgement };
}
