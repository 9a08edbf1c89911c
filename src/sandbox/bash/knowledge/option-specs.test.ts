import { describe, expect, it } from 'vitest';
import { classifyBash } from '../classifier.js';
import { OPTION_TABLE_COMMANDS, specOf } from './command-options.js';
import { BLAME, BRANCH, CONFIG, DIFF, GREP, READ_ONLY, REV, SHORTLOG, STATUS, TAG } from './git-options.js';
import { parseOptions, resolveLong, spec, staticWords } from './option-specs.js';
import type { OptionSpec } from './option-specs.js';
import { buildRuleSet } from '../../policy/rules.js';

// Family: "the classifier trusts options it does not know". Every unsafe option of every
// option table, in every spelling the program accepts (each unique prefix, `=value`, a
// separate value, attached short values, clusters behind safe flags, after operands), must
// make the command ask; every safe option, spelled in full, must keep it read-only.

const rules = buildRuleSet({});
const verdict = async (cmd: string): Promise<{ action: string; readOnly: boolean; reason: string }> => classifyBash(cmd, rules);

/** Every prefix of `--name` that the program resolves to `name` (unique among its long options), and the ambiguous ones. */
function prefixes(s: OptionSpec, name: string): { unique: string[]; ambiguous: string[] } {
  const unique: string[] = [];
  const ambiguous: string[] = [];
  for (let n = 1; n <= name.length; n++) {
    const p = name.slice(0, n);
    const r = resolveLong(s, p);
    if (r === name) unique.push(p);
    else if (typeof r !== 'string') ambiguous.push(p);
  }
  return { unique, ambiguous };
}

/** Spellings of a long option with a value `v` as the program would read them. */
function longSpellings(s: OptionSpec, name: string, v: string): string[] {
  const kind = s.long.get(name);
  const { unique, ambiguous } = s.prefixes ? prefixes(s, name) : { unique: [name], ambiguous: [] };
  const out: string[] = [];
  for (const p of [...unique, ...ambiguous]) {
    if (kind === 'none') out.push(`--${p}`);
    else out.push(`--${p}=${v}`);
    if (kind === 'required') out.push(`--${p} ${v}`);
    if (kind === 'optional') out.push(`--${p}`);
  }
  return out;
}

/** Spellings of a short option: alone, attached value, separate value, clustered behind a safe flag. */
function shortSpellings(s: OptionSpec, c: string, v: string): string[] {
  const kind = s.short.get(c);
  const flag = [...s.short.entries()].find(([k, kd]) => kd === 'none' && !s.unsafe.has(`-${k}`) && !/\d/.test(k))?.[0];
  const bare = kind === 'none' ? [`-${c}`] : kind === 'optional' ? [`-${c}`, `-${c}${v}`] : [`-${c}${v}`, `-${c} ${v}`];
  return s.cluster && flag ? [...bare, ...bare.map((b) => `-${flag}${b.slice(1)}`)] : bare;
}

const OPERAND: Record<string, string> = { tee: '/dev/null', date: '+%s', hostname: '', xxd: 'f', uniq: 'f' };
/** Words some commands need to be read-only apart from the option under test. */
const operand = (cmd: string): string => OPERAND[cmd] ?? 'f';

describe('option tables', () => {
  const commands = OPTION_TABLE_COMMANDS.filter((c) => specOf(c));

  it('cover the programs that used to be read-only whatever their arguments', () => {
    for (const c of ['cat', 'head', 'tail', 'wc', 'ls', 'sort', 'uniq', 'grep', 'diff', 'jq', 'date', 'file', 'rg', 'tee', 'stat', 'du']) {
      expect(OPTION_TABLE_COMMANDS, c).toContain(c);
    }
  });

  const unsafeRows: string[] = [];
  const safeRows: string[] = [];
  for (const cmd of commands) {
    const s = specOf(cmd) as OptionSpec;
    const op = operand(cmd);
    for (const name of s.long.keys()) {
      if (name === 'help' || name === 'version') continue;
      const forms = longSpellings(s, name, 'x');
      if (s.unsafe.has(`--${name}`)) {
        for (const f of forms) unsafeRows.push(`${cmd} ${f} ${op}`, `${cmd} ${op} ${f}`);
      } else {
        const kind = s.long.get(name);
        safeRows.push(`${cmd} --${name}${kind === 'none' ? '' : '=x'} ${op}`.trim());
      }
    }
    for (const c of s.short.keys()) {
      const forms = shortSpellings(s, c, 'x');
      if (s.unsafe.has(`-${c}`)) {
        for (const f of forms) unsafeRows.push(`${cmd} ${f} ${op}`, `${cmd} ${op} ${f}`);
      } else if (c !== 'h' && c !== 'V' && c !== 'v') {
        safeRows.push(`${cmd} ${forms[0] ?? ''} ${op}`.trim());
      }
    }
  }

  it(`asks for each of ${unsafeRows.length} spellings of an unsafe option`, async () => {
    expect(unsafeRows.length).toBeGreaterThan(150);
    for (const cmd of unsafeRows) {
      const v = await verdict(cmd);
      expect({ cmd, readOnly: v.readOnly, action: v.action }).toEqual({ cmd, readOnly: false, action: 'ask' });
    }
  });

  it(`keeps ${safeRows.length} spellings of safe options read-only`, async () => {
    expect(safeRows.length).toBeGreaterThan(500);
    // Options whose meaning needs more than a dummy value or that the table itself refuses alone.
    const skip = /^(date -[dfr]|date --(date|file|reference)|hostname -|tee -|uniq -[fsw]|xxd)/;
    for (const cmd of safeRows.filter((c) => !skip.test(c))) {
      const v = await verdict(cmd);
      expect({ cmd, action: v.action, reason: v.reason }).toMatchObject({ cmd, action: 'allow' });
    }
  });

  it.each([
    // sort: the unsafe options in the shapes the red team used.
    'sort --compress-prog=sh f', 'sort --compress-program sh f', 'sort --outp=~/.bashrc f', 'sort -o x f', 'sort -rno x f',
    'sort -ox f', 'sort f -o x', 'sort -k1 -o x f', 'sort -T /tmp f', 'sort --temp=/tmp f', 'shuf -o x f', 'shuf --out=x f',
    // a word only known at run time, or a glob that may match `-o...`, where an option could be
    'sort "$x" f', 'sort $x f', 'sort * ', 'sort -k $k f', 'ls | xargs sort', 'date "$d"', 'tee "$f"', 'uniq a "$b"',
    // operands that write or set
    'uniq a b', 'date 0101', 'date -s now', 'date --se=now', 'tee out.txt', 'hostname box', 'hostname -F f', 'xxd a b', 'xxd -r a b',
    'xxd -l 4 a b', 'xxd a -- b', 'file -C -m x', 'file -z f', 'file --uncompress f', 'file --preserve f', 'tree -o out', 'tree -R',
    'tree -Lo 2 out', 'rg --pre ./x foo', 'rg --pre=./x foo', 'rg -z foo', 'rg -iz foo', 'rg --search-zip foo', 'rg --hostname-bin ./x foo',
    'rg --pre-glob "*" foo', 'rg --pr ./x foo',
    // unknown options and abbreviations that name several options
    'ls --bogus', 'cat -Q f', 'ls --s', 'grep --fi x f', 'head --q=5 f',
  ])('asks: %s', async (cmd) => {
    expect(await verdict(cmd)).toMatchObject({ action: 'ask', readOnly: false });
  });

  it.each([
    'sort -- -o x', 'sort ./*', 'sort -k 2 -t, f', 'sort -rn f', 'sort --rev f', 'uniq -f 1 f', 'uniq -c', 'date -Iseconds',
    'date -I', 'date --iso=seconds', 'date +%s', 'date -d @1 +%F', 'xxd -l 64 f', 'xxd -len 64 f', 'xxd -c12 f', 'xxd -cols 12 f',
    'xxd -r -p f', 'xxd -ps f', 'tee', 'tee /dev/null', 'hostname', 'hostname -f', 'tree -L 2 -I node_modules', 'tree -d',
    'rg -n foo', 'rg -uu foo', 'rg -A 3 -t ts foo', 'rg --no-pre foo', 'cat "$f"', 'ls $dirs', 'grep -r "$p" .', 'head -n "$n" f',
    'wc -l *', 'ls | xargs cat', 'tail -f log', 'tail -n +5 f', 'head -5 f', 'grep --col=auto x f', 'ls --colo=auto',
    'jq -r .a f', 'jq -rc .a f', 'jq --arg x 1 .a f', 'jq -L mods .a f', 'file -b --mime-type f', 'stat -c %s f',
  ])('allows: %s', async (cmd) => {
    expect(await verdict(cmd)).toMatchObject({ action: 'allow', readOnly: true });
  });
});

describe('git option tables', () => {
  const tables: Array<[string, OptionSpec]> = [
    ['log', REV], ['show', REV], ['rev-list', REV], ['whatchanged', REV], ['diff', DIFF], ['shortlog', SHORTLOG], ['blame', BLAME],
    ['grep', GREP], ['status', STATUS], ['branch', BRANCH], ['tag', TAG], ['config', CONFIG], ['stash show', REV], ['stash list', REV],
    ['reflog', REV], ['reflog show', REV], ...Object.entries(READ_ONLY).map(([k, v]): [string, OptionSpec] => [k === 'worktree' ? 'worktree list' : k, v]),
  ];
  const unsafeRows: string[] = [];
  const safeRows: string[] = [];
  for (const [sub, s] of tables) {
    for (const name of s.long.keys()) {
      const full = s.long.get(name) === 'none' ? `--${name}` : `--${name}=x`;
      if (s.unsafe.has(`--${name}`)) {
        for (const f of longSpellings(s, name, 'x')) unsafeRows.push(`git ${sub} ${f}`, `git ${sub} HEAD ${f}`, `git -C . ${sub} ${f}`);
        // Prefixes the table does not accept still ask (as unknown options).
        for (let n = 1; n < name.length; n++) unsafeRows.push(`git ${sub} --${name.slice(0, n)}=x`);
      } else if (!/^(list|get-url)$/.test(name) && !(sub === 'config' && name === 'edit')) {
        safeRows.push(`git ${sub} ${full}`);
      }
    }
    for (const c of s.short.keys()) {
      if (s.unsafe.has(`-${c}`)) for (const f of shortSpellings(s, c, "'sh -c id'")) unsafeRows.push(`git ${sub} ${f}`, `git ${sub} -e x ${f}`);
    }
  }

  it(`asks for each of ${unsafeRows.length} spellings of an unsafe git option`, async () => {
    expect(unsafeRows.length).toBeGreaterThan(300);
    for (const cmd of unsafeRows) {
      const v = await verdict(cmd);
      expect({ cmd, readOnly: v.readOnly, action: v.action }).toEqual({ cmd, readOnly: false, action: 'ask' });
    }
  });

  it(`keeps ${safeRows.length} safe git options read-only`, async () => {
    expect(safeRows.length).toBeGreaterThan(400);
    // `--format=x` is a configured format name (asks); config actions with `=x` set values.
    const skip = /--(format|pretty)=x$|^git config --(type|default|file|blob)=x$|^git (branch|tag) --(no-)?(contains|merged|points-at|with|without)=x$/;
    for (const cmd of safeRows.filter((c) => !skip.test(c))) {
      const v = await verdict(cmd);
      expect({ cmd, action: v.action, reason: v.reason }).toMatchObject({ cmd, action: 'allow' });
    }
  });

  it.each([
    "git grep -O'sh -c id' -e x", 'git grep -Ovim x', 'git grep -iOvim x', 'git grep --open-files-in-pager=vim x', 'git grep --open x',
    'git grep --open-f=x x', 'git grep --textconv x', 'git grep --textc x', 'git log --output=x', 'git log --output x', 'git log -p --output=/tmp/x',
    'git diff --ext-diff', 'git diff --textconv', 'git show --textconv HEAD', 'git log --show-signature', 'git log --format=%G?',
    'git log --pretty=format:%GS', 'git log --pretty=myalias', 'git cat-file --filters HEAD:x', 'git cat-file --textconv HEAD:x',
    'git -c core.pager=x log', 'git -p log', 'git --paginate log', 'git --exec-path=. log', 'git --git-dir=x log', 'git --work-tree=x status',
    'git --config-env=core.pager=X log', 'git --bogus status', 'git tag -v v1', 'git tag --verify v1', 'git branch --edit-desc',
    'git config --unse x', 'git config --edit', 'git config -e', 'git config a.b c', 'git reflog expire', 'git reflog delete x',
    'git stash show --ext-diff', 'git stash list --output=x', 'git status --sho', 'git log $x', 'git grep "$p"',
  ])('asks: %s', async (cmd) => {
    expect(await verdict(cmd)).toMatchObject({ action: 'ask', readOnly: false });
  });

  it.each([
    'git reflog -n 5', 'git reflog', 'git reflog show --date=iso', 'git tag --sort=-creatordate', 'git tag -n 5', 'git tag -l "v*"',
    'git shortlog -sn', 'git log --oneline -5', 'git log -n 5 --format="%h %s"', 'git log --pretty=fuller', 'git log -S foo -G bar',
    'git diff -U0', 'git diff --cached --name-only', 'git diff --no-textconv', 'git diff --no-ext-diff', 'git status -sb', 'git status -uno',
    'git branch -vv', 'git branch --merged main', 'git grep -n foo', 'git grep -3 foo', 'git grep --ignore-c foo', 'git blame -L 1,2 f',
    'git config -f .gitmodules --get-regexp path', 'git config --get user.name', 'git worktree list', 'git stash show -p',
    'git -C sub status', 'git --no-pager log', 'git -P log -1', 'git for-each-ref --format="%(refname)"', 'git describe --tags --abbrev=0',
  ])('allows: %s', async (cmd) => {
    expect(await verdict(cmd)).toMatchObject({ action: 'allow', readOnly: true });
  });
});

describe('find expressions', () => {
  const unsafe = ['-delete', '-fprint x', '-fprint0 x', '-fls x', '-fprintf x %p', '-exec rm {} ;', '-ok rm {} ;', '-execdir rm {} +', '-bogus'];
  const before = ['', '-name "*.o"', '-type f -o -type d', '( -name a -prune ) -o', '-maxdepth 1'];
  it.each(unsafe.flatMap((u) => before.map((b) => `find . ${b} ${u}`)))('asks: %s', async (cmd) => {
    expect((await verdict(cmd)).readOnly).toBe(false);
  });
  it.each(['find . -name "$x"', 'find . -newer "$f"', 'find . -type f -newermt yesterday', 'find -L . -maxdepth 2 -print0', 'find src -exec wc -l {} +'])(
    'allows: %s', async (cmd) => {
      expect(await verdict(cmd)).toMatchObject({ action: 'allow', readOnly: true });
    },
  );
  it.each(['find "$d" -name x', 'find $d', 'find . $expr', 'find . -name x $more'])('asks when an expression is only known at run time: %s', async (cmd) => {
    expect((await verdict(cmd)).readOnly).toBe(false);
  });
});

describe('parseOptions', () => {
  const s = spec('ab n: I::', 'all bytes= color[=] !output= out-of-band');
  const parse = (...args: string[]) => parseOptions(staticWords(args), s);

  it.each<[string[], Partial<ReturnType<typeof parse>>]>([
    [['-ab', 'f'], { operands: ['f'] }],
    [['-n5', 'f'], { operands: ['f'] }],
    [['-n', '5', 'f'], { operands: ['f'] }],
    [['-an', '5'], { operands: [] }],
    [['-Iz', 'f'], { operands: ['f'] }],
    [['-I', 'f'], { operands: ['f'] }],
    [['f', '--output=x'], { unsafe: '--output' }],
    [['--outp=x'], { unsafe: '--output' }],
    [['--ou=x'], { problem: expect.stringContaining('several') as string }],
    [['--', '--output=x'], { operands: ['--output=x'] }],
    [['--col'], { operands: [] }],
    [['--color', 'f'], { operands: ['f'] }],
    [['--all=x'], { problem: expect.stringContaining('does not take') as string }],
    [['-q'], { problem: expect.stringContaining('-q') as string }],
  ])('%j', (args, want) => {
    expect(parse(...args)).toMatchObject(want);
  });

  it('reads a run-time word where an option could be as a problem unless every option is safe', () => {
    expect(parseOptions([{ value: undefined, multi: false }], s).problem).toBeDefined();
    expect(parseOptions([{ value: undefined, multi: false }], spec('a', 'all')).problem).toBeUndefined();
  });
});
