// Permission rules: `tool(pattern)` strings in allow / ask / deny lists, as in Claude Code.
// bash patterns match argv words (`git push:*` = prefix, else exact); other tools match a
// workspace-relative path with a glob. Precedence is deny > ask > allow, whatever the order.
import path from 'node:path';
import { lazyRequire } from '../../util/lazy-require.js';
import { isRm, rmExactArgv, rmRuleWords } from '../bash/knowledge/rm-canon.js';

export interface Rule {
  text: string;
  /** Lower-cased tool name (`Bash(...)` and `bash(...)` are the same rule). */
  tool: string;
  pattern?: string;
  kind: 'any' | 'exact' | 'prefix' | 'glob';
  /** For bash rules: the pattern split into shell words (quotes removed, `:*` dropped). */
  readonly words?: readonly string[];
  /**
   * Canonical spellings of the words, for commands with several (rm): `broad` for deny and ask
   * rules (`rm -fr ~/` → `rm -rf ~`), `exact` for allow rules (`rm -fr ./x` → `rm -rf x`).
   */
  readonly canon?: { readonly broad: readonly string[]; readonly exact: readonly string[] };
}

export interface RuleSet {
  allow: Rule[];
  ask: Rule[];
  deny: Rule[];
}

export interface RuleSubject {
  readonly argv?: readonly string[];
  readonly path?: string;
}

export type RuleList = 'deny' | 'ask' | 'allow';

/**
 * Built-in defaults. `rm` rules and commands are matched in canonical spellings (rm-canon.ts:
 * `rm -fr ./x ~//` counts as `rm -rf x` and `rm -rf ~`), and git after its global options
 * (`git -C . push` counts as `git push`), so these few rules cover the usual variants.
 * `curl ... | sh` is not a rule: the classifier asks (risk high) for any shell or interpreter
 * that runs code from its standard input, and names the downloader in the reason.
 */
export const DEFAULT_RULES: { allow: string[]; ask: string[]; deny: string[] } = {
  allow: [],
  ask: [
    'bash(git push:*)',
    'bash(npm publish:*)', 'bash(yarn publish:*)', 'bash(yarn npm publish:*)', 'bash(pnpm publish:*)', 'bash(bun publish:*)',
    'bash(rm -rf:*)', 'bash(rm -r:*)',
    'bash(sudo:*)', 'bash(doas:*)', 'bash(su:*)', 'bash(pkexec:*)', 'bash(run0:*)',
  ],
  deny: ['bash(rm -rf /)', "bash(rm -rf '/*')", 'bash(rm -rf ~)', 'bash(rm -rf ~/)', "bash(rm -rf '~/*')"],
};

const RULE_RE = /^([A-Za-z_][A-Za-z0-9_.-]*)(?:\((.*)\))?$/s;

/** Parse one rule; throws an Error naming the text when it is malformed. */
export function parseRule(text: string): Rule {
  const m = RULE_RE.exec(text.trim());
  if (!m) throw new Error(`invalid permission rule "${text}": expected tool or tool(pattern)`);
  const tool = (m[1] as string).toLowerCase();
  const pattern = m[2]?.trim();
  if (pattern === undefined) return { text, tool, kind: 'any' };
  if (pattern === '') throw new Error(`invalid permission rule "${text}": empty pattern`);
  if (tool !== 'bash') return { text, tool, pattern, kind: 'glob' };
  if (pattern === '*' || pattern === ':*') return { text, tool, pattern, kind: 'any' };
  const prefix = pattern.endsWith(':*') || pattern.endsWith(' *');
  const body = prefix ? pattern.slice(0, -2) : pattern;
  const words = splitWords(body, text);
  if (words.length === 0) throw new Error(`invalid permission rule "${text}": empty pattern`);
  const canon = isRm(words[0]) ? { broad: rmRuleWords(words), exact: rmExactArgv(words) ?? words } : undefined;
  return { text, tool, pattern, kind: prefix ? 'prefix' : 'exact', words, ...(canon ? { canon } : {}) };
}

/**
 * Split a rule pattern into words with shell quoting (no expansions: `$` is literal).
 * An unquoted `*` is refused: only the trailing `:*` is a wildcard; quote it to mean a star.
 */
function splitWords(s: string, text: string): string[] {
  const out: string[] = [];
  let cur: string | undefined;
  for (let i = 0; i < s.length; i++) {
    const ch = s[i] as string;
    if (/\s/.test(ch)) {
      if (cur !== undefined) out.push(cur);
      cur = undefined;
    } else if (ch === "'" || ch === '"') {
      const end = s.indexOf(ch, i + 1);
      if (end < 0) throw new Error(`invalid permission rule "${text}": unbalanced ${ch}`);
      cur = (cur ?? '') + s.slice(i + 1, end);
      i = end;
    } else if (ch === '\\' && i + 1 < s.length) {
      cur = (cur ?? '') + s[++i];
    } else if (ch === '*') {
      throw new Error(`invalid permission rule "${text}": only a trailing ":*" wildcard is supported (quote a literal '*')`);
    } else cur = (cur ?? '') + ch;
  }
  if (cur !== undefined) out.push(cur);
  return out;
}

/** Built-in defaults (unless withDefaults is false) followed by the user's lists. */
export function buildRuleSet(lists: { allow?: string[]; ask?: string[]; deny?: string[] }, withDefaults = true): RuleSet {
  const pick = (key: RuleList): Rule[] => [
    ...(withDefaults ? DEFAULT_RULES[key] : []),
    ...(lists[key] ?? []),
  ].map(parseRule);
  return { allow: pick('allow'), ask: pick('ask'), deny: pick('deny') };
}

/**
 * Does the rule match? `spelling` also tries the rule's canonical words (see Rule.canon); the
 * caller passes the command in the same canonical spellings.
 */
export function matchRule(rule: Rule, tool: string, subject: RuleSubject, spelling?: 'broad' | 'exact'): boolean {
  if (rule.tool !== tool.toLowerCase()) return false;
  switch (rule.kind) {
    case 'any':
      return true;
    case 'exact':
    case 'prefix': {
      const argv = subject.argv;
      if (!argv) return false;
      return fits(rule.kind, rule.words ?? [], argv) || (spelling !== undefined && rule.canon !== undefined && fits(rule.kind, rule.canon[spelling], argv));
    }
    case 'glob':
      return subject.path !== undefined && globMatch(rule.pattern ?? '', subject.path);
  }
}

function fits(kind: 'exact' | 'prefix', words: readonly string[], argv: readonly string[]): boolean {
  if (argv.length < words.length || (kind === 'exact' && argv.length !== words.length)) return false;
  for (let i = 0; i < words.length; i++) if (argv[i] !== words[i]) return false;
  return true;
}

// minimatch loads with the first path rule matched, not at start-up.
const glob = lazyRequire<typeof import('minimatch')>('minimatch');

/** A path outside the workspace (absolute or `..`) only matches a pattern that says so. */
function globMatch(pattern: string, file: string): boolean {
  const p = path.posix.normalize(file.replace(/^\.\/+/, ''));
  const outside = p.startsWith('/') || p === '..' || p.startsWith('../');
  const patternOutside = pattern.startsWith('/') || pattern.startsWith('..') || pattern.startsWith('~');
  if (outside !== patternOutside) return false;
  return glob().minimatch(p, pattern, { dot: true });
}

/** The deciding rule for one call: any deny, else any ask, else any allow. */
export function findRule(rules: RuleSet, tool: string, subject: RuleSubject): { list: RuleList; rule: Rule } | undefined {
  for (const list of ['deny', 'ask', 'allow'] as const) {
    const rule = rules[list].find((r) => matchRule(r, tool, subject));
    if (rule) return { list, rule };
  }
  return undefined;
}
