// `npm run package:vscode` (root) and the e2e test: installs the extension's own dependencies when
// its lockfile changed, then bundles and packs dist/chimera.vsix with @vscode/vsce.
// Prints the .vsix path on stdout. With --deps-only it only installs (the setup script uses that).
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const dir = fileURLToPath(new URL('..', import.meta.url));
const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
const run = (args) => execFileSync(npm, args, { cwd: dir, stdio: ['ignore', 'inherit', 'inherit'] });

const stamp = `${dir}node_modules/.chimera-lock`;
const lock = readFileSync(`${dir}package-lock.json`, 'utf8');
if (!existsSync(stamp) || readFileSync(stamp, 'utf8') !== lock) {
  run(['ci', '--no-audit', '--no-fund', '--loglevel=error']);
  writeFileSync(stamp, lock);
}
if (process.argv.includes('--deps-only')) process.exit(0);
run(['run', '--silent', 'package']);
process.stdout.write(`${dir}dist/chimera.vsix\n`);
