#!/usr/bin/env node
// Static check of the Dockerfile (there is no Docker engine to build it here).
//
//   node scripts/check-dockerfile.mjs [--context DIR] [DOCKERFILE]
//
// DOCKERFILE defaults to ./Dockerfile of the repository, DIR to the repository root. Checks:
// the file parses (known instructions, continuation lines, exec-form JSON, a FROM first), every
// stage is named (`FROM image AS name`, names unique), `COPY --from` names an earlier stage,
// every COPY/ADD source from the build context exists and is not excluded by .dockerignore, and
// the final CMD's script is produced by the build: copied from a stage where the TypeScript
// build (the rolldown bundle: rolldown.config.mjs input → output dir) makes it from a source file that exists and
// was copied in. Prints every problem as `FILE:LINE: message` and exits 1; exits 0 with a summary.
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { dirname, join, posix, relative, resolve } from 'node:path';
import process from 'node:process';
import { fileURLToPath } from 'node:url';
import { minimatch } from 'minimatch';

const REPO = resolve(dirname(fileURLToPath(import.meta.url)), '..');

const INSTRUCTIONS = new Set([
  'FROM', 'RUN', 'CMD', 'LABEL', 'MAINTAINER', 'EXPOSE', 'ENV', 'ADD', 'COPY', 'ENTRYPOINT',
  'VOLUME', 'USER', 'WORKDIR', 'ARG', 'ONBUILD', 'STOPSIGNAL', 'HEALTHCHECK', 'SHELL',
]);
const EXEC_FORM = new Set(['CMD', 'ENTRYPOINT', 'RUN', 'SHELL', 'VOLUME']);

/** Split Dockerfile text into logical instructions ({line, keyword, args}); syntax problems go to `problems`. */
export function parseDockerfile(text, problems) {
  const lines = text.split(/\r?\n/);
  let escape = '\\';
  // Parser directives: `# key=value` lines at the very top.
  for (const l of lines) {
    const m = /^#\s*([a-zA-Z]+)\s*=\s*(\S+)\s*$/.exec(l);
    if (!m) break;
    if (m[1].toLowerCase() === 'escape') {
      if (m[2] !== '\\' && m[2] !== '`') problems.push({ line: 1, msg: `invalid escape directive ${JSON.stringify(m[2])} (use \\ or \`)` });
      else escape = m[2];
    }
  }
  const out = [];
  let cur = null; // { line, text }
  for (let i = 0; i < lines.length; i++) {
    const raw = lines[i];
    const trimmed = raw.trim();
    if (trimmed.startsWith('#')) continue; // comments, also inside a continued instruction
    if (cur === null && trimmed === '') continue;
    if (cur !== null && trimmed === '') continue; // an empty line inside a continuation is skipped
    const continued = raw.trimEnd().endsWith(escape);
    const body = continued ? raw.trimEnd().slice(0, -1) : raw;
    if (cur === null) cur = { line: i + 1, text: body.trimStart() };
    else cur.text += body;
    if (!continued) {
      out.push(cur);
      cur = null;
    }
  }
  if (cur !== null) problems.push({ line: cur.line, msg: `instruction continues past the end of the file (trailing ${escape})` });
  return out.map(({ line, text: t }) => {
    const m = /^(\S+)\s*([\s\S]*)$/.exec(t);
    return { line, keyword: m[1].toUpperCase(), word: m[1], args: m[2].trim() };
  });
}

/** `--flag=value` options at the front of args, then the rest split on whitespace (or the exec-form array). */
function splitFlags(args) {
  const flags = {};
  let rest = args;
  for (;;) {
    const m = /^--([a-z-]+)(?:=(\S*))?\s*/.exec(rest);
    if (!m) break;
    flags[m[1]] = m[2] ?? true;
    rest = rest.slice(m[0].length);
  }
  return { flags, rest };
}

function execArray(rest) {
  try {
    const v = JSON.parse(rest);
    return Array.isArray(v) && v.every((s) => typeof s === 'string') ? v : null;
  } catch {
    return null;
  }
}

/** Paths of a COPY/ADD: sources and destination (exec-form JSON array or whitespace-separated). */
function copyPaths(rest) {
  const parts = rest.startsWith('[') ? execArray(rest) : rest.split(/\s+/).filter(Boolean);
  if (!parts || parts.length < 2) return null;
  return { sources: parts.slice(0, -1), dest: parts[parts.length - 1] };
}

/** Patterns of .dockerignore (negations honoured in order, as Docker does). */
function loadDockerignore(context) {
  const p = join(context, '.dockerignore');
  if (!existsSync(p)) return [];
  return readFileSync(p, 'utf8')
    .split(/\r?\n/)
    .map((l) => l.trim())
    .filter((l) => l && !l.startsWith('#'))
    .map((l) => (l.startsWith('!') ? { neg: true, pat: posix.normalize(l.slice(1)).replace(/^\/+/, '') } : { neg: false, pat: posix.normalize(l).replace(/^\/+/, '') }));
}

function ignored(rel, patterns) {
  let out = false;
  const parts = rel.split('/');
  for (const { neg, pat } of patterns) {
    // A pattern matches the path or any of its parent directories.
    for (let k = 1; k <= parts.length; k++) {
      if (minimatch(parts.slice(0, k).join('/'), pat, { dot: true })) {
        out = !neg;
        break;
      }
    }
  }
  return out;
}

/** Context-relative files a source names (a glob matches against the names of its directory). */
function contextMatches(context, src) {
  const rel = posix.normalize(src).replace(/^\/+/, '').replace(/\/+$/, '') || '.';
  if (rel.startsWith('..')) return { rel, escapes: true, matches: [] };
  if (!/[*?[]/.test(rel)) return { rel, matches: existsSync(join(context, rel)) ? [rel] : [] };
  const dir = posix.dirname(rel);
  if (!existsSync(join(context, dir))) return { rel, matches: [] };
  const matches = readdirSync(join(context, dir))
    .map((n) => (dir === '.' ? n : `${dir}/${n}`))
    .filter((p) => minimatch(p, rel, { dot: true }));
  return { rel, matches };
}

const isUnder = (p, dir) => p === dir || p.startsWith(dir.endsWith('/') ? dir : dir + '/');

function readJson(p) {
  try {
    return JSON.parse(readFileSync(p, 'utf8').replace(/^\s*\/\/.*$/gm, ''));
  } catch {
    return null;
  }
}

/** The problems of one Dockerfile against a build context, plus a summary of the stages. */
export function checkDockerfile(dockerfilePath, context) {
  const problems = [];
  const instructions = parseDockerfile(readFileSync(dockerfilePath, 'utf8'), problems);
  const ignore = loadDockerignore(context);
  const stages = []; // { name, line, workdir, copies: [{line, from, sources, dest(abs)}], runs: [text], cmd }

  const first = instructions.find((i) => i.keyword !== 'ARG');
  if (!first) problems.push({ line: 1, msg: 'no instructions' });
  else if (first.keyword !== 'FROM') problems.push({ line: first.line, msg: `the first instruction must be FROM (or ARG), not ${first.word}` });

  for (const ins of instructions) {
    const { line, keyword, word, args } = ins;
    if (!INSTRUCTIONS.has(keyword)) {
      problems.push({ line, msg: `unknown instruction ${JSON.stringify(word)}` });
      continue;
    }
    if (args === '') {
      problems.push({ line, msg: `${keyword} needs arguments` });
      continue;
    }
    const stage = stages[stages.length - 1];
    if (keyword !== 'FROM' && keyword !== 'ARG' && !stage) continue; // reported above
    if (EXEC_FORM.has(keyword) && args.startsWith('[') && !execArray(args)) {
      problems.push({ line, msg: `${keyword} looks like exec form but is not a JSON array of strings: ${args}` });
    }
    switch (keyword) {
      case 'FROM': {
        const { rest } = splitFlags(args);
        const m = /^(\S+)(?:\s+AS\s+(\S+))?$/i.exec(rest);
        if (!m) {
          problems.push({ line, msg: `FROM must be "FROM image [AS name]": ${args}` });
          stages.push({ name: undefined, line, workdir: '/', copies: [], runs: [] });
          break;
        }
        const name = m[2]?.toLowerCase();
        if (!name) problems.push({ line, msg: `stage ${stages.length} (FROM ${m[1]}) has no name: write "FROM ${m[1]} AS <name>"` });
        else if (stages.some((s) => s.name === name)) problems.push({ line, msg: `stage name ${JSON.stringify(name)} is used twice` });
        const base = stages.find((s) => s.name && s.name === m[1].toLowerCase());
        stages.push({ name, line, workdir: base ? base.workdir : '/', copies: [], runs: [], base });
        break;
      }
      case 'WORKDIR':
        stage.workdir = posix.resolve(stage.workdir, args.replace(/^["']|["']$/g, ''));
        break;
      case 'RUN':
        stage.runs.push(args);
        break;
      case 'CMD':
        stage.cmd = { line, argv: args.startsWith('[') ? execArray(args) : ['/bin/sh', '-c', args] };
        break;
      case 'HEALTHCHECK': {
        const { rest } = splitFlags(args);
        if (!/^(NONE|CMD\s+\S)/i.test(rest)) problems.push({ line, msg: `HEALTHCHECK must be "HEALTHCHECK [options] CMD ..." or "HEALTHCHECK NONE"` });
        const cmd = rest.replace(/^CMD\s+/i, '');
        if (/^CMD\s/i.test(rest) && cmd.startsWith('[') && !execArray(cmd)) problems.push({ line, msg: `HEALTHCHECK CMD looks like exec form but is not a JSON array of strings` });
        break;
      }
      case 'EXPOSE':
        for (const p of args.split(/\s+/)) if (!/^\d{1,5}(\/(tcp|udp))?$/.test(p)) problems.push({ line, msg: `EXPOSE ${p} is not a port` });
        break;
      case 'COPY':
      case 'ADD': {
        const { flags, rest } = splitFlags(args);
        const paths = copyPaths(rest);
        if (!paths) {
          problems.push({ line, msg: `${keyword} needs at least one source and a destination` });
          break;
        }
        if (paths.sources.length > 1 && !paths.dest.endsWith('/')) problems.push({ line, msg: `${keyword} with several sources needs a destination ending in "/": ${paths.dest}` });
        const dest = posix.resolve(stage.workdir, paths.dest);
        const from = typeof flags.from === 'string' ? flags.from.toLowerCase() : undefined;
        if (from !== undefined) {
          const src = stages.slice(0, -1).find((s) => s.name === from);
          if (!src && !/[:/]/.test(from)) problems.push({ line, msg: `${keyword} --from=${flags.from} names no earlier stage (stages: ${stages.slice(0, -1).map((s) => s.name).join(', ') || 'none'})` });
          stage.copies.push({ line, from: src, sources: paths.sources, dest, destIsDir: paths.dest.endsWith('/') || paths.sources.length > 1 });
          break;
        }
        for (const s of paths.sources) {
          if (keyword === 'ADD' && /^https?:\/\//.test(s)) continue;
          const { matches, escapes } = contextMatches(context, s);
          if (escapes) problems.push({ line, msg: `${keyword} source ${s} is outside the build context` });
          else if (matches.length === 0) problems.push({ line, msg: `${keyword} source ${s} does not exist in the build context (${context})` });
          else for (const mrel of matches) if (ignored(mrel, ignore)) problems.push({ line, msg: `${keyword} source ${s} is excluded by .dockerignore` });
        }
        stage.copies.push({ line, from: undefined, sources: paths.sources, dest, destIsDir: paths.dest.endsWith('/') || paths.sources.length > 1 });
        break;
      }
      default:
        break;
    }
  }

  if (stages.length > 0) checkCmd(stages, context, problems, instructions);
  return { problems: problems.sort((a, b) => a.line - b.line), stages: stages.map((s) => s.name), instructions: instructions.length };
}

/**
 * Where a COPY puts one source: a directory's contents land in dest; a file lands at dest, or at
 * dest/basename when dest is a directory (ends in "/", or several sources).
 */
function copyTarget(c, src, srcIsFile) {
  if (!srcIsFile) return { root: c.dest, exact: false };
  return { root: c.destIsDir ? posix.join(c.dest, posix.basename(src)) : c.dest, exact: true };
}

/**
 * Where does `absPath` in `stage` come from? Walks the stage's COPYs from the last: from another
 * stage (recurse into it), from the context (the file must exist), or, with `allowBuild`, from
 * the bundle for its entry files (the entry's source and rolldown.config.mjs must be copied in
 * from the context, and a RUN must build). Returns why not, or null when accounted for.
 */
/** The bundle's entries (`input: { name: 'src/…' }`) and output dir (`dir: '…'`), read from rolldown.config.mjs. */
function bundleEntries(context) {
  let text;
  try {
    text = readFileSync(join(context, 'rolldown.config.mjs'), 'utf8');
  } catch {
    return undefined;
  }
  const input = /input:\s*\{([^}]*)\}/.exec(text)?.[1];
  const dir = /\bdir:\s*'([^']+)'/.exec(text)?.[1];
  if (!input || !dir) return undefined;
  const entries = [...input.matchAll(/([\w-]+):\s*'([^']+)'/g)].map((m) => ({ name: m[1], source: m[2] }));
  return { dir, entries };
}

function provenance(stage, absPath, context, allowBuild = true, depth = 0) {
  if (depth > 8) return `${absPath}: COPY chain too deep`;
  for (const c of [...stage.copies].reverse()) {
    if (c.from) {
      for (const s of c.sources) {
        const srcAbs = posix.resolve(c.from.workdir, s);
        // Another stage's file system is not visible here: a last segment with an extension is taken as a file.
        const t = copyTarget(c, srcAbs, /\.[^/.]+$/.test(posix.basename(srcAbs)));
        if (t.exact ? absPath !== t.root : !isUnder(absPath, t.root)) continue;
        const inner = t.exact || absPath === t.root ? srcAbs : posix.join(srcAbs, absPath.slice(t.root.length + 1));
        const why = provenance(c.from, inner, context, true, depth + 1);
        return why && `copied from stage ${c.from.name} (line ${c.line}) as ${inner}, but ${why}`;
      }
      continue;
    }
    for (const s of c.sources) {
      for (const m of contextMatches(context, s).matches) {
        const t = copyTarget(c, m, statSync(join(context, m)).isFile());
        if (t.exact) {
          if (absPath === t.root) return null;
        } else if (isUnder(absPath, t.root)) {
          const rest = absPath === t.root ? '' : absPath.slice(t.root.length + 1);
          if (existsSync(join(context, m, rest))) return null;
        }
      }
    }
  }
  if (!allowBuild) return `${absPath} is not copied into stage ${stage.name} from the build context`;
  // Not copied in: is it an output of the build run in this stage (the rolldown bundle's entries)?
  const bundle = bundleEntries(context);
  if (!bundle) return `${absPath} is not copied into stage ${stage.name} and no rolldown.config.mjs produces it`;
  const outDir = posix.resolve(stage.workdir, bundle.dir);
  if (!isUnder(absPath, outDir)) return `${absPath} is neither copied into stage ${stage.name} nor under the bundle's output dir ${outDir}`;
  const relOut = absPath.slice(outDir.length + 1);
  const entry = bundle.entries.find((e) => `${e.name}.js` === relOut);
  if (!entry) return `${absPath} is under ${outDir} but is not an entry the bundle emits (${bundle.entries.map((e) => `${e.name}.js`).join(', ')})`;
  const srcAbs0 = posix.resolve(stage.workdir, entry.source);
  const srcAbs = provenance(stage, srcAbs0, context, false, depth + 1) === null ? srcAbs0 : undefined;
  if (!srcAbs) return `${absPath} would be bundled from ${srcAbs0}, which is not copied into stage ${stage.name} from an existing ${entry.source}`;
  const config = posix.resolve(stage.workdir, 'rolldown.config.mjs');
  if (provenance(stage, config, context, false, depth + 1) !== null) return `stage ${stage.name} bundles ${srcAbs} but does not copy rolldown.config.mjs in`;
  const build = stage.runs.find((r) => /\bnpm (run )?build\b|\btsc\b/.test(r));
  if (!build) return `stage ${stage.name} copies ${srcAbs} but no RUN compiles it (npm run build / tsc)`;
  if (/\bnpm (run )?build\b/.test(build) && !readJson(join(context, 'package.json'))?.scripts?.build) {
    return `stage ${stage.name} runs "npm run build" but package.json has no build script`;
  }
  return null;
}

function checkCmd(stages, context, problems, instructions) {
  const final = stages[stages.length - 1];
  const lastLine = instructions[instructions.length - 1]?.line ?? 1;
  if (!final.cmd) {
    problems.push({ line: lastLine, msg: `the final stage (${final.name}) has no CMD` });
    return;
  }
  const argv = final.cmd.argv;
  if (!argv) return; // reported as bad exec form
  const scriptIdx = argv.findIndex((a, i) => i > 0 && /\.(m?js|cjs)$/.test(a));
  if (!/(^|\/)node$/.test(argv[0]) || scriptIdx < 0) {
    problems.push({ line: final.cmd.line, msg: `CMD should run a script with node (exec form), got ${JSON.stringify(argv)}` });
    return;
  }
  const abs = posix.resolve(final.workdir, argv[scriptIdx]);
  const why = provenance(final, abs, context);
  if (why) problems.push({ line: final.cmd.line, msg: `CMD script ${argv[scriptIdx]} is not produced by the build: ${why}` });
}

function main(argv) {
  let context = REPO;
  let file;
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === '--context') context = resolve(argv[++i] ?? '.');
    else if (argv[i] === '-h' || argv[i] === '--help') {
      process.stdout.write('usage: node scripts/check-dockerfile.mjs [--context DIR] [DOCKERFILE]\n');
      return 0;
    } else file = resolve(argv[i]);
  }
  file ??= join(context, 'Dockerfile');
  const shown = relative(process.cwd(), file) || file;
  if (!existsSync(file)) {
    process.stderr.write(`${shown}: no such file\n`);
    return 1;
  }
  const { problems, stages, instructions } = checkDockerfile(file, context);
  if (problems.length) {
    for (const p of problems) process.stderr.write(`${shown}:${p.line}: ${p.msg}\n`);
    process.stderr.write(`${problems.length} problem(s) in ${shown}\n`);
    return 1;
  }
  process.stdout.write(`${shown}: OK (${instructions} instructions, stages: ${stages.join(', ')})\n`);
  return 0;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) process.exitCode = main(process.argv.slice(2));
