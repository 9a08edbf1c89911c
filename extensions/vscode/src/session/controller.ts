import * as acp from '@agentclientprotocol/sdk';
import * as vscode from 'vscode';
import type { ClientHandlers } from '../acp/connection.js';
import { serverSettings, workspaceCwd } from '../config.js';
import type { PendingEdits } from '../edits/pending-edits.js';
import type { EditReview } from '../edits/review.js';
import { ProcessList } from '../model/processes.js';
import { ChatModel, type Effect } from '../model/chat-model.js';
import { ferretMeta } from '../model/ferret-meta.js';
import { exitError, handshakeError, promptError, spawnError } from '../model/server-errors.js';
import { unknownCommand } from '../model/slash.js';
import type { ChatViewProvider } from '../ui/chat-view.js';
import { showError } from '../ui/errors.js';
import { reveal } from '../ui/follow.js';
import { AgentRequests } from './agent-requests.js';
import { pickSession, rememberSession } from './history.js';
import { DetachedServer } from './detached-start.js';
import { ChimeraServer } from './server.js';
import { ServerStateFile, serverStateDir, type HeldWrite } from './server-state.js';
import { sharedStorage, WindowSlot } from './window-slot.js';

const errorText = (err: unknown): string => (err instanceof Error ? err.message : typeof err === 'object' && err && 'message' in err ? String(err.message) : String(err));

/**
 * One window's Chimera: the server (started on first use, stopped with the window), the session
 * shown in the chat, and every request the agent makes of the editor.
 */
export class ChimeraController implements ClientHandlers, vscode.Disposable {
  readonly model = new ChatModel((p) => vscode.workspace.asRelativePath(p, false));
  /** The session's background processes, from ferret's notifications (Chimera: Show Background Processes). */
  private readonly processes = new ProcessList();
  private server: ChimeraServer | undefined;
  private starting: Promise<ChimeraServer> | undefined;
  private sessionId: string | undefined;
  /** During session/load the history is replayed: draw it, but do not act on it again. */
  private replaying = false;
  /** This window's prompt is running (its answer, not `_ferret/turn_end`, ends the turn here). */
  private prompting = false;
  /** Turns whose prompt this window saw answered. */
  private readonly answered = new Set<string>();
  /** chimera.* settings changed while a turn ran: restart once it ends. */
  private stale = false;
  /** A session is shown (the bridge's status bar item asks its state at once). */
  onSession: (() => void) | undefined;
  /** dispose() began: the window is closing or reloading. */
  private closing = false;
  /** Typed during a turn: sent, in order, when it ends (Stop drops them). */
  private queue: string[] = [];

  private readonly requests: AgentRequests;
  /** Where a detached server is written down for the next window (none without a storage folder). */
  private readonly canDetach: boolean;
  /** The detached server in use (undefined with a stdio child). */
  private detached: DetachedServer | undefined;
  /** Writes an earlier window held, taken over here: withdrawn when their turn ends. */
  private readonly adopted = new Set<AbortController>();
  /** Their paths: not "from before the reload" (a turn waits on them), though staged a moment later. */
  private readonly adoptedPaths = new Set<string>();
  /**
   * This window's record in the storage folder (its session, its pending edits, its connection):
   * a reload continues it; a second window on the folder has its own. None without a storage folder.
   */
  private readonly slotReady: Promise<WindowSlot | undefined>;
  private slot: WindowSlot | undefined;
  private unwatch: (() => void) | undefined;

  constructor(
    private readonly ctx: vscode.ExtensionContext,
    private readonly log: vscode.LogOutputChannel,
    private readonly chat: ChatViewProvider,
    private readonly pending: PendingEdits,
    private readonly review: EditReview,
  ) {
    // One folder for every window on this workspace: they share the server and see each other.
    const own = ctx.storageUri?.scheme === 'file' ? ctx.storageUri.fsPath : undefined;
    const storage = own && sharedStorage(own);
    // A window with a storage folder can keep a server across reloads (its file: serverStateDir).
    this.canDetach = storage !== undefined && storage !== '';
    this.slotReady = storage && own
      ? WindowSlot.claim(storage, own).then(
          (slot) => {
            const p = slot.previous;
            log.info(`window record ${slot.record.id}${p ? `, continuing ${p.id} (${p.released ? 'closed' : 'its extension host ended'} ${Math.round((Date.now() - (p.released ?? p.at)) / 1000)} s ago)` : ''}`);
            // Another window's records change as its person's reviews come and go: cards here say where an edit waits.
            this.unwatch = slot.watch(() => this.refreshElsewhere());
            return (this.slot = slot);
          },
          (err: unknown) => void log.warn(`could not keep this window's state: ${errorText(err)}`),
        )
      : Promise.resolve(undefined);
    this.requests = new AgentRequests({
      model: this.model,
      pending,
      review,
      log,
      render: () => this.render(),
      replaying: () => this.replaying,
      closing: () => this.closing,
      autoAccept: () => this.model.view().acceptAll !== undefined || vscode.workspace.getConfiguration('chimera').get<boolean>('autoAcceptEdits', false),
    });
    pending.onChange(() => this.pendingChanged());
  }

  // ---- commands ------------------------------------------------------------------------------

  /** "Chimera: Start Session": a new session in the first workspace folder. */
  async startSession(): Promise<void> {
    await this.chat.reveal();
    const server = await this.ensureServer();
    if (!server) return;
    const cwd = workspaceCwd()!;
    try {
      const r = await server.agent.request(acp.methods.agent.session.new, { cwd, mcpServers: [] });
      this.show(r.sessionId, r.configOptions ?? []);
    } catch (err) {
      void showError(promptError(errorText(err)), this.log);
    }
  }

  /** "Chimera: Resume Session": pick one of this workspace's sessions and load its history. */
  async resumeSession(sessionId?: string): Promise<void> {
    const server = await this.ensureServer();
    if (!server) return;
    const cwd = workspaceCwd()!;
    const id = sessionId ?? (await pickSession(server.agent, cwd, this.ctx.workspaceState, server.ferret?.methods?.includes('_ferret/session/rename') === true));
    if (!id) return;
    await this.chat.reveal();
    this.show(id, []);
    this.replaying = this.model.replaying = true;
    try {
      const r = await server.agent.request(acp.methods.agent.session.load, { sessionId: id, cwd, mcpServers: [] });
      this.model.setConfig(r.configOptions ?? []);
      // A turn still running (started before a reload, or by another client): shown running; its _ferret/turn_end ends it.
      if (ferretMeta<{ status?: string }>(r._meta)?.status === 'running' && !this.model.view().busy) this.model.turnStarted();
    } catch (err) {
      this.model.notice('error', `Could not load the session: ${errorText(err)}`);
    } finally {
      this.replaying = this.model.replaying = false;
      this.render();
    }
  }

  async prompt(text: string): Promise<void> {
    // An unknown `/command` is answered here and never reaches the model.
    const local = unknownCommand(text, this.model.view().commands);
    if (local) {
      this.model.notice('info', local);
      return this.render();
    }
    // Enter during a turn queues the message: it is sent when the turn ends.
    if (this.model.view().busy) {
      this.queue.push(text);
      this.model.setQueued(this.queue);
      return this.render();
    }
    if (!this.sessionId) await this.startSession();
    const server = this.server;
    const sessionId = this.sessionId;
    if (!server || !sessionId) return;
    this.model.addUser(text);
    this.model.turnStarted();
    this.prompting = true;
    this.render();
    let failed = false;
    try {
      const r = await server.agent.request(acp.methods.agent.session.prompt, { sessionId, prompt: [{ type: 'text', text }] });
      this.noteAnswered(r._meta);
      this.model.turnEnded(r.stopReason);
    } catch (err) {
      failed = true;
      this.noteAnswered((err as { data?: Record<string, unknown> }).data);
      // Shown once, in the chat, with Retry; a crashed server is reported by its exit.
      const shown = promptError(errorText(err), (err as { code?: unknown }).code);
      const setting = shown.actions.find((a) => a.label === 'Open Settings');
      this.model.turnFailed(shown.text, text, setting && 'setting' in setting ? setting.setting : undefined);
      this.log.error(shown.text);
    } finally {
      this.prompting = false;
      if (this.model.view().acceptAll === 'turn') this.model.setAcceptAll(undefined);
    }
    if (this.stale) await this.restartServer();
    this.render();
    const next = this.queue.shift();
    this.model.setQueued(this.queue);
    if (next !== undefined && !failed) void this.prompt(next);
    else if (next !== undefined) this.dropQueue('the turn failed');
  }

  /** ferret's `_ferret/bridgeStatus` for this window's session; undefined with no server or session. */
  async bridgeStatus(): Promise<unknown> {
    if (!this.server?.alive || !this.sessionId) return undefined;
    return this.server.agent.request('_ferret/bridgeStatus', { sessionId: this.sessionId });
  }

  /** Chimera: Show Background Processes: what the agent started in this session, running ones first. */
  async showProcesses(): Promise<void> {
    const all = this.processes.all();
    if (all.length === 0) {
      void vscode.window.showInformationMessage('No background processes in this session.');
      return;
    }
    await vscode.window.showQuickPick(
      all.map((p) => ({ label: p.id, description: p.running ? 'running' : `ended (${p.reason ?? 'exited'})`, detail: p.command })),
      { title: 'Background processes', placeHolder: 'The agent stops them with process_kill; closing the session ends them all' },
    );
  }

  /** Stop: ACP's session/cancel; the prompt then answers `cancelled`. Queued messages are not sent. */
  async stop(): Promise<void> {
    this.dropQueue('stopped');
    if (!this.server || !this.sessionId || !this.model.view().busy) return;
    await this.server.agent.notify(acp.methods.agent.session.cancel, { sessionId: this.sessionId });
  }

  /** "Retry" on a failed turn: the same message again. */
  retry(text: string): Promise<void> {
    return this.prompt(text);
  }

  /** "Accept all" for the rest of this turn or this session: pending edits are written now, the next ones at once. */
  async acceptAll(scope: 'turn' | 'session' | 'now'): Promise<void> {
    if (scope !== 'now') this.model.setAcceptAll(scope);
    this.render();
    await this.review.acceptAll();
  }

  private dropQueue(why: string): void {
    if (this.queue.length === 0) return;
    for (const t of this.queue) this.model.notice('info', `Not sent (${why}): ${t}`);
    this.queue = [];
    this.model.setQueued([]);
    this.render();
  }

  /** Pending edits changed: keep them across a reload, and tell the chat which still hold a turn. */
  private pendingChanged(): void {
    const list = this.pending.list();
    this.slot?.setPending(list);
    this.model.setWaiting(list.filter((e) => this.pending.isWaiting(e.path)).map((e) => e.path));
    void vscode.commands.executeCommand('setContext', 'chimera.editsPending', list.length > 0);
    this.render();
  }

  /** Edits that were pending when the window closed or reloaded: offered again (their turn is over). */
  restorePending(): void {
    for (const e of this.slot?.previous?.pending ?? []) {
      if (this.pending.get(e.path) || this.adoptedPaths.has(e.path)) continue;
      this.pending.stage(e.sessionId, e.path, e.proposed, e.original);
      this.model.setReview(e.path, 'pending');
    }
    this.noteOrphans();
    this.render();
  }

  /** Pending edits no turn waits for (from before a reload): said at the top of the chat. */
  private noteOrphans(): void {
    const n = this.pending.list().filter((e) => !this.pending.isWaiting(e.path) && !this.adoptedPaths.has(e.path)).length;
    if (n) this.model.notice('warning', `${n === 1 ? 'An edit was' : `${n} edits were`} waiting for your review when the window closed. Nothing was written: review, accept or reject ${n === 1 ? 'it' : 'them'} below.`);
  }

  async setConfig(configId: string, value: string): Promise<void> {
    if (!this.server || !this.sessionId) return;
    try {
      const r = await this.server.agent.request(acp.methods.agent.session.setConfigOption, { sessionId: this.sessionId, configId, value });
      this.model.setConfig(r.configOptions);
    } catch (err) {
      void vscode.window.showErrorMessage(`Chimera could not set ${configId}: ${errorText(err)}`);
    }
    this.render();
  }

  /** The chat view (re)loaded: it gets the current state. */
  redraw(): void {
    this.render();
  }

  /** Accept/Reject happened (code lens, title button or chat): show it on the cards. */
  reviewed(path: string, review: 'accepted' | 'rejected' | 'withdrawn'): void {
    this.model.setReview(path, review);
    this.render();
  }

  // ---- what the agent sends and asks (ACP client methods) -----------------------------------

  permission(req: acp.RequestPermissionRequest, signal: AbortSignal): Promise<acp.RequestPermissionResponse> {
    return this.requests.permission(req, signal);
  }

  readTextFile(p: acp.ReadTextFileRequest): Promise<acp.ReadTextFileResponse> {
    return this.requests.readTextFile(p);
  }

  writeTextFile(p: acp.WriteTextFileRequest, signal: AbortSignal): Promise<acp.WriteTextFileResponse> {
    return this.requests.writeTextFile(p, signal);
  }

  update(n: acp.SessionNotification): void {
    if (n.sessionId !== this.sessionId) return;
    const effects = this.model.apply(n.update);
    if (!this.replaying) for (const e of effects) this.run(e);
    this.render();
  }

  extension(method: string, params: unknown): void {
    const p = params as { sessionId?: string; turnId?: string; level?: string; text?: string; stopReason?: string; tool?: string; reason?: string } | undefined;
    if (!p || p.sessionId !== this.sessionId) return;
    if (method === '_ferret/sandbox_violation') {
      this.model.notice('warning', `The sandbox stopped ${p.tool ?? 'a tool'}: ${p.reason ?? 'not allowed'}`);
    } else if (method === '_ferret/notice' && p.text) {
      // Error notices also fail the prompt, which reports them; the rest go in the transcript.
      if (p.level !== 'error') this.model.notice(p.level === 'warning' ? 'warning' : 'info', p.text);
    } else if (method === '_ferret/process_started' || method === '_ferret/process_exited') {
      const line = this.processes.apply(method, params as Record<string, unknown>);
      if (line) this.model.notice('info', line);
    } else if (method === '_ferret/turn_end' && !this.replaying && this.adopted.size) {
      // The turn an adopted write belonged to is over (stopped): nothing waits on it any more.
      for (const a of this.adopted) a.abort();
    }
    if (method === '_ferret/turn_end' && p.stopReason && !this.prompting && !(p.turnId && this.answered.has(p.turnId))) {
      // A turn this window did not start (history replay, or another client's): its end, as the prompt answer would say.
      if (p.stopReason === 'error') this.model.turnFailed('The turn failed.');
      else this.model.turnEnded(p.stopReason === 'max_steps' ? 'max_turn_requests' : p.stopReason);
    }
    this.render();
  }

  // ---- plumbing ------------------------------------------------------------------------------

  /** The prompt's answer names its turn (ferret's `_meta`): its `_ferret/turn_end`, arriving late, is then not shown twice. */
  private noteAnswered(meta: Record<string, unknown> | null | undefined): void {
    const turnId = ferretMeta<{ turnId?: string }>(meta)?.turnId;
    if (turnId) this.answered.add(turnId);
  }

  private run(e: Effect): void {
    if (e.kind === 'reveal') void reveal(e.path, e.line, this.pending).catch((err: unknown) => this.log.warn(`could not open ${e.path}: ${errorText(err)}`));
  }

  private show(sessionId: string, config: acp.SessionConfigOption[]): void {
    this.sessionId = sessionId;
    this.onSession?.();
    this.model.reset(sessionId, config);
    for (const e of this.pending.list()) this.model.setReview(e.path, 'pending');
    this.noteOrphans();
    this.model.setWaiting(this.pending.list().filter((e) => this.pending.isWaiting(e.path)).map((e) => e.path));
    void rememberSession(this.ctx.workspaceState, sessionId);
    this.slot?.remember(sessionId);
    this.refreshElsewhere(false);
    this.render();
  }

  /** Which edits of the shown session wait for review in another window (a second window only watches them). */
  private refreshElsewhere(draw = true): void {
    const paths = this.slot && this.sessionId ? this.slot.reviewedElsewhere(this.sessionId) : [];
    if (this.model.setElsewhere(paths) && draw) this.render();
  }

  private render(): void {
    const v = this.model.view();
    if (v.busy !== this.shownBusy) {
      this.shownBusy = v.busy;
      void vscode.commands.executeCommand('setContext', 'chimera.busy', v.busy);
    }
    this.chat.render(v);
  }

  private shownBusy = false;

  /** The window's server, started on first use (and again after it died). */
  private async ensureServer(): Promise<ChimeraServer | undefined> {
    // Settings that changed without a change event reaching us (settings.json edited outside
    // VS Code) still count: a server started with other settings is replaced before it is used.
    if (this.server?.alive && !this.prompting && JSON.stringify(this.server.settings) !== JSON.stringify(serverSettings())) await this.restartServer();
    if (this.server?.alive) return this.server;
    const cwd = workspaceCwd();
    if (!cwd) {
      void vscode.window.showErrorMessage('Chimera needs a folder: open one, then start a session.');
      return undefined;
    }
    this.starting ??= this.spawn(cwd).finally(() => (this.starting = undefined));
    try {
      this.server = await this.starting;
      return this.server;
    } catch {
      return undefined; // reported by spawn()
    }
  }

  private async spawn(cwd: string): Promise<ChimeraServer> {
    const s = serverSettings();
    this.log.info(`starting ${s.command} ${s.args.join(' ')} in ${cwd}`);
    const version = (this.ctx.extension.packageJSON as { version?: string }).version ?? '0.0.0';
    const events = {
      onLog: (line: string) => this.log.info(`[server] ${line}`),
      onHttpUrl: (url: string) => {
        this.model.setHttpUrl(url);
        this.render();
      },
      onUnexpectedExit: (exit: { code: number | null; signal: NodeJS.Signals | null }, last: string | undefined) => {
        this.model.setHttpUrl(undefined);
        if (this.model.view().busy) this.model.turnFailed('The server stopped.');
        this.render();
        void showError(exitError(exit.code, exit.signal, last), this.log);
      },
    };
    const detach = this.canDetach && vscode.workspace.getConfiguration('chimera').get<boolean>('keepServerOnReload', true);
    try {
      const slot = detach ? await this.slotReady : undefined;
      if (detach && slot) {
        // The server's file is kept under CHIMERA_HOME (serverStateDir), out of the agent's reach.
        this.detached = await DetachedServer.open(s, cwd, version, this, events, new ServerStateFile(serverStateDir(s, cwd)), slot);
        const info = this.detached.server.init.agentInfo;
        this.log.info(`connected to ${info?.title ?? info?.name ?? 'the agent'} ${info?.version ?? ''} (a detached server: it outlives a window reload)`);
        return this.detached.server;
      }
      this.detached = undefined;
      const server = await ChimeraServer.start(s, cwd, version, this, events);
      const info = server.init.agentInfo;
      this.log.info(`connected to ${info?.title ?? info?.name ?? 'the agent'} ${info?.version ?? ''}`);
      return server;
    } catch (err) {
      const e = err as NodeJS.ErrnoException;
      void showError(typeof e.code === 'string' && e.syscall?.startsWith('spawn') ? spawnError(s.command, e) : handshakeError(errorText(err)), this.log);
      throw err;
    }
  }

  /**
   * chimera.command / args / env changed: the running server no longer matches them. It is
   * stopped now (or when the running turn ends); the next action starts one with the new settings.
   */
  settingsChanged(): void {
    if (!this.server) return;
    this.stale = true;
    if (!this.prompting) void this.restartServer();
  }

  /** "Chimera: Restart Server", and settings changes: stop it; the next use starts a fresh one. */
  async restartServer(): Promise<void> {
    this.stale = false;
    const server = this.server;
    this.server = undefined;
    if (!server) return;
    this.log.info('stopping the server (settings changed or restart asked); the next action starts a new one');
    await server.stop();
    this.model.setHttpUrl(undefined);
    this.render();
  }

  /**
   * With the window: a detached server runs on (a reload comes back to it; alone it exits after
   * its idle time), a stdio child is stopped (stdin closed, then SIGTERM for an --http server).
   */
  async dispose(): Promise<void> {
    this.closing = true;
    this.unwatch?.();
    this.slot?.release(); // first: the reloaded window may start before this one has finished
    const server = this.server;
    this.server = undefined;
    await server?.leave();
  }

  /**
   * A window opens. When it is a reload (it took over the record of a window that is gone), it
   * shows that window's session again, as History → resume would: with a detached server still
   * running, the turn that window left running shows running and the writes it waits on are taken
   * over here, so Accept or Reject here is the answer the server waits for. Without one, the turn
   * ended with the old server; edits left waiting are offered again after (restorePending).
   * A second window beside a live one shows the session that one shows, as a second viewer on the
   * same server: its own connection and client id, nothing of the first window's taken.
   */
  async reattach(): Promise<void> {
    const slot = await this.slotReady;
    if (!slot) return;
    const keep = vscode.workspace.getConfiguration('chimera').get<boolean>('keepServerOnReload', true);
    const previous = slot.resumable();
    this.log.info(previous ? `this window continues one that closed or reloaded; showing session ${previous} again` : slot.previous ? 'this window continues one that closed a while ago' : 'a new window on this folder');
    if (previous) {
      const server = await this.ensureServer();
      if (!server) return;
      await this.resumeSession(previous);
      const ds = this.detached;
      if (!ds) return;
      for (const h of ds.inherited.held) this.adopt(ds, h);
      await ds.letGo(ds.inherited.previous);
      return;
    }
    // A second window: only with a detached server, which both windows share.
    const beside = keep ? slot.liveSession() : undefined;
    if (!beside) return;
    this.log.info(`another window on this folder shows session ${beside}: shown here too (this window has its own connection)`);
    if (await this.ensureServer()) await this.resumeSession(beside);
  }

  /** A write the last window held: staged and reviewed here, answered by its id on that window's connection. */
  private adopt(ds: DetachedServer, h: HeldWrite): void {
    this.pending.take(h.params.path); // the copy kept for the reload: this is the request itself
    const ac = new AbortController();
    this.adopted.add(ac);
    this.adoptedPaths.add(h.params.path);
    void this.requests
      .writeTextFile(h.params, ac.signal)
      .then(
        (result) => ds.answer(h, { result }),
        (err: { code?: unknown; message?: unknown; data?: unknown }) =>
          ds.answer(h, { error: { code: typeof err.code === 'number' ? err.code : -32603, message: typeof err.message === 'string' ? err.message : 'the edit could not be reviewed', ...(err.data !== undefined ? { data: err.data } : {}) } }),
      )
      .finally(() => {
        this.adopted.delete(ac);
        this.adoptedPaths.delete(h.params.path);
      });
  }
}
