// tar lists an archive without writing anything with -t/--list; every other mode writes, and a
// few options run programs (a compressor of the archive's choosing, a checkpoint action, a
// remote shell for `host:file`). Listing counts as read-only only with options known harmless.

/** Short option letters harmless in a listing: list, verbose, the system's own (de)compressors, file. */
const SHORT_OK = new Set(['t', 'v', 'z', 'j', 'J', 'a', 'f']);
/** Long options harmless in a listing (`--file` and the name-matching ones take a value). */
const LONG_OK = new Set(['--list', '--verbose', '--gzip', '--gunzip', '--ungzip', '--bzip2', '--xz', '--lzma', '--zstd', '--auto-compress', '--numeric-owner',
  '--wildcards', '--no-wildcards', '--anchored', '--no-anchored', '--ignore-case', '--full-time', '--utc', '--force-local', '--quoting-style', '--show-transformed-names']);
const LONG_VALUE = new Set(['--file', '--exclude', '--quoting-style']);

/** Why a tar invocation is not read-only, or undefined when it only lists an archive. */
export function tarProblem(args: readonly string[]): string | undefined {
  let list = false;
  const files: string[] = [];
  let forceLocal = false;
  let i = 0;
  // The first word may bundle short options without a dash (`tar tvf x.tar`, the traditional form).
  const first = args[0];
  const bundles: string[] = [];
  if (first !== undefined && /^[A-Za-z]+$/.test(first)) {
    bundles.push(first);
    i = 1;
  }
  const operands: string[] = [];
  const takeBundle = (letters: string): string | undefined => {
    for (let k = 0; k < letters.length; k++) {
      const c = letters[k] as string;
      if (!SHORT_OK.has(c)) return `uses tar option -${c}`;
      if (c === 't') list = true;
      if (c === 'f') {
        // The rest of a dashed bundle, or the next word, names the archive.
        const rest = letters.slice(k + 1);
        const name = rest !== '' ? rest : args[i++];
        if (name === undefined) return 'names no archive after -f';
        files.push(name);
        return undefined;
      }
    }
    return undefined;
  };
  for (const b of bundles) {
    const why = takeBundle(b);
    if (why) return why;
  }
  while (i < args.length) {
    const a = args[i++] as string;
    if (a === '--') {
      operands.push(...args.slice(i));
      break;
    }
    if (a.startsWith('--')) {
      const eq = a.indexOf('=');
      const name = eq < 0 ? a : a.slice(0, eq);
      if (!LONG_OK.has(name) && !LONG_VALUE.has(name)) return `uses tar option ${name}`;
      if (name === '--list') list = true;
      if (name === '--force-local') forceLocal = true;
      const value = eq >= 0 ? a.slice(eq + 1) : LONG_VALUE.has(name) ? args[i++] : undefined;
      if (LONG_VALUE.has(name) && value === undefined) return `gives ${name} no value`;
      if (name === '--file') files.push(value as string);
    } else if (a.startsWith('-') && a !== '-') {
      const why = takeBundle(a.slice(1));
      if (why) return why;
    } else operands.push(a);
  }
  if (!list) return 'creates, changes or extracts an archive (only -t/--list is read-only)';
  // `host:file` is a remote archive, reached by running a remote shell (unless --force-local).
  if (!forceLocal && files.some((f) => f.includes(':'))) return 'reads a remote archive through a remote shell';
  return undefined;
}
