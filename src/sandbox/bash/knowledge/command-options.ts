// Option tables of the programs ferret runs without asking, and what their operands may do.
// Each table lists every option the program has (GNU coreutils 9.1, grep 3.8, diffutils 3.8,
// util-linux 2.38, file 5.44, jq 1.6, as installed on Debian 12; read from the programs by
// probing getopt_long), with the ones that write files or run programs marked `!`. An option
// not in the table, or a word only known at run time where an unsafe option could be, makes
// the command ask.
import { parseOptions, spec, optWords, valuesOf, hasOption } from './option-specs.js';
import type { OptionSpec, Parsed } from './option-specs.js';
import type { Judgement } from './judgement.js';
import type { Word } from '../parse/shell-parse.js';

const HV = 'help version';
const SUMS = `bctwz | binary check ignore-missing quiet status strict tag text warn zero ${HV}`;

/** `shorts | longs` (see option-specs.ts for the syntax). */
const TABLES: Record<string, string> = {
  cat: `AbeEnstTuv | show-all number-nonblank show-ends number squeeze-blank show-tabs show-nonprinting ${HV}`,
  head: `qvz0123456789 c: n: | bytes= lines= quiet/silent verbose zero-terminated ${HV}`,
  tail: `bflqvzF0123456789 c: n: s: | bytes= follow[=] lines= max-unchanged-stats= pid= quiet/silent retry sleep-interval= verbose zero-terminated ${HV}`,
  wc: `clmwL | bytes chars debug files0-from= lines max-line-length words ${HV}`,
  ls: `abcdfghiklmnopqrstuvxABCDFGHLNQRSUXZ1 w: I: T: | all almost-all author block-size= classify[=] color[=] context dereference
    dereference-command-line dereference-command-line-symlink-to-dir directory dired escape file-type format= full-time
    group-directories-first hide= hide-control-chars human-readable hyperlink[=] ignore= ignore-backups indicator-style= inode
    kibibytes literal no-group numeric-uid-gid quote-name quoting-style= recursive reverse show-control-chars si size sort= tabsize=
    time= time-style= width= zero ${HV}`,
  basename: `az s: | multiple suffix= zero ${HV}`,
  dirname: `z | zero ${HV}`,
  realpath: `emqszLP | canonicalize-existing canonicalize-missing logical no-symlinks physical quiet relative-base= relative-to= strip zero ${HV}`,
  readlink: `efmnqsvz | canonicalize canonicalize-existing canonicalize-missing no-newline quiet/silent verbose zero ${HV}`,
  nl: `p b: d: f: h: i: l: n: s: v: w: | body-numbering= footer-numbering= header-numbering= join-blank-lines= line-increment= no-renumber
    number-format= number-separator= number-width= section-delimiter= starting-line-number= ${HV}`,
  paste: `sz d: | delimiters= serial zero-terminated ${HV}`,
  seq: `w0123456789 f: s: | equal-width format= separator= ${HV}`,
  stat: `ftL c: | cached= dereference file-system format= printf= terse ${HV}`,
  cut: `nsz b: c: d: f: | bytes= characters= complement delimiter= fields= only-delimited output-delimiter= zero-terminated ${HV}`,
  tr: `cdstC | complement delete squeeze-repeats truncate-set1 ${HV}`,
  tac: `br s: | before regex separator= ${HV}`,
  rev: `hV | ${HV}`,
  numfmt: `z d: | debug delimiter= field= format= from= from-unit= grouping header[=] invalid= padding= round= suffix= to= to-unit=
    zero-terminated ${HV}`,
  du: `abchklmsxDHLPS0 d: t: B: X: | all apparent-size block-size= bytes count-links dereference dereference-args exclude= exclude-from=
    files0-from= human-readable inodes max-depth= no-dereference null one-file-system separate-dirs si summarize threshold= time[=]
    time-style= total ${HV}`,
  df: `ahiklmvHPT t: x: B: F: | all block-size= exclude-type= human-readable inodes local no-sync output[=] portability print-type si
    sync total type= ${HV}`,
  printenv: `0 | null ${HV}`,
  fold: `bs0123456789 w: | bytes spaces width= ${HV}`,
  fmt: `cstu0123456789 g: p: w: | crown-margin goal= prefix= split-only tagged-paragraph uniform-spacing width= ${HV}`,
  comm: `z123 | check-order nocheck-order output-delimiter= total zero-terminated ${HV}`,
  join: `iz a: e: j: o: t: v: 1: 2: | check-order header ignore-case nocheck-order zero-terminated ${HV}`,
  od: `abcdefhilosvxBDFHILOX w:: j: t: A: N: S: | address-radix= endian= format= output-duplicates read-bytes= skip-bytes= strings[=]
    traditional width[=] ${HV}`,
  md5sum: SUMS, sha1sum: SUMS, sha224sum: SUMS, sha256sum: SUMS, sha384sum: SUMS, sha512sum: SUMS,
  b2sum: `bctwz l: | binary check ignore-missing length= quiet status strict tag text warn zero ${HV}`,
  cksum: `bctwz a: l: | algorithm= check debug ignore-missing length= quiet status strict tag untagged warn zero ${HV}`,
  sum: `rs | sysv ${HV}`,
  nproc: ` | all ignore= ${HV}`,
  tty: `s | quiet/silent ${HV}`,
  sleep: ` | ${HV}`,
  uname: `aimnoprsv | all hardware-platform kernel-name kernel-release kernel-version machine nodename operating-system processor release
    sysname ${HV}`,
  id: `agnruzGZ | context group groups name real user zero ${HV}`,
  groups: ` | ${HV}`, whoami: ` | ${HV}`, arch: ` | ${HV}`, tsort: ` | ${HV}`, factor: ` | ${HV}`,
  base64: `di w: | decode ignore-garbage wrap= ${HV}`,
  base32: `di w: | decode ignore-garbage wrap= ${HV}`,
  expand: `i0123456789 t: | initial tabs= ${HV}`,
  unexpand: `a0123456789 t: | all first-only tabs= ${HV}`,
  pr: `abcdfmrtvFJT0123456789 e:: i:: n:: s:: S:: h: l: o: w: D: N: W: | across columns= date-format= double-space expand-tabs[=]
    first-line-number= form-feed header= indent= join-lines length= merge no-file-warnings number-lines[=] omit-header omit-pagination
    output-tabs[=] page-width= pages= sep-string[=] separator[=] show-control-chars show-nonprinting width= ${HV}`,
  shuf: `erz i: n: !o: | echo head-count= input-range= !output= random-source= repeat zero-terminated ${HV}`,
  sort: `bcdfghimnrsuzCMRV k: !o: t: y: S: !T: | batch-size= buffer-size= check[=] !compress-program= debug dictionary-order
    field-separator= files0-from= general-numeric-sort human-numeric-sort ignore-case ignore-leading-blanks ignore-nonprinting key=
    merge month-sort numeric-sort !output= parallel= random-sort random-source= reverse sort= stable !temporary-directory= unique
    version-sort zero-terminated ${HV}`,
  uniq: `cdiuzD0123456789 f: s: w: | all-repeated[=] check-chars= count group[=] ignore-case repeated skip-chars= skip-fields= unique
    zero-terminated ${HV}`,
  date: `Ru d: f: r: !s: I:: | date= debug file= iso-8601[=] reference= resolution rfc-email/rfc-2822/rfc-822 rfc-3339= !set= utc/uct/universal ${HV}`,
  tee: `aip | append ignore-interrupts output-error[=] ${HV}`,
  grep: `abchilnoqrsuvwxyzEFGHILPRTUVZ0123456789 d: e: f: m: A: B: C: D: X: | after-context= basic-regexp before-context= binary
    binary-files= byte-offset color/colour[=] context= count dereference-recursive devices= directories= exclude= exclude-dir=
    exclude-from= extended-regexp file= files-with-matches files-without-match fixed-strings/fixed-regexp group-separator=
    ignore-case include= initial-tab invert-match label= line-buffered line-number line-regexp max-count= no-filename
    no-group-separator no-ignore-case no-messages null null-data only-matching perl-regexp quiet/silent recursive regexp= text
    unix-byte-offsets with-filename word-regexp ${HV}`,
  diff: `abcdefhilnpqrstuvwyBEHNPTZ0123456789 x: C: D: F: I: L: S: U: W: X: | binary brief changed-group-format= color[=] context[=] ed
    exclude= exclude-from= expand-tabs forward-ed from-file= horizon-lines= ifdef= ignore-all-space ignore-blank-lines ignore-case
    ignore-file-name-case ignore-matching-lines= ignore-space-change ignore-tab-expansion ignore-trailing-space inhibit-hunk-merge
    initial-tab label= left-column line-format= minimal new-file new-group-format= new-line-format= no-dereference
    no-ignore-file-name-case normal old-group-format= old-line-format= paginate palette= rcs recursive report-identical-files
    sdiff-merge-assist show-c-function show-function-line= side-by-side speed-large-files starting-file= strip-trailing-cr
    suppress-blank-empty suppress-common-lines tabsize= text to-file= unchanged-group-format= unchanged-line-format=
    unidirectional-new-file unified[=] width= ${HV}`,
  cmp: `bclsv i: n: | bytes= ignore-initial= print-bytes print-chars quiet/silent verbose ${HV}`,
  file: `bcdhiklnrsvELNS0 !p !z !Z !C e: f: m: F: P: | apple brief checking-printout !compile debug dereference exclude= exclude-quiet=
    extension files-from= keep-going list magic-file= mime mime-encoding mime-type no-buffer no-dereference no-pad !no-sandbox
    parameter= !preserve-date print0 raw separator= special-files !uncompress !uncompress-noreport ${HV}`,
  column: `dehtxJLV c: i: l: n: o: p: r: s: E: H: N: O: R: T: W: | columns= fillrows json keep-empty-lines output-separator= output-width=
    separator= table table-columns= table-columns-limit= table-empty-lines table-header-repeat table-hide= table-name=
    table-noextreme= table-noheadings table-order= table-right= table-truncate= table-wrap= tree= tree-id= tree-parent= ${HV}`,
  hexdump: `bcdhovxCLV e: f: n: s: | canonical color[=] format= format-file= length= no-squeezing one-byte-char one-byte-octal skip=
    two-bytes-decimal two-bytes-hex two-bytes-octal ${HV}`,
  strings: `adfhovwHV0123456789 e: n: s: t: T: U: | all bytes= data encoding= include-all-whitespace output-separator= print-file-name
    radix= target= unicode= ${HV}`,
  uptime: `hpsV | pretty since ${HV}`,
  locale: `ackmvV | all-locales category-name charmaps keyword-name verbose usage ${HV}`,
  hostname: `aAdfiIsyhV !b !F: | alias all-fqdns domain fqdn long ip-address all-ip-addresses short yp nis !boot !file= ${HV}`,
  getconf: `a v: | `,
  whereis: `bmsuflhVBMS | ${HV}`,
};
/** Hand-written tables (programs not installed here, or with their own parsers): no abbreviations. */
const EXACT: Record<string, string> = {
  which: 'as | ',
  jq: `cnesrRCMSajhf L: | tab indent= seq stream slurp raw-input null-input compact-output color-output monochrome-output
    ascii-output unbuffered sort-keys raw-output join-output exit-status arg= argjson= slurpfile= rawfile= argfile= args jsonargs
    from-file debug-dump-disasm debug-trace run-tests raw-output0 stream-errors nul-output ${HV}`,
  rg: `abcFLHIiSsvnNxlUopPqw0uhV. !z A: B: C: E: f: g: j: M: m: d: e: r: t: T: | text byte-offset count count-matches column no-column
    crlf no-crlf debug trace fixed-strings no-fixed-strings follow no-follow with-filename no-filename heading no-heading hidden
    no-hidden ignore-case smart-case case-sensitive ignore-file-case-insensitive no-ignore-file-case-insensitive include-zero
    no-include-zero invert-match no-invert-match json no-json line-buffered block-buffered line-number no-line-number line-regexp
    files-with-matches files-without-match files mmap no-mmap multiline no-multiline multiline-dotall no-multiline-dotall no-config
    no-ignore no-ignore-dot no-ignore-exclude no-ignore-files no-ignore-global no-ignore-parent no-ignore-vcs no-messages
    no-require-git no-unicode unicode null null-data one-file-system no-one-file-system only-matching passthru passthrough pcre2
    no-pcre2 pcre2-version pretty quiet no-search-zip sort-files no-sort-files stats no-stats trim no-trim type-list unrestricted
    vimgrep word-regexp auto-hybrid-regex no-auto-hybrid-regex binary no-binary glob-case-insensitive no-glob-case-insensitive
    max-columns-preview no-max-columns-preview no-context-separator no-pre after-context= before-context= context= color= colors=
    context-separator= dfa-size-limit= encoding= engine= file= field-context-separator= field-match-separator= glob= iglob=
    ignore-file= threads= max-columns= max-count= max-depth= maxdepth= max-filesize= path-separator= regex-size-limit= regexp=
    replace= sort= sortr= type= type-add= type-clear= type-not= hyperlink-format= !pre= !pre-glob= !hostname-bin= !search-zip ${HV}`,
};

const SPECS = new Map<string, OptionSpec>();
for (const [name, table] of Object.entries(TABLES)) SPECS.set(name, fromTable(table, true));
for (const [name, table] of Object.entries(EXACT)) SPECS.set(name, fromTable(table, false));
SPECS.set('egrep', SPECS.get('grep') as OptionSpec);
SPECS.set('fgrep', SPECS.get('grep') as OptionSpec);

function fromTable(table: string, probed: boolean): OptionSpec {
  const [shorts = '', longs = ''] = table.split('|');
  return spec(shorts, longs, probed ? {} : { prefixes: false, strictValues: true });
}

const READ: Judgement = { readOnly: true, risk: 'low', phrase: 'only reads' };
const ask = (phrase: string): Judgement => ({ readOnly: false, risk: 'medium', phrase });
const SAFE_SINK = /^\/dev\/(null|stdout|stderr)$/;

type Check = (p: Parsed) => Judgement | undefined;
/** What operands (or option values) do, beyond the option table. */
const CHECKS: Record<string, Check> = {
  uniq: (p) => (p.operandsUnknown || p.operands.length > 1 ? ask('writes its second file argument') : undefined),
  date: (p) => (p.operandsUnknown || p.operands.some((o) => !o?.startsWith('+')) ? ask('sets the clock') : undefined),
  tee: (p) => (p.operandsUnknown || p.operands.some((o) => o === undefined || !SAFE_SINK.test(o)) ? ask('writes files') : undefined),
  hostname: (p) => (p.operands.length > 0 ? ask('sets the host name') : undefined),
  jq: (p) => (hasOption(p, '-L') && valuesOf(p, '-L').some((v) => v === undefined) ? ask('loads jq modules from a directory only known at run time') : undefined),
};

/**
 * Judge a command that has an option table; undefined when `base` has none. `extraArgs`: more
 * arguments are appended at run time (`xargs`), which could be options.
 */
export function judgeByOptions(base: string, words: readonly Word[], extraArgs: boolean): Judgement | undefined {
  const s = SPECS.get(base);
  if (!s) return base === 'xxd' ? judgeXxd(words, extraArgs) : base === 'tree' ? judgeTree(words, extraArgs) : undefined;
  if (extraArgs && !s.allSafe) return ask('gets more arguments at run time, which could be options that write files or run programs');
  const p = parseOptions(optWords(words), s);
  if (p.problem) return ask(p.problem);
  if (p.unsafe) return ask(`uses ${p.unsafe}, which writes files or runs programs`);
  return CHECKS[base]?.(p) ?? READ;
}

/**
 * xxd reads an option from its first two characters (`-l`, `-len`, `-l64`); `-c -g -l -n -o -s`
 * take a value, attached or as the next word. A second operand is a file it writes.
 */
function judgeXxd(words: readonly Word[], extraArgs: boolean): Judgement {
  if (extraArgs) return ask('gets more arguments at run time');
  const args = optWords(words);
  let operands = 0;
  for (let i = 0; i < args.length; i++) {
    const a = args[i]?.value;
    if (a === undefined || args[i]?.multi) return ask('has an argument only known at run time');
    if (operands > 0 || a === '-' || !a.startsWith('-')) {
      operands++;
      continue;
    }
    if (a === '--') {
      operands = args.length - i - 1 > 1 ? 2 : operands;
      break;
    }
    const c = a[1] as string;
    if ('cglnos'.includes(c)) {
      // `-l64` has the value attached; `-l`, `-len` (the option's long name) take the next word.
      const tail = { c: 'ols', g: 'roupsize', l: 'en', n: 'ame', o: 'ffset', s: 'eek' }[c] as string;
      const rest = a.slice(2);
      if (rest === '' || rest.startsWith(tail)) i++;
    } else if (!'abCdEehipruv'.includes(c)) return ask(`uses an option ferret does not know (${a})`);
  }
  return operands > 1 ? ask('writes its second file argument') : READ;
}

const TREE_FLAGS = 'adlfxpsugDFqNQrtvUcSnCAhJXi';
const TREE_VALUES = 'LPIHT';
const TREE_LONG = new Set(['--noreport', '--dirsfirst', '--filesfirst', '--gitignore', '--info', '--prune', '--matchdirs', '--ignore-case',
  '--du', '--si', '--inodes', '--device', '--nolinks', '--fromfile', '--fromtabfile', '--fflinks', '--metafirst', '--version', '--help']);
const TREE_LONG_VALUES = new Set(['--charset', '--filelimit', '--timefmt', '--sort', '--gitfile', '--infofile', '--hintro', '--houtro']);

/** tree: its own parser; a value option takes the next word even inside a cluster, so only accept it alone. */
function judgeTree(words: readonly Word[], extraArgs: boolean): Judgement {
  if (extraArgs) return ask('gets more arguments at run time');
  const args = optWords(words);
  for (let i = 0; i < args.length; i++) {
    const a = args[i]?.value;
    if (a === undefined) return ask('has an argument only known at run time where an option could be');
    if (a === '--') break;
    if (!a.startsWith('-') || a === '-') continue;
    if (a.startsWith('--')) {
      const name = a.split('=')[0] as string;
      if (TREE_LONG.has(a)) continue;
      if (TREE_LONG_VALUES.has(name)) {
        if (!a.includes('=')) i++;
        continue;
      }
      return ask(`uses an option ferret does not know (${a})`);
    }
    if (a.length === 2 && TREE_VALUES.includes(a[1] as string)) {
      i++;
      continue;
    }
    if (![...a.slice(1)].every((c) => TREE_FLAGS.includes(c))) return ask(`uses ${a}, which may write files (-o, -R) or is not known`);
  }
  return READ;
}

/** Every command with an option table (for tests). */
export const OPTION_TABLE_COMMANDS: readonly string[] = [...SPECS.keys(), 'xxd', 'tree'];
export const specOf = (base: string): OptionSpec | undefined => SPECS.get(base);
