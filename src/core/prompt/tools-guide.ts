// How to choose among the built-in tools. Built from the server's built-in set (fixed for the life
// of the process, after --allowed-tools) and the mode, never from the tools offered in one request:
// MCP servers attach mid-session, and the system prompt must not change when they do.
import type { AgentMode } from '../../protocol/index.js';

/** What each built-in tool is for, in the order a task usually needs them. */
const USES: readonly (readonly [id: string, use: string])[] = [
  ['read_file', 'read a text file (numbered lines); page through a large one with offset and limit instead of reading it whole.'],
  ['list_dir', 'the entries of one folder.'],
  ['glob', 'find files by path pattern, such as src/**/*.test.ts (files the repository ignores, like build output, are left out unless include_ignored is set).'],
  ['grep', 'search file contents with a regular expression; the fastest way to find where something is defined or used. Narrow it with glob or type, ask for files or counts first in a large tree, and page with offset; ignored files are skipped unless include_ignored is set.'],
  ['edit_file', 'replace an exact piece of text in a file (it must occur once unless replace_all is set); the normal way to change an existing file. An edit of a file that changed since you last read it is refused: read it again first.'],
  ['multi_edit', 'several replacements in one file in one call, applied in order, all or none; use it instead of a series of edit_file calls on the same file.'],
  ['write_file', 'create a file, or replace a whole file; for a change to an existing file prefer edit_file, which leaves the rest alone.'],
  ['apply_patch', 'the way to change files: add, update, delete or move files with a patch, all or nothing. Give a few lines of context around each change, copied exactly from the file as you last read it.'],
  [
    'bash',
    'run a shell command in the workspace (bash -c): tests, builds, linters, package scripts, git read commands. ' +
      'Do not use it to read, search or edit files when a file tool does the job: file tools cost less, show the person clearly what you did, and are judged more precisely by the approval policy. ' +
      'Set timeout_ms for slow commands. A dev server, a watcher or anything else that does not exit on its own goes in the background (background: true): never in the foreground.',
  ],
  ['process_output', 'the new output of a background process (its id came from bash), and whether it still runs; read it to see a server is up before you use it.'],
  ['process_input', "write a line to a background process's standard input."],
  ['process_kill', 'stop a background process and everything it started; stop what you started once you no longer need it.'],
  ['web_fetch', 'read a web page (documentation, an issue the person links) as Markdown; the server fetches it, public addresses only, and may ask the person first.'],
  ['open_file', "show a file (at a line) in the person's editor, when pointing them at something helps."],
  [
    'update_plan',
    'a checklist the person watches while you work. Keep one when a task takes three or more distinct steps (skip it for a quick question or a one-line fix): ' +
      'send the whole list each time, have exactly one step in_progress, and mark each step completed as soon as it is done rather than all at the end.',
  ],
  [
    'task',
    'hand a broad search or a review to a subagent with its own context; you get back only its answer. Give it the whole task in its prompt (it sees nothing of this conversation). ' +
      'Not for one read or one grep: those are cheaper done yourself.',
  ],
];

/** The tools section: the built-ins this server has (and this mode offers), then MCP and parallel calls. */
export function toolsGuide(mode: AgentMode, builtins: readonly { id: string; effect: string }[]): string {
  const have = new Set(builtins.filter((t) => mode !== 'plan' || t.effect === 'read').map((t) => t.id));
  const lines = USES.filter(([id]) => have.has(id)).map(([id, use]) => `- ${id}: ${use}`);
  return [
    '# Tools',
    ...lines,
    '- Tools named mcp__<server>__<tool> come from MCP servers the person configured; use them for what their descriptions say.',
    'Only the tools offered with a request exist for it. When several calls do not depend on each other (reading three files, two searches), ask for them in the same reply.',
  ].join('\n');
}

export const SANDBOX_GUIDE = `# Approvals and the sandbox
Every tool call passes ferret's approval policy, and commands run in an OS sandbox. The environment block says which sandbox mode and approval preset this session started with; a later change reaches you as a context message.
- Some calls wait for the person's approval. A denied call means no: a person or a rule refused it. Do not try to get the same effect another way (a different command, a script, another tool). Change your approach, or explain what you needed and why, and ask.
- A sandbox violation (a write outside the writable area, a network connection where commands have none) shows up as a failed command (permission denied, read-only file system, network unreachable) and ferret reports it. Do not fight the sandbox or retry the same thing: say what was blocked, take a path that is allowed (work inside the workspace, use what is already installed), or ask the person to run that step or change the mode.
- ferret's own state (its configuration, logs and keys) is off limits; never look for credentials.`;
