// The CLI itself: commands, flags, and the lazy load of what each command runs. The bin
// (boot.ts, dist/cli/main.js) sets V8 up and loads this with the cached compiled code.
import { Command, Option } from 'commander';
import { APPROVAL_PRESETS, BUILTIN_TOOL_IDS, SANDBOX_MODES } from '../core/index.js';
import { createLogger } from './logger.js';
import { FlagError, parseAgentOptions } from './agent-options.js';
import { parseServeOptions } from './serve-options.js';
import { VERSION } from './version.js';

const program = new Command('chimera')
  .description('chimera: coding agents. `chimera ferret serve` runs the ferret agent server.')
  .version(VERSION);

const ferret = program.command('ferret').description('ferret: a coding-agent server for editors (ACP on stdio) and bots (HTTP+SSE)');

ferret
  .command('serve')
  .description(
    'Serve ACP (JSON-RPC over stdio) and, with --http, HTTP+SSE on the same live sessions.\n' +
      'Without --http the server exits when stdin closes.',
  )
  .option('--cwd <dir>', 'workspace root for new sessions (default: the current directory)')
  .option('--model <id>', 'model for new sessions: PROVIDER/MODEL or scripted:PATH (default: $FERRET_MODEL, config.json, or a provider whose API key is set)')
  .addOption(new Option('--sandbox <mode>', `sandbox mode: ${SANDBOX_MODES.join(' | ')}`).default('workspace-write'))
  .addOption(new Option('--approval <preset>', `approval preset: ${APPROVAL_PRESETS.join(' | ')}`).default('auto'))
  .option('--allowed-tools <list>', `comma-separated tools the model may call (default: all: ${BUILTIN_TOOL_IDS.join(',')})`)
  .option('--http', 'also serve HTTP+SSE (Bearer token from $FERRET_SERVER_TOKEN)', false)
  .option('--port <n>', 'HTTP port; 0 picks a free one', '5173')
  .option('--host <h>', 'HTTP bind address (non-loopback needs FERRET_SERVER_TOKEN)', '127.0.0.1')
  .option('--ide-schema <bool>', 'true | false: IDE frames (progress/step, code/diff, terminal/output, editor/open_file) on SSE', 'true')
  .option('--no-stdio', 'do not serve ACP on stdio (a headless HTTP daemon)')
  .option('--permission-timeout <seconds>', 'deny a permission question nobody answers in this time, with a notice (default: wait for a person)')
  .option('--client-timeout <seconds>', 'how long an editor has to answer a file request before the tool call fails (default 30)')
  .option('--acp-legacy', 'send ACP v1 clients only the session updates ACP 0.4 knew (no usage_update, config_option_update): for editors on @zed-industries/agent-client-protocol 0.4 (default: $FERRET_ACP_LEGACY=1)')
  .option('--store <url>', 'fleet mode: keep sessions and the audit log in Redis, redis://HOST:PORT/DB (default: $FERRET_STORE, config.json, else files under CHIMERA_HOME)')
  .addHelpText(
    'after',
    '\nEnvironment:\n  CHIMERA_HOME         state root (default ~/.chimera)\n  FERRET_MODEL         default model\n  FERRET_STORE         fleet store, redis://HOST:PORT/DB (as --store)\n  FERRET_ACP_LEGACY    1: as --acp-legacy\n  FERRET_SERVER_TOKEN  Bearer token for HTTP\n  FERRET_LOG_LEVEL     pino level for stderr logs (default info)\n  FERRET_CODE_CACHE    0: keep no compiled code in CHIMERA_HOME/ferret/code-cache\n\nExamples:\n  chimera ferret serve --sandbox workspace-write --approval auto\n  chimera ferret serve --http --port 0 --model scripted:demo.json',
  )
  .action(async (raw: Record<string, unknown>) => {
    let opts;
    try {
      opts = parseServeOptions(raw, BUILTIN_TOOL_IDS);
    } catch (err) {
      if (err instanceof FlagError) {
        process.stderr.write(`chimera ferret serve: ${err.message}\n`);
        process.exit(2);
      }
      throw err;
    }
    const logger = createLogger();
    try {
      const { serve } = await import('./serve.js');
      await serve(opts, logger);
    } catch (err) {
      process.stderr.write(`chimera ferret serve: ${(err as Error).message}\n`);
      process.exit(1);
    }
  });

ferret
  .command('exec')
  .description('Run one turn and exit: progress on stderr, the final text on stdout (like `codex exec`). Exit codes: 0 done, 1 error, 2 bad flags, 3 step limit, 4 a permission was needed and denied, 130 cancelled.')
  .argument('[prompt]', 'what to do (default: read it from stdin)')
  .option('--cwd <dir>', 'workspace root (default: the current directory)')
  .option('--model <id>', 'PROVIDER/MODEL or scripted:PATH (default: $FERRET_MODEL, config.json, or a provider whose API key is set)')
  .addOption(new Option('--sandbox <mode>', `sandbox mode: ${SANDBOX_MODES.join(' | ')}`).default('workspace-write'))
  .addOption(new Option('--approval <preset>', `approval preset: ${APPROVAL_PRESETS.join(' | ')}; nobody can answer a question, so one is denied`).default('auto'))
  .option('--allowed-tools <list>', `comma-separated tools the model may call (default: all: ${BUILTIN_TOOL_IDS.join(',')})`)
  .option('--json', 'one JSON event per line on stdout instead of the final text', false)
  .option('--resume <sessionId>', 'continue this session')
  .action(async (prompt: string | undefined, raw: Record<string, unknown>) => {
    let opts;
    try {
      const agent = parseAgentOptions(raw, BUILTIN_TOOL_IDS);
      const text = prompt ?? (process.stdin.isTTY ? '' : await readStdin());
      if (!text.trim()) throw new FlagError('a prompt is needed: give it as an argument or on stdin');
      opts = { ...agent, prompt: text, json: raw['json'] === true, resume: typeof raw['resume'] === 'string' ? raw['resume'] : undefined };
    } catch (err) {
      if (err instanceof FlagError) {
        process.stderr.write(`chimera ferret exec: ${err.message}\n`);
        process.exit(2);
      }
      throw err;
    }
    const logger = createLogger(process.env['FERRET_LOG_LEVEL'] ?? 'warn');
    try {
      const { exec } = await import('./exec.js');
      process.exitCode = await exec(opts, logger);
    } catch (err) {
      process.stderr.write(`chimera ferret exec: ${(err as Error).message}\n`);
      process.exitCode = 1;
    }
  });

async function readStdin(): Promise<string> {
  const parts: Buffer[] = [];
  for await (const chunk of process.stdin) parts.push(chunk as Buffer);
  return Buffer.concat(parts).toString('utf8');
}

program.parseAsync(process.argv).catch((err: unknown) => {
  process.stderr.write(`chimera: ${(err as Error).message}\n`);
  process.exit(1);
});
