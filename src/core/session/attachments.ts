import { promises as fsp } from 'node:fs';
import { EditorUnavailableError, errorText, FileNotFoundError, isNotFound, type EventDraft, type FileAccess } from '../../protocol/index.js';
import type { Tool } from '../../tools/define.js';
import { createMcpPool, type McpPool } from '../../tools/mcp-pool.js';
import { nodeFiles } from '../../tools/node-files.js';
import type { Logger } from 'pino';
import type { AttachOptions, ClientAttachment } from '../api.js';

interface Attached {
  files: FileAccess | undefined;
  pool: McpPool | undefined;
  tools: Tool[];
  ready: Promise<void>;
}

/**
 * The clients attached to one session, oldest first: each one's editor file seam and MCP
 * servers (connected through the one pool path). The newest with an editor seam serves turns
 * started elsewhere.
 */
export class Attachments {
  private readonly attached = new Map<string, Attached>();
  /** Writes a client holds for a person's Accept/Reject now (`reviewsWrites`). */
  private held = 0;

  constructor(
    private readonly logger: Logger,
    /** Where a failing MCP server is reported (a notice in the session). */
    private readonly notice: (draft: EventDraft) => void,
    /** Told of every attach and detach (the session counts them as uses). */
    private readonly touched: () => void,
  ) {}

  get size(): number {
    return this.attached.size;
  }

  /** Whether a write waits on a person's review in some client now. */
  get writeAwaitsPerson(): boolean {
    return this.held > 0;
  }

  attach(opts: AttachOptions): ClientAttachment {
    this.touched();
    this.detach(opts.clientId); // the same client attaching again replaces what it brought
    const specs = opts.mcpServers ?? [];
    const pool = specs.length ? createMcpPool(specs, this.logger, 'the client') : undefined;
    const given = opts.files && opts.reviewsWrites && opts.files.writeText ? { ...opts.files, writeText: this.counted(opts.files.writeText) } : opts.files;
    const files = given && (given.readText || given.writeText) ? editorSeam(given) : undefined;
    const entry: Attached = { files, pool, tools: [], ready: Promise.resolve() };
    this.attached.set(opts.clientId, entry);
    entry.ready = pool
      ? pool.tools().then(
          ({ tools, failures }) => {
            if (this.attached.get(opts.clientId) !== entry) return;
            entry.tools = tools;
            for (const text of failures) this.notice({ type: 'notice', data: { level: 'warning', text } });
          },
          (err: unknown) => void this.notice({ type: 'notice', data: { level: 'warning', text: `MCP servers could not be connected: ${errorText(err)}` } }),
        )
      : Promise.resolve();
    return { clientId: opts.clientId, ready: entry.ready, detach: () => this.detach(opts.clientId, entry) };
  }

  /** A reviewed write, counted while the person has not answered it. */
  private counted(write: FileAccess['writeText']): FileAccess['writeText'] {
    return async (path, content, signal) => {
      this.held++;
      try {
        return await write(path, content, signal);
      } finally {
        this.held--;
      }
    };
  }

  /** Settles when the client's MCP servers are connected (at once for a client not attached). */
  ready(clientId: string | undefined): Promise<void> {
    return (clientId !== undefined ? this.attached.get(clientId)?.ready : undefined) ?? Promise.resolve();
  }

  detach(clientId: string, only?: Attached): void {
    const entry = this.attached.get(clientId);
    if (!entry || (only && entry !== only)) return;
    this.attached.delete(clientId);
    this.touched();
    void entry.pool?.close().catch((err: unknown) => this.logger.warn({ err, clientId }, 'closing MCP servers failed'));
  }

  detachAll(): void {
    for (const id of [...this.attached.keys()]) this.detach(id);
  }

  /** Every attached client's MCP tools, after `first` (config.json's), each id once. */
  tools(first: readonly Tool[]): Tool[] {
    const extra = [...first];
    const taken = new Set(extra.map((t) => t.id));
    for (const a of this.attached.values()) {
      for (const t of a.tools) {
        if (taken.has(t.id)) continue;
        taken.add(t.id);
        extra.push(t);
      }
    }
    return extra;
  }

  filesFor(origin: string | undefined): FileAccess {
    const own = origin !== undefined ? this.attached.get(origin)?.files : undefined;
    if (own) return own;
    let newest: FileAccess | undefined;
    for (const a of this.attached.values()) if (a.files) newest = a.files;
    return newest ?? nodeFiles;
  }
}

/**
 * An editor's file seam, completed from disk for what it leaves out. A file that is not on disk
 * is reported missing without asking the editor (a new file's write must not make it show an error).
 */
function editorSeam(files: Partial<FileAccess>): FileAccess {
  const read = files.readText;
  const write = files.writeText;
  return {
    readText: read
      ? async (path, signal) => {
          if (!(await exists(path))) throw new FileNotFoundError(path);
          return orDisk(() => read(path, signal), () => nodeFiles.readText(path, signal));
        }
      : nodeFiles.readText,
    writeText: write ? (path, content, signal) => orDisk(() => write(path, content, signal), () => nodeFiles.writeText(path, content, signal)) : nodeFiles.writeText,
  };
}

/** The editor's answer, or the disk's when the editor's seam gave up (EditorUnavailableError). */
async function orDisk<T>(editor: () => Promise<T>, disk: () => Promise<T>): Promise<T> {
  try {
    return await editor();
  } catch (err) {
    if (err instanceof EditorUnavailableError) return disk();
    throw err;
  }
}

async function exists(path: string): Promise<boolean> {
  try {
    await fsp.stat(path);
    return true;
  } catch (err) {
    return !isNotFound(err); // unreadable but present: let the editor answer
  }
}
