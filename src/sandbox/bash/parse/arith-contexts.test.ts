import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { isLiteralArith } from './arith-contexts.js';
import { classifyBash } from '../classifier.js';
import { buildRuleSet } from '../../policy/rules.js';
import { loadBashParser } from './shell-parse.js';

// Family: "run-time data reaches bash's evaluator". Bash evaluates `a[$(cmd)]` found in a
// variable's value in every arithmetic context, so each context, fed any operand that is
// not a literal, must ask; fed a literal, it stays read-only.

const rules = buildRuleSet({});

/** Every arithmetic context of bash; `@` is where the operand goes. */
const CONTEXTS = [
  'echo $(( @ ))', 'echo "$(( @ + 1 ))"', 'echo $[ @ ]', '(( @ ))', 'x=$(( @ ))', 'for (( @ ; 0 ; )); do :; done',
  'let "x = @"', "let '@'", 'let "@"', '[[ @ -eq 0 ]]', '[[ 0 -ne @ ]]', '[[ @ -lt 1 ]]', '[[ @ -le 1 ]]', '[[ @ -gt 1 ]]', '[[ @ -ge 1 ]]',
  '[[ -n x && @ -eq 1 ]]', 'echo ${a[@]}', 'echo "${a[@]}"', 'echo ${#a[@]}', 'echo ${a[@]:-x}', 'a[@]=x', 'a[@]+=x', 'a=([@]=x)',
  'declare -a a=([@]=x)', 'declare a[@]=x', 'echo ${s:@}', 'echo ${s:0:@}', 'echo ${s: @ :1}', 'echo ${a[*]:@}',
  'declare -i n; n=@', 'declare -i n=@', 'typeset -i n=@', 'f() { local -i n=@; }', 'declare -ai n=(@)', 'n=@; declare -i n',
  'case $(( @ )) in *) ;; esac', 'cat < "$(( @ ))"', 'if (( @ )); then :; fi', 'while (( @ )); do :; done',
];
/** Operands that are not literals: each can hold (or name something that holds) `a[$(cmd)]`. */
const DYNAMIC = ['v', '$v', '"$v"', '${v}', '${v:-0}', 'v+1', 'b[1]', '$(cat f)', '`cat f`', '$1', '${@}', 'RANDOM'];
/** Literal operands. */
const LITERAL = ['1', '0x1f', '2#101', '16#ff', '1+2*3', '7%3', '$#', '$?', '${#}'];

describe('arithmetic contexts', () => {
  const rows = CONTEXTS.flatMap((c) => DYNAMIC.map((d) => c.replaceAll('@', d)));
  it(`ask for ${rows.length} non-literal operands`, async () => {
    for (const cmd of rows) {
      const v = await classifyBash(cmd, rules);
      expect({ cmd, readOnly: v.readOnly, action: v.action }).toEqual({ cmd, readOnly: false, action: 'ask' });
    }
  });

  // Contexts that are read-only with a literal operand (the rest also set or declare something).
  const literalRows = CONTEXTS.filter((c) => !/^(a\[|a=|declare a|declare -a a|f\(\)|n=@|let "x)/.test(c)).flatMap((c) => LITERAL.map((l) => c.replaceAll('@', l)))
;
  it(`keep ${literalRows.length} literal operands read-only (where tree-sitter-bash parses them)`, async () => {
    const parse = await loadBashParser();
    const parsed = literalRows.filter((cmd) => parse(cmd).ok);
    expect(parsed.length).toBeGreaterThan(literalRows.length * 0.9);
    for (const cmd of parsed) {
      const v = await classifyBash(cmd, rules);
      expect({ cmd, action: v.action, reason: v.reason }).toMatchObject({ cmd, action: 'allow' });
    }
  });

  it.each(['echo ${!v}', 'echo ${!v:-x}', 'echo ${!a[1]}', 'echo ${!a[i]}', 'declare -n r=x', 'local -n r=$1', 'typeset -n r'])(
    'asks for indirection: %s', async (cmd) => {
      expect((await classifyBash(cmd, rules)).readOnly).toBe(false);
    },
  );
  it.each(['echo ${!a[@]}', 'echo ${!pre*}', 'echo ${!pre@}', 'echo ${#x}', 'echo ${x:1:2}', 'echo ${@:2}', 'echo ${x: -1}', '[ "$v" -eq 0 ]', 'test "$v" -gt 1'])(
    'allows: %s', async (cmd) => {
      expect(await classifyBash(cmd, rules)).toMatchObject({ action: 'allow', readOnly: true });
    },
  );

  it('knows literal expressions', () => {
    for (const t of LITERAL) expect(isLiteralArith(t), t).toBe(true);
    for (const t of ['v', '$v', 'a[1]', '1+x', '$(id)', '"1"', "'1'", '$RANDOM', '${#a[i]}']) expect(isLiteralArith(t), t).toBe(false);
  });
});

/** Where bash evaluates a variable *name* at run time: a subscript in it is arithmetic. */
const NAME_CONTEXTS = [
  'read @ <<< x', 'read -r -a @ <<< x', 'printf -v @ x', 'test -v @', '[ -v @ ]', '[[ -v @ ]]', 'unset @', 'unset -v @',
  'mapfile @ < /dev/null', 'readarray -t @ < /dev/null', 'getopts a @', 'wait -p @ -n', 'declare @', 'declare @=1', 'local @', 'readonly @',
];
const DYNAMIC_NAMES = ['"$v"', '$v', '"a[$i]"', "'a[i]'", "'a[$(id)]'", "'a[v+1]'", '"${n}"'];
const LITERAL_NAMES = ['x', "'a[1]'", "'a[@]'", 'a'];

describe('names evaluated at run time', () => {
  const rows = NAME_CONTEXTS.flatMap((c) => DYNAMIC_NAMES.map((n) => c.replaceAll('@', n)));
  it(`ask for ${rows.length} run-time or computed names`, async () => {
    for (const cmd of rows) {
      const v = await classifyBash(cmd, rules);
      expect({ cmd, readOnly: v.readOnly, action: v.action }).toEqual({ cmd, readOnly: false, action: 'ask' });
    }
  });
  const literalRows = NAME_CONTEXTS.filter((c) => !/^(local|declare @=|getopts)/.test(c)).flatMap((c) => LITERAL_NAMES.map((n) => c.replaceAll('@', n)));
  it(`keep ${literalRows.length} literal names read-only`, async () => {
    for (const cmd of literalRows) {
      const v = await classifyBash(cmd, rules);
      expect({ cmd, action: v.action, reason: v.reason }).toMatchObject({ cmd, action: 'allow' });
    }
  });
});

// The contexts above are real: bash runs the command hidden in a variable's value in each.
const bash = ['/bin/bash', '/usr/bin/bash'].find((p) => existsSync(p));
describe.skipIf(!bash)('bash itself (oracle)', () => {
  const ORACLE = [
    'echo $((v))', 'echo $[v]', '((v))', 'let v', '[[ $v -eq 0 ]]', '[[ v -gt 1 ]]', 'echo ${a[v]}', 'echo ${a[$v]}', 'b[v]=1', 'x=([v]=1)',
    'declare -i n; n=$v', 'typeset -i n=v', 's=abc; echo ${s:v}', 'for ((i=v;i<0;i++)); do :; done', 'echo ${!v}', 'printf -v "$v" x',
    'test -v "$v"', '[[ -v $v ]]', 'read "$v" <<< x', 'declare -n r=$v; echo $r',
  ];
  it.each(ORACLE)('runs code from a value: %s', (cmd) => {
    const dir = mkdtempSync(join(tmpdir(), 'ferret-arith-'));
    try {
      const marker = join(dir, 'ran');
      execFileSync(bash as string, ['-c', `v='a[$(: > ${marker})]'; ${cmd}`], { stdio: 'ignore', timeout: 5000 }).toString();
    } catch {
      // bash may report an error after running the substitution; the marker is what counts.
    }
    try {
      expect(existsSync(join(dir, 'ran'))).toBe(true);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
