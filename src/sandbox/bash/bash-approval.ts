import type { ToolJudgement } from '../../protocol/index.js';
import { classifyBash } from './classifier.js';
import { normalizeBash } from './normalize.js';
import type { RuleSet } from '../policy/rules.js';
import { setBounded } from '../../util/bounded-map.js';
import { gitMetadataNeed } from './git-metadata.js';
import type { GitMetadataNeed } from './git-metadata-note.js';

/**
 * Judging is synchronous and costs ~2-3 ms of CPU per line of shell: a script longer than this
 * (here-document bodies not counted) would hold every session's event loop past 100 ms, so it is
 * not judged piece by piece but asked for as a whole (and refused under full-auto).
 */
export const MAX_JUDGED_LINES = 24;

/**
 * The bash tool's approval knowledge: the classifier's verdict and the canonical key that a
 * person's "always"/"never" persists under. The parser keeps its last parses, so the two share one.
 */
export interface BashApproval {
  key: string;
  judgement: ToolJudgement;
  /** Whether the command writes the repository's metadata, and may when approved (git-metadata.ts). */
  gitMetadata?: GitMetadataNeed;
}

export async function bashApproval(command: string, rules: RuleSet): Promise<BashApproval> {
  const text = command.trim();
  // The verdict is a function of the text and the rules alone (no file system, no environment):
  // an agent runs the same few commands again and again, and a thousand sessions run the same one.
  let byText = recent.get(rules);
  if (!byText) recent.set(rules, (byText = new Map()));
  const hit = byText.get(text);
  if (hit) return { ...hit, judgement: { ...hit.judgement } };
  const made = await judge(text, rules);
  // Not kept: long texts (memory), and opaque verdicts (one may come from a parser that failed
  // to load, and must not outlive the failure).
  if (text.length <= RECENT_MAX_CHARS && !made.judgement.opaque) setBounded(byText, text, made, RECENT_MAX);
  return { ...made, judgement: { ...made.judgement } };
}

/**
 * Verdicts kept per rule set, oldest dropped first, for texts up to RECENT_MAX_CHARS. A module-level
 * memo on purpose: a pure function of (rules, text), and the WeakMap lets a rule set's entries go with it.
 */
const RECENT_MAX = 64;
const RECENT_MAX_CHARS = 2048;
const recent = new WeakMap<RuleSet, Map<string, BashApproval>>();

async function judge(text: string, rules: RuleSet): Promise<BashApproval> {
  const lines = judgedLines(text);
  if (lines > MAX_JUDGED_LINES) {
    const reason = `The command is a ${lines}-line script, too long to judge command by command without stalling the server; a person must read it (or the agent can split it, or write it to a file and run that).`;
    return { key: text, judgement: { action: 'ask', risk: 'high', reason, readOnly: false, opaque: true } };
  }
  const verdict = await classifyBash(text, rules);
  const key = await normalizeBash(text);
  const { commands, ...judgement } = verdict;
  const gitMetadata = gitMetadataNeed(commands, verdict.opaque === true);
  return { key, judgement, ...(gitMetadata ? { gitMetadata } : {}) };
}

/**
 * Lines of shell outside here-document bodies (which are data, cheap to judge). An approximation:
 * a miscount only decides whether the script is judged at all, never how.
 */
export function judgedLines(text: string): number {
  let count = 0;
  let until: { word: string; tabs: boolean } | undefined;
  for (const line of text.split('\n')) {
    if (until) {
      if ((until.tabs ? line.replace(/^\t+/, '') : line) === until.word) until = undefined;
      continue;
    }
    if (line.trim() === '' || line.trim().startsWith('#')) continue;
    count++;
    const here = /<<(-?)\s*(['"]?)([A-Za-z0-9_]+)\2/.exec(line);
    if (here) until = { word: here[3]!, tabs: here[1] === '-' };
  }
  return count;
}
