// A generated repository the size of a real one, made once and kept (outside the checkout):
// 100,000 small files in 5,000 folders, a git repository with everything outside the ignored
// folders committed, a `.gitignore` naming `dist/` and `node_modules/` — a third of the files
// sit under `node_modules/`, a tenth under `dist/`, the way a monorepo's do. One file in 500
// holds `needle_<n>` so grep has something to find in both searched and ignored files.
// `node scripts/bench/big-tree.mjs` prints its path; benchmarks call bigTree().
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** Bump when the shape changes: an old tree is made again. */
const VERSION = 1;
export const BIG_TREE = { files: 100_000, folders: 5_000 };

const PARTS = [
  // [top folder, folders, files]: folders sum to 5,000 and files to 100,000
  ['packages', 3_000, 60_000],
  ['node_modules', 1_700, 34_000],
  ['dist', 300, 6_000],
];

function body(top, d, f) {
  const n = (d * 20 + f) % 500 === 0 ? `needle_${d}_${f}` : `haystack_${f}`;
  return `// ${top} ${d}/${f}\nexport const value${f} = '${n}';\nexport function fn${f}(x) {\n  return x + ${f};\n}\n`;
}

function make(dir) {
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, '.gitignore'), 'node_modules/\ndist/\n/.ready\n');
  writeFileSync(join(dir, 'README.md'), '# a generated monorepo for ferret benchmarks\n');
  for (const [top, folders, files] of PARTS) {
    const per = files / folders;
    for (let d = 0; d < folders; d++) {
      // Two levels: top/group_<g>/pkg_<d>, 50 to a group, so no folder has thousands of entries.
      const folder = join(dir, top, `group_${Math.floor(d / 50)}`, `pkg_${d}`);
      mkdirSync(folder, { recursive: true });
      for (let f = 0; f < per; f++) writeFileSync(join(folder, `file_${f}.js`), body(top, d, f));
    }
  }
  const git = (...args) => execFileSync('git', args, { cwd: dir, stdio: 'ignore', env: { ...process.env, GIT_AUTHOR_NAME: 'bench', GIT_AUTHOR_EMAIL: 'b@e', GIT_COMMITTER_NAME: 'bench', GIT_COMMITTER_EMAIL: 'b@e' } });
  git('init', '-q', '-b', 'main');
  git('add', '-A');
  git('commit', '-q', '-m', 'generated');
  writeFileSync(join(dir, '.ready'), String(VERSION));
  execFileSync('git', ['update-index', '--refresh'], { cwd: dir, stdio: 'ignore' });
}

/** The tree's path, made on first use (about a minute) and reused after. */
export function bigTree() {
  const dir = process.env.FERRET_BENCH_TREE ?? join(tmpdir(), `ferret-bench-tree-v${VERSION}`);
  if (!existsSync(join(dir, '.ready'))) make(dir);
  return dir;
}

if (import.meta.url === `file://${process.argv[1]}`) process.stdout.write(bigTree() + '\n');
