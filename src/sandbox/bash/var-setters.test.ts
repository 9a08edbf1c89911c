import { describe, expect, it } from 'vitest';
import { classifyBash } from './classifier.js';
import { buildRuleSet } from '../policy/rules.js';

// Family: "variables that change what runs are set without NAME=value". Every way bash can set
// (or remove) a variable, applied to every kind of dangerous name, must be judged like the
// assignment `NAME=value` (ask, risk high); a name only known at run time asks too.

const rules = buildRuleSet({});

/** Names whose value changes which program runs or what it loads. */
const RISKY = ['PATH', 'BASH_ENV', 'ENV', 'PS4', 'PROMPT_COMMAND', 'IFS', 'NODE_OPTIONS', 'PYTHONPATH', 'GIT_DIR', 'GIT_EXTERNAL_DIFF',
  'LD_PRELOAD', 'LD_LIBRARY_PATH', 'HOME', 'EXECIGNORE', 'PAGER', 'CDPATH', 'XDG_CONFIG_HOME', 'PERL5OPT'];

/** Every setter; `@` is the variable's name. */
const SETTERS = [
  '@=./x', '@+=:./x', '@[0]=./x', '@=(./x)', '@=./x ls', 'read @ < f', 'read -r @ <<< ./x', 'read -r a @ <<< "x ./y"', 'read -a @ < f',
  'read -ra @ < f', 'read -d , @ < f', 'IFS=: read -r @ < f', 'while read -r @; do ls; done < f', 'printf -v @ ./x', 'printf -v@ ./x',
  'printf -v @ %s ./x', 'mapfile @ < f', 'mapfile -t @ < f', 'readarray -t @ < f', 'getopts ab @', 'wait -p @ -n', 'declare @',
  'declare @=./x', 'declare -x @=./x', 'declare -g @', 'typeset @=./x', 'f() { local @; ls; }', 'f() { local @=./x; }', 'export @',
  'export @=./x', 'export -n @', 'readonly @', 'readonly @=./x', "declare '@=./x'", 'declare "@=$x"', 'export "@=$x"',
  'for @ in ./x; do ls; done', 'for @ in a b; do ls; done', 'select @ in ./x; do ls; done', ': ${@:=./x}', ': ${@=./x}',
  'echo "${@:=./x}"', 'exec {@}>/dev/null', ': {@}>/dev/null', 'ls {@}</dev/null', 'unset @', 'unset -v @', 'env -u @ ls',
  'env --unset=@ ls', 'env @=./x ls', 'sudo @=./x ls', 'command read @ < f', 'builtin printf -v @ x', 'f=1 export @=./x',
  'command export @=./x', 'bash -c "read @ < f"', 'x=$(read @ < f)', '(read @ < f; ls)',
];

describe('setting a dangerous variable', () => {
  const rows = SETTERS.flatMap((s) => RISKY.map((n) => s.replaceAll('@', n)));
  it(`asks (high) for ${rows.length} setter × name combinations`, async () => {
    for (const cmd of rows) {
      const v = await classifyBash(cmd, rules);
      expect({ cmd, action: v.action, risk: v.risk, readOnly: v.readOnly }).toEqual({ cmd, action: 'ask', risk: 'high', readOnly: false });
    }
  });

  it('catches the red-team example', async () => {
    expect(await classifyBash('read -r PATH <<< ./bin:/usr/bin; ls', rules)).toMatchObject({ action: 'ask', risk: 'high', readOnly: false });
  });
});

describe('setting a variable whose name is only known at run time', () => {
  const NAMES = ['"$n"', '$n', '"${n}"', '$(echo PATH)'];
  const TEMPLATES = ['read @ < f', 'read -a @ < f', 'printf -v @ x', 'mapfile @ < f', 'getopts ab @', 'wait -p @ -n', 'declare @=x',
    'declare "@=x"', 'export @', 'local @', 'readonly @', 'unset @', 'typeset @', 'declare -- @'];
  const rows = TEMPLATES.flatMap((t) => NAMES.map((n) => t.replaceAll('@', n)));
  it(`asks for ${rows.length} combinations`, async () => {
    for (const cmd of rows) {
      const v = await classifyBash(cmd, rules);
      expect({ cmd, action: v.action, readOnly: v.readOnly }).toEqual({ cmd, action: 'ask', readOnly: false });
    }
  });
});

describe('ordinary variables stay read-only', () => {
  it.each([
    'read -r line < f', 'while IFS= read -r line; do echo "$line"; done < f', 'IFS=, read -r a b < f', 'printf -v out %s x',
    'mapfile -t lines < f', 'for f in *.ts; do wc -l "$f"; done', 'getopts ab opt', 'x=1; echo $x', 'declare -p PATH', 'unset -f ls',
    'echo hi {fd}>/dev/null', 'echo ${X:-d}', 'select x in a b; do echo $x; done', 'f() { local x=1; echo $x; }', 'read -r -a parts <<< "a b"',
  ])('%s', async (cmd) => {
    expect(await classifyBash(cmd, rules)).toMatchObject({ action: 'allow', readOnly: true });
  });

  it.each(['export FOO=1', 'export FOO', 'FOO=1 ls', 'declare -x FOO', 'mapfile -C "rm x" -c 1 arr < f'])('but asks for %s (environment or code)', async (cmd) => {
    expect(await classifyBash(cmd, rules)).toMatchObject({ action: 'ask', readOnly: false });
  });
});
