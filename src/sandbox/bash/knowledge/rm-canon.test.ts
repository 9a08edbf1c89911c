import { describe, expect, it } from 'vitest';
import { classifyBash } from '../classifier.js';
import { normalizeBash } from '../normalize.js';
import { broadPath, exactPath, homeForm, lexicalPath } from './rm-canon.js';
import { buildRuleSet } from '../../policy/rules.js';

// Family: "canonical forms for persisted keys and built-in deny rules". Every spelling of a
// recursive delete of `/`, `/*`, `~` or `~/*` is refused by the built-in deny rules; every
// spelling of one rm command shares one persisted key (so a `never` holds), and commands that
// differ in meaning never do.

const rules = buildRuleSet({});

/** Spellings of "recursive and forced", including after the operand and with `--`. */
const FLAGS = ['-rf', '-fr', '-Rf', '-fR', '-r -f', '-f -r', '-R -f', '-r -f -v', '-rfv', '-v -rf', '--recursive --force',
  '--force --recursive', '--rec --forc', '--recursive -f', '-r --force', '-rf --one-file-system', '-rf --no-preserve-root',
  '-i -rf', '-rf -I --interactive=never'];
/** Spellings of recursive without force: deny rules read them as -rf (without a terminal rm does not prompt). */
const RECURSIVE = ['-r', '-R', '--recursive', '--recu', '-rv'];

const TARGETS: Record<string, string[]> = {
  '/': ['/', '//', '///', '/.', '/./', '/./.', '/usr/..', '/tmp/../', '/..'],
  '/*': ['/*', '/*/', '//*', "'/*'", '"/*"', '/./*'],
  '~': ['~', '~/', '~//', '~/.', '~/./', '$HOME', '${HOME}', '"$HOME"', '"${HOME}"', '$HOME/', '"$HOME/"', '"${HOME}/"', '~/x/..'],
  '~/*': ['~/*', '~//*', '~/./*', '$HOME/*', '"$HOME"/*', '${HOME}/*', "~/'*'"],
};
/** Where the target sits among the operands. */
const PLACES = ['@', './x @', '@ ./x', 'a @ b', '-- @'];
const WRAPS = ['@', 'sudo @', 'command @', 'env FOO=1 @', 'timeout 5 @', "bash -c '@'", 'nice -n 5 @', '(@)', 'ls; @', 'xargs @ < list'];

describe('built-in deny rules hold the class of rm -rf /, /*, ~, ~/*', () => {
  const rows: string[] = [];
  for (const [, targets] of Object.entries(TARGETS)) {
    for (const t of targets) {
      for (const f of [...FLAGS, ...RECURSIVE]) rows.push(`rm ${f} ${t}`);
      for (const p of PLACES) rows.push(`rm -rf ${p.replace('@', t)}`);
      for (const w of WRAPS) if (!(w.includes("'") && t.includes("'"))) rows.push(w.replace('@', `rm -rf ${t}`));
      rows.push(`rm ${t} -rf`, `rm ${t} --recursive --force`);
    }
  }
  it(`refuses ${rows.length} spellings`, async () => {
    expect(rows.length).toBeGreaterThan(1000);
    for (const cmd of rows) {
      const v = await classifyBash(cmd, rules);
      expect({ cmd, action: v.action }).toEqual({ cmd, action: 'deny' });
    }
  });

  it.each(['rm -rf ./x', 'rm -rf build', 'rm -rf /tmp/x', 'rm -rf ~/project/build', 'rm -rf "$HOME/x"', 'rm -f ~', 'rm ~/x'])(
    'does not refuse %s (asks instead)', async (cmd) => {
      expect((await classifyBash(cmd, rules)).action).toBe('ask');
    },
  );

  it.each(['rm -rf "$X"', 'rm -rf $X', 'rm -rf ~/"$x"', 'rm $F /', 'rm -rf *'])('asks (high, cannot be checked) for %s', async (cmd) => {
    expect(await classifyBash(cmd, rules)).toMatchObject({ action: 'ask', risk: 'high' });
  });
});

describe('user rules on rm hold every spelling', () => {
  const rs = buildRuleSet({ deny: ['bash(rm -fr build/)'] });
  // Without the defaults: their `ask` on rm -rf would beat any allow rule (deny > ask > allow).
  const allowOnly = buildRuleSet({ allow: ['bash(rm -rf ./dist)'] }, false);
  it.each(['rm -rf build', 'rm -rf ./build', 'rm -rf build//', 'rm --recursive --force build', 'rm -r build', 'rm -rf src build',
    'rm build -rf', 'sudo rm -rf build/', 'rm -rf ./src/../build'])('deny bash(rm -fr build/) refuses %s', async (cmd) => {
    expect((await classifyBash(cmd, rs)).action).toBe('deny');
  });
  it.each(['rm -rf dist', 'rm -fr ./dist', 'rm -r -f dist', 'rm dist -rf', 'rm --recursive --force ./dist'])('allow bash(rm -rf ./dist) allows %s', async (cmd) => {
    expect((await classifyBash(cmd, allowOnly)).action).toBe('allow');
  });
  it.each(['rm -rf dist/', 'rm -rf dist x', 'rm -rfi dist', 'rm -r dist'])('but not %s', async (cmd) => {
    expect((await classifyBash(cmd, allowOnly)).action).toBe('ask');
  });
});

describe('persisted keys', () => {
  /** Each group: spellings of one command, which must share one key. */
  const SAME: string[][] = [
    ['rm -rf x', 'rm -fr x', 'rm -Rf x', 'rm -r -f x', 'rm -f -r x', 'rm --recursive --force x', 'rm --rec --for x', 'rm x -rf', 'rm -rf ./x',
      'rm -rf .//x', 'rm -rf -- x', 'rm -rf -- ./x', 'rm -i -rf x', "rm -rf 'x'", 'rm  -rf  x', 'rm -R --force x', 'rm -rf --interactive=never x'],
    ['rm -rf x/', 'rm -rf x//', 'rm -rf ./x/', 'rm -fr x/./'],
    ['rm -rf ~', 'rm -rf $HOME', 'rm -rf ${HOME}', 'rm -rf "$HOME"', 'rm -rf "${HOME}"', 'rm -fr ~'],
    ['rm -rf ~/', 'rm -rf ~//', 'rm -rf $HOME/', 'rm -rf "$HOME/"', 'rm -rf ~/./'],
    ['rm -rf a b', 'rm -fr ./a b', 'rm a -rf b', 'rm -r a -f b'],
    ['rm -rf -- -x', 'rm -rf ./-x', 'rm -fr -- ./-x'],
    ['rm -rf "$d"', 'rm -fr "$d"', 'rm -r -f "$d"'],
    ['rm -i x', 'rm -f -i x', 'rm --interactive x'],
    ['rm -f x', 'rm -i -f x', 'rm --force x'],
  ];
  /** Pairs that differ in meaning. */
  const DIFFERENT: Array<[string, string]> = [
    ['rm -rf x', 'rm -rf x y'], ['rm -rf x y', 'rm -rf y x'], ['rm -rf x', 'rm -rf x/'], ['rm -rf x', 'rm -r x'], ['rm -rf x', 'rm -f x'],
    ['rm -rf x', 'rm -rfi x'], ['rm -i -f x', 'rm -f -i x'], ['rm ./*', 'rm *'], ['rm -rf "$x"', 'rm -rf -- "$x"'], ['rm -rf x', '/bin/rm -rf x'],
    ['rm -rf ~', "rm -rf '~'"], ['rm -rf ~', 'rm -rf ~/'], ['rm -rf x', 'rm -rf ../x'], ['rm -rf a/../b', 'rm -rf b'], ['rm "$x" -rf', 'rm -rf "$x"'],
    ['rm -rf x', 'rm -rfv x'], ['rm -rf /', 'rm -rf --no-preserve-root /'], ['rm -rf x', 'rm -rf x 2>/dev/null'], ['rm -d x', 'rm x'],
  ];

  it.each(SAME)('share a key: %j', async (...group) => {
    const keys = await Promise.all(group.map((c) => normalizeBash(c)));
    expect(new Set(keys).size, keys.join(' | ')).toBe(1);
  });
  it.each(DIFFERENT)('differ: %j vs %j', async (a, b) => {
    expect(await normalizeBash(a)).not.toBe(await normalizeBash(b));
  });

  it('keys are valid bash that normalizes to itself', async () => {
    for (const c of SAME.flat()) {
      const k = await normalizeBash(c);
      expect(await normalizeBash(k), `${c} → ${k}`).toBe(k);
    }
  });

  it('a never on one spelling holds for all of them (same key)', async () => {
    const never = await normalizeBash('rm -rf x');
    for (const c of SAME[0] as string[]) expect(await normalizeBash(c)).toBe(never);
  });
});

describe('path canonical forms', () => {
  it.each([
    ['./x', 'x', 'x', 'x'], ['x//y/', 'x/y/', 'x/y', 'x/y'], ['/./', '/', '/', '/'], ['///', '/', '/', '/'], ['/usr/..', '/usr/..', '/usr/..', '/'],
    ['~//', '~/', '~', '~'], ['~/a/..', '~/a/..', '~/a/..', '~'], ['.', '.', '.', '.'], ['./', './', '.', '.'], ['/**', '/**', '/*', '/*'],
  ])('%s → exact %s, broad %s, lexical %s', (p, exact, broad, lexical) => {
    expect([exactPath(p), broadPath(p), lexicalPath(p)]).toEqual([exact, broad, lexical]);
  });
  it.each([['$HOME', '~'], ['${HOME}/x', '~/x'], ['"$HOME"', '~'], ['"$HOME/x"', '~/x'], ['"${HOME}"/x', '~/x'], ['$HOMEX', undefined], ['"$HOME"x', undefined]])(
    'homeForm(%s) = %s', (t, want) => {
      expect(homeForm(t)).toBe(want);
    },
  );
});
