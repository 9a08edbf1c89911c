// grep's `type` filter: named file types and the file-name globs each stands for. One table for
// both engines: ripgrep receives it as --type-add definitions (its own built-in table is never
// used, so a ripgrep upgrade cannot change what `ts` means), the built-in engine matches names.

export const FILE_TYPES: Readonly<Record<string, readonly string[]>> = {
  c: ['*.c', '*.h'],
  cpp: ['*.cpp', '*.cc', '*.cxx', '*.c++', '*.hpp', '*.hh', '*.hxx', '*.h++', '*.h', '*.inl'],
  cs: ['*.cs', '*.csx'],
  css: ['*.css', '*.scss', '*.sass', '*.less'],
  go: ['*.go'],
  html: ['*.html', '*.htm', '*.xhtml'],
  java: ['*.java'],
  js: ['*.js', '*.jsx', '*.mjs', '*.cjs', '*.vue'],
  json: ['*.json', '*.jsonc', '*.json5', '*.jsonl'],
  kotlin: ['*.kt', '*.kts'],
  lua: ['*.lua'],
  make: ['Makefile', 'makefile', 'GNUmakefile', '*.mk', '*.mak'],
  md: ['*.md', '*.markdown', '*.mdx'],
  php: ['*.php', '*.phtml'],
  py: ['*.py', '*.pyi', '*.pyw'],
  rb: ['*.rb', '*.rake', '*.gemspec', 'Gemfile', 'Rakefile'],
  rust: ['*.rs'],
  sh: ['*.sh', '*.bash', '*.zsh', '.bashrc', '.bash_profile', '.zshrc', '.profile'],
  sql: ['*.sql'],
  swift: ['*.swift'],
  toml: ['*.toml', 'Cargo.lock'],
  ts: ['*.ts', '*.tsx', '*.mts', '*.cts'],
  txt: ['*.txt'],
  xml: ['*.xml', '*.xsd', '*.xsl', '*.svg'],
  yaml: ['*.yaml', '*.yml'],
};

/** Other names the model may use for a type. */
const ALIASES: Readonly<Record<string, string>> = {
  typescript: 'ts',
  javascript: 'js',
  python: 'py',
  rs: 'rust',
  golang: 'go',
  markdown: 'md',
  ruby: 'rb',
  shell: 'sh',
  bash: 'sh',
  yml: 'yaml',
  'c++': 'cpp',
  csharp: 'cs',
  kt: 'kotlin',
  makefile: 'make',
};

/** The canonical type name, or undefined for an unknown one. */
export function fileType(name: string): string | undefined {
  const n = name.toLowerCase();
  if (Object.hasOwn(FILE_TYPES, n)) return n;
  const alias = ALIASES[n];
  return alias;
}

export const FILE_TYPE_NAMES = Object.keys(FILE_TYPES).join(', ');
