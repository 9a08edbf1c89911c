// find's expression language (GNU findutils 4.9): every primary with the number of words it
// takes. Only tests, the printing actions and the operators count as read-only; `-delete`,
// `-fprint*`, `-fls` write, and an unknown primary or a word only known at run time where a
// primary could be asks. `-exec`/`-ok` and their commands are split off before this runs.
import type { Judgement } from './judgement.js';
import { optWord } from './option-specs.js';
import type { Word } from '../parse/shell-parse.js';

const words = (s: string): string[] => s.split(/\s+/).filter(Boolean);
const ARITY = new Map<string, number>();
for (const p of words(`-depth -d -mount -xdev -noleaf -follow -ignore_readdir_race -noignore_readdir_race -daystart -warn -nowarn
  -true -false -empty -executable -readable -writable -nouser -nogroup -print -print0 -ls -prune -quit -not -a -and -o -or ! ( ) ,
  -help --help -version --version`)) ARITY.set(p, 0);
for (const p of words(`-maxdepth -mindepth -regextype -files0-from -name -iname -path -ipath -wholename -iwholename -regex -iregex
  -lname -ilname -type -xtype -size -perm -user -group -uid -gid -links -inum -samefile -newer -anewer -cnewer -mtime -mmin -atime
  -amin -ctime -cmin -used -fstype -context -printf`)) ARITY.set(p, 1);
const WRITES = new Map([['-delete', 0], ['-fprint', 1], ['-fprint0', 1], ['-fls', 1], ['-fprintf', 2]]);
/** `-newerXY`: X and Y are a (access), B (birth), c (change), m (modify), Y may be t (a date). */
const NEWER_XY = /^-newer[aBcm][aBcmt]$/;

const READ: Judgement = { readOnly: true, risk: 'low', phrase: 'only reads' };
const ask = (risk: 'medium' | 'high', phrase: string): Judgement => ({ readOnly: false, risk, phrase });

/** Judge find's argv (without the program name and without its -exec parts). */
export function judgeFind(args: readonly Word[], extraArgs: boolean): Judgement {
  if (extraArgs) return ask('medium', 'gets more arguments at run time, which could be -delete or -fprint');
  let i = 0;
  // Global options, then starting points: words up to the first that starts an expression.
  for (; i < args.length; i++) {
    const v = optWord(args[i] as Word).value;
    if (v === undefined) return ask('medium', 'has an argument only known at run time where an expression could start');
    if (v === '-H' || v === '-L' || v === '-P' || /^-O\d*$/.test(v)) continue;
    if (v === '-D') { i++; continue; }
    if (v.startsWith('-') || v === '(' || v === '!' || v === ')' || v === ',') break;
  }
  for (; i < args.length; i++) {
    const v = optWord(args[i] as Word).value;
    if (v === undefined) return ask('medium', 'has an argument only known at run time where an expression could be');
    const write = WRITES.get(v);
    if (write !== undefined) {
      return v === '-delete' ? ask('high', 'deletes the files it finds (-delete)') : ask('medium', `writes files (${v})`);
    }
    const n = ARITY.get(v) ?? (NEWER_XY.test(v) ? 1 : undefined);
    if (n === undefined) return ask('medium', `uses a find expression ferret does not know (${v})`);
    i += n;
  }
  return READ;
}
