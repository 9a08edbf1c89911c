// What one search looks at, worked out once from the tool's arguments and shared by both
// engines: the root, the ignore settings, the filters and the folders never read. ripgrep gets
// it as arguments (ripgrep.ts), the built-in engine walks it (walk.ts); both keep a file only
// when `keepFile` agrees, so a filter means the same thing in each.
import { basename } from 'node:path';
import { GlobSyntaxError, globToRegexSource, parseIgnoreLine, type IgnoreGlob } from './gitignore-glob.js';
import { FILE_TYPES, FILE_TYPE_NAMES, fileType } from './file-types.js';

export interface ScopeInput {
  /** A folder (walked) or a file (read as given, no filters), absolute and real. */
  root: string;
  rootIsFile: boolean;
  /** Paths in results are relative to this (the workspace). */
  base: string;
  /** `glob` argument(s): a leading `!` excludes. */
  globs?: readonly string[] | undefined;
  types?: readonly string[] | undefined;
  includeIgnored?: boolean | undefined;
  /** Real folders never read (ferret's state). */
  blocked: readonly string[];
  /** For the global git excludes file, as ripgrep finds it. */
  home: string;
  xdgConfigHome: string | undefined;
}

export interface Scope extends ScopeInput {
  /** Include globs as written (relative to root) and compiled. */
  includes: readonly string[];
  includeGlobs: readonly IgnoreGlob[];
  /** Exclude globs as written (without `!`), including the built-in ones, and compiled. */
  excludes: readonly string[];
  excludeGlobs: readonly IgnoreGlob[];
  typeNames: readonly string[];
  typeGlobs: readonly RegExp[];
}

/** Always left out: git's own folder; node_modules too unless ignored files are asked for. */
export function builtInExcludes(includeIgnored: boolean): string[] {
  return includeIgnored ? ['.git'] : ['.git', 'node_modules'];
}

/** Builds the scope, or answers what is wrong with a filter. */
export function makeScope(input: ScopeInput): Scope | string {
  const includes: string[] = [];
  const excludes: string[] = builtInExcludes(input.includeIgnored === true);
  for (const g of input.globs ?? []) {
    if (g.startsWith('!')) excludes.push(g.slice(1));
    else includes.push(g);
  }
  const includeGlobs: IgnoreGlob[] = [];
  const excludeGlobs: IgnoreGlob[] = [];
  for (const [list, into] of [
    [includes, includeGlobs],
    [excludes, excludeGlobs],
  ] as const) {
    for (const g of list) {
      if (g.trim() === '' || g.startsWith('#')) return `glob ${JSON.stringify(g)} is empty`;
      try {
        globToRegexSource(g); // the syntax check: parseIgnoreLine drops what it cannot read
      } catch (e) {
        return `glob ${JSON.stringify(g)}: ${e instanceof GlobSyntaxError ? e.message : String(e)}`;
      }
      const parsed = parseIgnoreLine(g);
      if (!parsed || parsed.whitelist) return `glob ${JSON.stringify(g)} cannot be read`;
      into.push(parsed);
    }
  }
  const typeNames: string[] = [];
  for (const t of input.types ?? []) {
    const name = fileType(t);
    if (!name) return `unknown type ${JSON.stringify(t)}; known types: ${FILE_TYPE_NAMES}`;
    if (!typeNames.includes(name)) typeNames.push(name);
  }
  const typeGlobs = typeNames.flatMap((t) => FILE_TYPES[t]!.map((g) => new RegExp(`^${globToRegexSource(g)}$`)));
  return { ...input, includes, includeGlobs, excludes, excludeGlobs, typeNames, typeGlobs };
}

/** The filters that narrow files (never folders): an include glob, when any, and a type, when any. */
export function keepFile(scope: Scope, relToRoot: string): boolean {
  if (scope.rootIsFile) return true;
  if (scope.includeGlobs.length && !scope.includeGlobs.some((g) => g.re.test(relToRoot))) return false;
  if (scope.typeGlobs.length) {
    const name = basename(relToRoot);
    if (!scope.typeGlobs.some((re) => re.test(name))) return false;
  }
  return true;
}

/** An exclude glob (a built-in one or `!…`) names this file or folder. */
export function excluded(scope: Scope, relToRoot: string, isDir: boolean): boolean {
  return scope.excludeGlobs.some((g) => (!g.dirOnly || isDir) && g.re.test(relToRoot));
}

/** Byte order of UTF-8 names, as ripgrep's --sort path compares them. */
export function compareNames(a: string, b: string): number {
  // eslint-disable-next-line no-control-regex
  if (/^[\x00-\x7f]*$/.test(a) && /^[\x00-\x7f]*$/.test(b)) return a < b ? -1 : a > b ? 1 : 0;
  return Buffer.compare(Buffer.from(a), Buffer.from(b));
}
