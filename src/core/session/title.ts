// A session's title from the person's first request: its first line, without Markdown marks or
// runs of spaces, cut at a word near 60 characters. Short enough for a session list on a phone.

const MAX = 60;

export function titleOf(text: string): string {
  // Context an editor embedded (`<context …>…</context>`, avante's `<system_context>`) is not
  // what the person said; a pair of tags wrapped round their words (avante's
  // `<previous_user_message>…</previous_user_message>`) is dropped and the words kept.
  const said =
    text
      .replace(/<(context|system_context)\b[^>]*>[\s\S]*?<\/\1>/g, '')
      .replace(/<([A-Za-z][\w-]*)>([\s\S]*?)<\/\1>/g, '$2')
      .trim() || text;
  const line = said.split('\n').find((l) => l.trim() !== '') ?? said;
  const plain = line
    .replace(/[`*#>]+/g, '')
    // An underscore is a Markdown mark only at a word's edge: `parse_line` keeps its own.
    .replace(/(?<![\p{L}\p{N}])_+|_+(?![\p{L}\p{N}])/gu, '')
    .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/\s+/g, ' ')
    .trim();
  if (plain.length <= MAX) return plain || text.trim().slice(0, MAX);
  const cut = plain.slice(0, MAX + 1);
  const space = cut.lastIndexOf(' ');
  return `${(space > MAX / 2 ? cut.slice(0, space) : plain.slice(0, MAX)).trimEnd()}…`;
}
