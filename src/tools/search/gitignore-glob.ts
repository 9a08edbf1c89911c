// gitignore-style globs compiled to JavaScript regular expressions, the way ripgrep's `ignore`
// crate reads them (globset with a literal separator): the built-in search engine must skip
// exactly the files ripgrep skips. The same compiler reads the tools' own `glob` filters.
//   *   any run of characters but /          ?   one character but /
//   **/ any folders (leading)   /** everything inside (trailing)   /**/ zero or more folders
//   [abc] [a-z] [!a] [^a]  a class          {a,b}  alternatives (not nested)
//   \x  a literal x
// A `**` that does not stand alone between slashes is two `*`, as in globset.

export class GlobSyntaxError extends Error {}

const REGEX_META = /[\\^$.*+?()[\]{}|]/g;
const esc = (c: string) => c.replace(REGEX_META, '\\$&');

/** The body of a regular expression (no anchors) matching what `glob` matches, paths joined by `/`. */
export function globToRegexSource(glob: string): string {
  if (glob === '**') return '.*';
  let out = '';
  let i = 0;
  let depth = 0; // inside {…}
  const n = glob.length;
  while (i < n) {
    const c = glob[i]!;
    if (c === '\\') {
      if (i + 1 >= n) throw new GlobSyntaxError('a glob cannot end with a lone \\');
      out += esc(glob[i + 1]!);
      i += 2;
      continue;
    }
    if (c === '*') {
      if (glob[i + 1] !== '*') {
        out += '[^/]*';
        i++;
        continue;
      }
      // `**`: recursive only at a component boundary (or an alternative's edge), as globset reads it.
      const prev = i === 0 ? undefined : glob[i - 1];
      const next = glob[i + 2];
      const startOk = prev === undefined || prev === '/' || (depth > 0 && (prev === ',' || prev === '{'));
      const endOk = next === undefined || next === '/' || (depth > 0 && (next === ',' || next === '}'));
      if (!startOk || !endOk) {
        out += '[^/]*[^/]*';
        i += 2;
        continue;
      }
      if (i === 0 && next === '/') {
        out += '(?:/?|.*/)';
        i += 3;
        continue;
      }
      if (out.endsWith('/')) out = out.slice(0, -1);
      if (next === '/') {
        out += '(?:/|/.*/)';
        i += 3;
      } else {
        out += prev === undefined ? '.*' : '/.*';
        i += 2;
      }
      continue;
    }
    if (c === '?') {
      out += '[^/]';
      i++;
      continue;
    }
    if (c === '[') {
      let j = i + 1;
      let negate = false;
      if (glob[j] === '!' || glob[j] === '^') {
        negate = true;
        j++;
      }
      let body = '';
      let first = true;
      while (j < n && (glob[j] !== ']' || first)) {
        const ch = glob[j]!;
        if (ch === '-' && !first && glob[j + 1] !== undefined && glob[j + 1] !== ']') {
          body += '-';
        } else {
          body += ch === '\\' || ch === ']' || ch === '[' || ch === '^' || ch === '-' ? `\\${ch}` : ch;
        }
        first = false;
        j++;
      }
      if (j >= n) throw new GlobSyntaxError(`unclosed character class [ in ${JSON.stringify(glob)}`);
      out += `[${negate ? '^' : ''}${body}]`;
      i = j + 1;
      continue;
    }
    if (c === '{') {
      if (depth > 0) throw new GlobSyntaxError(`nested {…} alternatives are not supported in ${JSON.stringify(glob)}`);
      depth++;
      out += '(?:';
      i++;
      continue;
    }
    if (c === '}' && depth > 0) {
      depth--;
      out += ')';
      i++;
      continue;
    }
    if (c === ',' && depth > 0) {
      out += '|';
      i++;
      continue;
    }
    out += esc(c);
    i++;
  }
  if (depth > 0) throw new GlobSyntaxError(`unclosed { in ${JSON.stringify(glob)}`);
  return out;
}

/** One line of an ignore file (or one `glob` filter), ready to match paths relative to its root. */
export interface IgnoreGlob {
  re: RegExp;
  /** A `!` line: a match un-ignores. */
  whitelist: boolean;
  /** A trailing `/`: matches folders only. */
  dirOnly: boolean;
}

/**
 * One line of a .gitignore-style file, or undefined for a blank line, a comment, or a glob
 * ripgrep would refuse too. A glob without a slash matches a name at any depth; one with a
 * slash (or a leading one) is anchored to the file's folder.
 */
export function parseIgnoreLine(raw: string, caseInsensitive = false): IgnoreGlob | undefined {
  let line = raw;
  if (line.startsWith('#')) return undefined;
  if (!line.endsWith('\\ ')) line = line.trimEnd();
  if (line === '') return undefined;
  let whitelist = false;
  let anchored = false;
  if (line.startsWith('\\!') || line.startsWith('\\#')) {
    line = line.slice(1);
    anchored = line.startsWith('/');
  } else {
    if (line.startsWith('!')) {
      whitelist = true;
      line = line.slice(1);
    }
    if (line.startsWith('/')) {
      line = line.slice(1);
      anchored = true;
    }
  }
  let dirOnly = false;
  if (line.endsWith('/')) {
    dirOnly = true;
    line = line.slice(0, -1);
  }
  if (line === '') return undefined;
  let glob = line;
  if (!anchored && !glob.includes('/') && glob !== '**') glob = `**/${glob}`;
  if (glob.endsWith('/**')) glob += '/*';
  try {
    return { re: new RegExp(`^${globToRegexSource(glob)}$`, caseInsensitive ? 'i' : ''), whitelist, dirOnly };
  } catch {
    return undefined;
  }
}

/** The last line of `globs` matching `rel` decides: 'ignore', 'whitelist', or undefined when none matches. */
export function matchLast(globs: readonly IgnoreGlob[], rel: string, isDir: boolean): 'ignore' | 'whitelist' | undefined {
  for (let i = globs.length - 1; i >= 0; i--) {
    const g = globs[i]!;
    if (g.dirOnly && !isDir) continue;
    if (g.re.test(rel)) return g.whitelist ? 'whitelist' : 'ignore';
  }
  return undefined;
}
