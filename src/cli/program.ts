// The CLI itself: commands, flags, and the lazy load of what each command runs. The bin
// (boot.ts, dist/cli/main.js) sets V8 up and loads this with the cached compiled code.
import { APPROVAL_PRESETS, BUILTIN_TOOL_IDS, SANDBOX_MODES, storeUrlProblem } from '../core/index.js';
import { readEnvironment, type Environment } from './environment.js';
import { createLogger } from './logger.js';
import { FlagError, parseAgentOptions } from './agent-options.js';
import { commandHelp, groupHelp, parseCommand, type CommandSpec, type FlagSpec } from './argv.js';
import { parseServeOptions } from './serve-options.js';
import { VERSION } from './version.js';

const MODEL_DEFAULT = '(default: $FERRET_MODEL, config.json, or a provider whose API key is set)';
const TOOLS = `comma-separated tools the model may call (default: all: ${BUILTIN_TOOL_IDS.join(',')})`;
const sandboxFlag: FlagSpec = { name: 'sandbox', value: 'mode', description: `sandbox mode: ${SANDBOX_MODES.join(' | ')}`, default: 'workspace-write' };

const SERVE: CommandSpec = {
  path: ['ferret', 'serve'],
  description: 'Serve ACP (JSON-RPC over stdio) and, with --http, HTTP+SSE on the same live sessions.\nWithout --http the server exits when stdin closes.',
  flags: [
    { name: 'cwd', value: 'dir', description: 'workspace root for new sessions (default: the current directory)' },
    { name: 'model', value: 'id', description: `model for new sessions: PROVIDER/MODEL or scripted:PATH ${MODEL_DEFAULT}` },
    sandboxFlag,
    { name: 'approval', value: 'preset', description: `approval preset: ${APPROVAL_PRESETS.join(' | ')}`, default: 'auto' },
    { name: 'allowed-tools', value: 'list', description: TOOLS },
    { name: 'http', description: 'also serve HTTP+SSE (Bearer token from $FERRET_SERVER_TOKEN)' },
    { name: 'port', value: 'n', description: 'HTTP port; 0 picks a free one', default: '5173' },
    { name: 'host', value: 'h', description: 'HTTP bind address (non-loopback needs FERRET_SERVER_TOKEN)', default: '127.0.0.1' },
    { name: 'ide-schema', value: 'bool', description: 'true | false: IDE frames (progress/step, code/diff, terminal/output, editor/open_file) on SSE', default: 'true' },
    { name: 'idle-exit', value: 'seconds', description: 'with --http: exit after this long with no client connected (HTTP, SSE, ACP over HTTP, stdio) and no turn working (a turn waiting on a person is stopped; a working one gets 15 periods); for a server an editor starts detached (default: never)' },
    { name: 'no-stdio', description: 'do not serve ACP on stdio (a headless daemon: needs --http or --bridge)' },
    { name: 'permission-timeout', value: 'seconds', description: 'deny a permission question nobody answers in this time, with a notice (default: wait for a person)' },
    { name: 'client-timeout', value: 'seconds', description: 'how long an editor has to answer a file request before ferret does the file work itself for that client (default 10)' },
    { name: 'acp-legacy', description: 'send ACP v1 clients only the session updates ACP 0.4 knew (no usage_update, config_option_update): for editors on @zed-industries/agent-client-protocol 0.4 (default: $FERRET_ACP_LEGACY=1)' },
    { name: 'store', value: 'url', description: 'fleet mode: keep sessions and the audit log in Redis, redis://HOST:PORT/DB (default: $FERRET_STORE, config.json, else files under CHIMERA_HOME)' },
    { name: 'bridge', value: 'url', description: 'cloud bridge: dial this relay, wss://HOST[:PORT] (ws:// only to loopback), so paired devices reach this server with no open port; prints a pairing link on stderr (default: config.json bridge.relay)' },
  ],
  after:
    '\nEnvironment:\n  CHIMERA_HOME         state root (default ~/.chimera)\n  FERRET_MODEL         default model\n  FERRET_STORE         fleet store, redis://HOST:PORT/DB (as --store)\n  FERRET_FLEET_SECRET  fleet mode: the secret every server of the fleet shares (32+ chars)\n  FERRET_ACP_LEGACY    1: as --acp-legacy\n  FERRET_SERVER_TOKEN  Bearer token for HTTP\n  FERRET_LOG_LEVEL     pino level for stderr logs (default info)\n  FERRET_CODE_CACHE    0: keep no compiled code in CHIMERA_HOME/ferret/code-cache\n\nExamples:\n  chimera ferret serve --sandbox workspace-write --approval auto\n  chimera ferret serve --http --port 0 --model scripted:demo.json',
};

const EXEC: CommandSpec = {
  path: ['ferret', 'exec'],
  description:
    'Run one turn and exit: progress on stderr, the final text on stdout (like `codex exec`). Exit codes: 0 done, 1 error, 2 bad flags, 3 step limit, 4 a permission was needed and denied, 130 cancelled.',
  argument: { name: 'prompt', description: 'what to do (default: read it from stdin)' },
  flags: [
    { name: 'cwd', value: 'dir', description: 'workspace root (default: the current directory)' },
    { name: 'model', value: 'id', description: `PROVIDER/MODEL or scripted:PATH ${MODEL_DEFAULT}` },
    sandboxFlag,
    { name: 'approval', value: 'preset', description: `approval preset: ${APPROVAL_PRESETS.join(' | ')}; nobody can answer a question, so one is denied`, default: 'auto' },
    { name: 'allowed-tools', value: 'list', description: TOOLS },
    { name: 'json', description: 'one JSON event per line on stdout instead of the final text' },
    { name: 'resume', value: 'sessionId', description: 'continue this session' },
  ],
};

const RELAY: CommandSpec = {
  path: ['ferret', 'relay'],
  description: 'Run a cloud-bridge relay: pairs remote browsers and bots with ferret servers that dialled in with --bridge, moving their end-to-end encrypted frames; serves the web console. Keeps nothing it could read (docs/cloud-bridge.md).',
  flags: [
    { name: 'port', value: 'n', description: 'port to listen on; 0 picks a free one', default: '8443' },
    { name: 'host', value: 'h', description: 'bind address (put TLS in front of a public relay)', default: '127.0.0.1' },
    { name: 'store', value: 'url', description: 'share routing with other relays through Redis, redis://HOST:PORT/DB: a client on any of them reaches a ferret on another' },
  ],
};

const BRIDGE_ACTIONS: Record<string, CommandSpec> = {
  pair: {
    path: ['ferret', 'bridge', 'pair'],
    description: 'Show a new pairing link and QR code on stderr (the previous link stops working).',
    flags: [{ name: 'relay', value: 'url', description: 'the relay the link points at (default: the one serve --bridge last dialled)' }],
  },
  devices: { path: ['ferret', 'bridge', 'devices'], description: 'List the paired devices: id, name, when paired.', flags: [] },
  revoke: {
    path: ['ferret', 'bridge', 'revoke'],
    description: 'Forget a paired device: a running server drops it at once, and the pairing link changes.',
    argument: { name: 'id', description: 'the device id (from `bridge devices`)' },
    flags: [],
  },
};

const CHIMERA_HELP = groupHelp(
  [],
  'chimera: coding agents. `chimera ferret serve` runs the ferret agent server.',
  [{ usage: 'ferret', description: 'ferret: a coding-agent server for editors (ACP on stdio) and bots (HTTP+SSE)' }],
  [['-V, --version', 'print the version']],
);
const FERRET_HELP = groupHelp(['ferret'], 'ferret: a coding-agent server for editors (ACP on stdio) and bots (HTTP+SSE)', [
  { usage: 'serve [options]', description: SERVE.description },
  { usage: 'exec [options] [prompt]', description: EXEC.description },
  { usage: 'relay [options]', description: 'Run a cloud-bridge relay (docs/cloud-bridge.md).' },
  { usage: 'bridge pair|devices|revoke ID', description: "The cloud bridge's pairing link and paired devices." },
]);

async function serveCommand(argv: string[], env: Environment): Promise<void> {
  const opts = await flags('serve', async () => parseServeOptions(parseCommand(SERVE, argv).values, BUILTIN_TOOL_IDS, env.vars));
  const logger = createLogger(env.logLevel ?? 'info');
  try {
    const { serve } = await import('./serve.js');
    await serve(opts, logger, env);
  } catch (err) {
    process.stderr.write(`chimera ferret serve: ${(err as Error).message}\n`);
    process.exit(1);
  }
}

async function execCommand(argv: string[], env: Environment): Promise<void> {
  const opts = await flags('exec', async () => {
    const { values: raw, argument: prompt } = parseCommand(EXEC, argv);
    const agent = parseAgentOptions(raw, BUILTIN_TOOL_IDS);
    const text = prompt ?? (process.stdin.isTTY ? '' : await readStdin());
    if (!text.trim()) throw new FlagError('a prompt is needed: give it as an argument or on stdin');
    return { ...agent, prompt: text, json: raw['json'] === true, resume: typeof raw['resume'] === 'string' ? raw['resume'] : undefined };
  });
  const logger = createLogger(env.logLevel ?? 'warn');
  try {
    const { exec } = await import('./exec.js');
    process.exitCode = await exec(opts, logger, env);
  } catch (err) {
    process.stderr.write(`chimera ferret exec: ${(err as Error).message}\n`);
    process.exitCode = 1;
  }
}

/** The command's options from `parse`; a flag the person got wrong is said on stderr, and exits 2. */
async function flags<T>(command: string, parse: () => Promise<T>): Promise<T> {
  try {
    return await parse();
  } catch (err) {
    if (err instanceof FlagError) {
      process.stderr.write(`chimera ferret ${command}: ${err.message}\n`);
      process.exit(2);
    }
    throw err;
  }
}

async function readStdin(): Promise<string> {
  const parts: Buffer[] = [];
  for await (const chunk of process.stdin) parts.push(chunk as Buffer);
  return Buffer.concat(parts).toString('utf8');
}

async function relayCommand(argv: string[], env: Environment): Promise<void> {
  const opts = await flags('relay', async () => {
    const { values } = parseCommand(RELAY, argv);
    const port = Number(values['port']);
    if (!/^\d+$/.test(String(values['port'])) || port > 65535) throw new FlagError(`--port: "${String(values['port'])}" is not a port; expected an integer from 0 to 65535`);
    const store = typeof values['store'] === 'string' ? values['store'] : undefined;
    const problem = store !== undefined ? storeUrlProblem(store) : undefined;
    if (problem) throw new FlagError(`--store: ${problem}`);
    return { port, host: String(values['host']), store };
  });
  const { runRelay } = await import('./relay-command.js');
  await runRelay(opts, createLogger(env.logLevel ?? 'info'));
}

async function bridgeCommand(spec: CommandSpec, argv: string[], env: Environment): Promise<void> {
  const parsed = await flags('bridge', async () => parseCommand(spec, argv));
  const { bridgeCommand: run } = await import('./bridge-command.js');
  const relay = typeof parsed.values['relay'] === 'string' ? parsed.values['relay'] : undefined;
  process.exitCode = run(spec.path[2] ?? '', parsed.argument, env.home, relay, (s) => process.stdout.write(s), (s) => process.stderr.write(s));
}

/** Whether one of `words` comes before a `--` (after it, `--help` is a prompt's text). */
function asked(argv: string[], ...words: string[]): boolean {
  const end = argv.indexOf('--');
  return (end < 0 ? argv : argv.slice(0, end)).some((a) => words.includes(a));
}
const wantsHelp = (argv: string[]) => asked(argv, '-h', '--help');

/** `chimera [help] ferret serve|exec …`: the command the words name, its help, or a clear error. */
async function main(argv: string[]): Promise<void> {
  // -V anywhere before `--` (as commander had it: `chimera ferret serve --version` too).
  if (asked(argv, '-V', '--version')) return void process.stdout.write(`${VERSION}\n`);
  let help = argv[0] === 'help';
  const words = help ? argv.slice(1) : argv;
  // `chimera ferret help serve` as well as `chimera help ferret serve`.
  if (words[0] === 'ferret' && words[1] === 'help') {
    help = true;
    words.splice(1, 1);
  }
  const [group, command, ...rest] = words;
  const show = (text: string) => void process.stdout.write(text);
  const fail = (message: string, usage: string): never => {
    process.stderr.write(`chimera: ${message}\n\n${usage}`);
    process.exit(1);
  };
  if (group === undefined || group.startsWith('-')) {
    if (help || wantsHelp(argv)) return show(CHIMERA_HELP);
    return group === undefined ? fail('a command is needed', CHIMERA_HELP) : fail(`unknown option '${group}'`, CHIMERA_HELP);
  }
  if (group !== 'ferret') return fail(`unknown command '${group}'`, CHIMERA_HELP);
  if (command === undefined || command.startsWith('-')) {
    if (help || wantsHelp(argv)) return show(FERRET_HELP);
    return fail(command === undefined ? 'a ferret command is needed: serve or exec' : `unknown option '${command}'`, FERRET_HELP);
  }
  if (command === 'bridge') {
    const bridgeSpec = BRIDGE_ACTIONS[rest[0] ?? ''];
    if (!bridgeSpec) return fail(`ferret bridge needs an action: pair, devices or revoke ID`, FERRET_HELP);
    if (help || wantsHelp(rest)) return show(commandHelp(bridgeSpec));
    return bridgeCommand(bridgeSpec, rest.slice(1), readEnvironment());
  }
  const spec = command === 'serve' ? SERVE : command === 'exec' ? EXEC : command === 'relay' ? RELAY : undefined;
  if (!spec) return fail(`unknown command 'ferret ${command}'`, FERRET_HELP);
  if (help || wantsHelp(rest)) return show(commandHelp(spec));
  // The environment, read once: what the core and the transports take of it comes from here.
  const env = readEnvironment();
  return spec === SERVE ? serveCommand(rest, env) : spec === RELAY ? relayCommand(rest, env) : execCommand(rest, env);
}

main(process.argv.slice(2)).catch((err: unknown) => {
  process.stderr.write(`chimera: ${(err as Error).message}\n`);
  process.exit(1);
});
