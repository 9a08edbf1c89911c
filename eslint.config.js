import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import globals from 'globals';

/** Outside src/sandbox/, the sandbox is reached only through its door (src/sandbox/index.ts). */
const SANDBOX_DOOR = { group: ['**/sandbox/**', '!**/sandbox/index.js'], message: 'outside src/sandbox/, import the sandbox only through sandbox/index.js' };

/** One no-restricted-imports block for a part: `banned` parts (and, with `coreIndexOnly`, core's inside) are off limits. */
function layer(files, message, banned, coreIndexOnly = false) {
  const patterns = banned.map((part) => ({ group: [`**/${part}/**`, `**/${part}`], message }));
  if (coreIndexOnly) patterns.push({ group: ['**/core/**', '!**/core/index.js'], message });
  if (!files.startsWith('src/sandbox/')) patterns.push(SANDBOX_DOOR);
  // Test files may reach inside a part to test it; the arrows are for the product.
  return [{ files: [files], ignores: ['**/*.test.ts'], rules: { 'no-restricted-imports': ['error', { patterns }] } }];
}

export default tseslint.config(
  // extensions/vscode lints itself (its own tsconfig and VS Code types); .cache/ holds e2e tools.
  { ignores: ['dist/**', 'node_modules/**', 'coverage/**', 'extensions/**', '.cache/**', '.tmp/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: { project: './tsconfig.json', tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/switch-exhaustiveness-check': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/require-await': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/restrict-template-expressions': 'off',
    },
  },
  {
    // stdout is the ACP channel: the server itself never prints (scripts and tests may).
    files: ['src/**'],
    rules: { 'no-console': 'error' },
  },
  {
    // The environment is read once, in cli/ (cli/environment.ts): the core gets its values through
    // createCore's options, the transports through their start options, commands as data.
    files: ['src/**/*.ts'],
    ignores: [
      'src/cli/**',
      '**/*.test.ts',
    ],
    rules: {
      'no-restricted-properties': ['error', { object: 'process', property: 'env', message: 'read the environment in src/cli/ (cli/environment.ts) and pass the value down as an option' }],
    },
  },
  {
    // The web console (console/) is browser code with its own tsconfig (DOM, JSX): docs/console.md.
    files: ['console/**/*.ts', 'console/**/*.tsx'],
    languageOptions: { globals: globals.browser, parserOptions: { project: './console/tsconfig.json', tsconfigRootDir: import.meta.dirname } },
  },
  // The arrows between parts (docs/architecture.md). A part may import only what its block allows;
  // `npm run check` also fails on any cycle between files (madge).
  ...layer('src/util/**/*.ts', 'util imports nothing of ours', ['protocol', 'core', 'providers', 'store', 'sandbox', 'tools', 'transports', 'cli']),
  ...layer('src/protocol/**/*.ts', 'protocol imports nothing of ours', ['core', 'providers', 'store', 'sandbox', 'tools', 'transports', 'cli']),
  ...layer('src/providers/**/*.ts', 'providers import only protocol', ['core', 'store', 'sandbox', 'tools', 'transports', 'cli']),
  ...layer('src/store/**/*.ts', 'store imports only protocol', ['core', 'providers', 'sandbox', 'tools', 'transports', 'cli']),
  ...layer('src/sandbox/**/*.ts', 'sandbox imports only protocol', ['core', 'providers', 'store', 'tools', 'transports', 'cli']),
  ...layer('src/tools/**/*.ts', 'tools import only protocol and sandbox', ['core', 'providers', 'store', 'transports', 'cli']),
  ...layer('src/core/**/*.ts', 'core imports everything but cli and transports', ['transports', 'cli']),
  // The one SSE writer, shared by the HTTP API's event streams and ACP over HTTP's: a leaf both transports may import.
  ...layer('src/transports/sse/**/*.ts', 'the SSE writer imports nothing of ours', ['util', 'protocol', 'core', 'providers', 'store', 'sandbox', 'tools', 'acp', 'http', 'cli']),
  ...layer('src/transports/acp/**/*.ts', 'a transport imports only core/index and protocol, never another transport', ['providers', 'store', 'sandbox', 'tools', 'cli', 'http', 'bridge', 'relay'], true),
  ...layer('src/transports/http/**/*.ts', 'a transport imports only core/index and protocol, never another transport', ['providers', 'store', 'sandbox', 'tools', 'cli', 'acp', 'bridge', 'relay'], true),
  // The cloud bridge carries the HTTP API: it may build the HTTP app (never ACP's insides).
  ...layer('src/transports/bridge/**/*.ts', 'the bridge imports only core/index, protocol and the HTTP app', ['providers', 'store', 'sandbox', 'tools', 'cli', 'acp', 'relay'], true),
  // The relay is its own server: it knows the frame format (protocol) and the fleet's Redis connection, nothing of ferret's core.
  ...layer('src/relay/**/*.ts', 'the relay imports only protocol and the Redis connection', ['util', 'core', 'providers', 'sandbox', 'tools', 'transports', 'cli']),
  ...layer('src/cli/**/*.ts', 'cli imports only cli, core/index, protocol and the transports', ['providers', 'store', 'sandbox', 'tools'], true),
  // Tests outside the sandbox use its door too (the sandbox's own tests may import their neighbours).
  { files: ['src/**/*.test.ts', 'test/**/*.ts'], ignores: ['src/sandbox/**'], rules: { 'no-restricted-imports': ['error', { patterns: [SANDBOX_DOOR] }] } },
  {
    files: ['**/*.js', '**/*.mjs'],
    ...tseslint.configs.disableTypeChecked,
    languageOptions: { ...tseslint.configs.disableTypeChecked.languageOptions, globals: globals.node },
  },
);
