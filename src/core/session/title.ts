// A session's title from the person's first request: its first line, without Markdown marks or
// runs of spaces, cut at a word near 60 characters. Short enough for a session list on a phone.

const MAX = 60;

export function titleOf(text: string): string {
  // Context an editor embedded (`<context …>…</context>`) is not what the person said.
  const said = text.replace(/<context\b[^>]*>[\s\S]*?<\/context>/g, '').trim() || text;
  const line = said.split('\n').find((l) => l.trim() !== '') ?? said;
  const plain = line.replace(/[`*_#>]+/g, '').replace(/\[([^\]]*)\]\([^)]*\)/g, '$1').replace(/\s+/g, ' ').trim();
  if (plain.length <= MAX) return plain || text.trim().slice(0, MAX);
  const cut = plain.slice(0, MAX + 1);
  const space = cut.lastIndexOf(' ');
  return `${(space > MAX / 2 ? cut.slice(0, space) : plain.slice(0, MAX)).trimEnd()}…`;
}
