// The front matter of the Markdown files teams keep in the repository (`.ferret/agents/*.md`,
// `.ferret/commands/*.md`, and Claude Code's folders): simple `key: value` lines between two
// `---` lines, then the body. Not YAML: only what these files use, read the same for both.

export interface FrontMatter {
  /** Keys lower-cased; values trimmed, one pair of surrounding quotes removed. */
  meta: Record<string, string>;
  body: string;
  /** The body's first non-empty line, without a heading's `#`s: a description when none is given. */
  firstLine: string;
}

export function readFrontMatter(text: string): FrontMatter {
  let body = text.replace(/^\uFEFF/, '').replace(/\r\n/g, '\n');
  const meta: Record<string, string> = {};
  const fm = /^---\n([\s\S]*?)\n---\n?/.exec(body);
  if (fm) {
    for (const line of fm[1]!.split('\n')) {
      const m = /^([A-Za-z][\w-]*):\s*(.*)$/.exec(line);
      if (m) meta[m[1]!.toLowerCase()] = m[2]!.trim().replace(/^(['"])(.*)\1$/, '$2');
    }
    body = body.slice(fm[0].length);
  }
  const firstLine = body.split('\n').find((l) => l.trim() !== '')?.trim().replace(/^#+\s*/, '') ?? '';
  return { meta, body, firstLine };
}
