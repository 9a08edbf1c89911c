import type { SessionConfigOption } from '@agentclientprotocol/sdk';
import type { ChatView, Entry, PlanItem, ToolCard } from '../model/chat-model.js';
import { personWords, reviewedElsewhere } from '../model/card-words.js';
import { usageLine } from '../model/format.js';
import { matchingCommands } from '../model/slash.js';
import { renderMarkdown } from './markdown-dom.js';
import type { HostMessage, WebviewMessage } from './protocol.js';

// The chat webview: renders the extension's ChatView (keyed, so streaming text and live output
// update in place) and sends the person's actions back. No framework: the DOM is small.

declare function acquireVsCodeApi(): { postMessage(m: unknown): void };
const host = acquireVsCodeApi();
const post = (m: WebviewMessage): void => host.postMessage(m);

const byId = <T extends HTMLElement>(id: string): T => document.getElementById(id) as T;
const transcript = byId<HTMLElement>('transcript');
const empty = byId<HTMLElement>('empty');
const promptBox = byId<HTMLTextAreaElement>('prompt');
const send = byId<HTMLButtonElement>('send');
const stop = byId<HTMLButtonElement>('stop');
const usage = byId<HTMLElement>('usage');
const http = byId<HTMLElement>('http');
const pickers = byId<HTMLElement>('pickers');
const reviewBar = byId<HTMLElement>('review-bar');
const queuedLine = byId<HTMLElement>('queued');
const menu = byId<HTMLUListElement>('command-menu');

const nodes = new Map<string, HTMLElement>();
let current: ChatView | undefined;

const STATUS_WORD: Record<ToolCard['status'], string> = {
  pending: 'waiting',
  in_progress: 'running',
  completed: 'done',
  failed: 'failed',
  denied: 'denied',
  cancelled: 'cancelled',
};

function el<K extends keyof HTMLElementTagNameMap>(tag: K, cls?: string, text?: string): HTMLElementTagNameMap[K] {
  const e = document.createElement(tag);
  if (cls) e.className = cls;
  if (text !== undefined) e.textContent = text;
  return e;
}

/** Markdown-lite: fenced code blocks and `inline code`; everything else as plain text. */
function richText(target: HTMLElement, text: string): void {
  const parts = text.split(/```[^\n]*\n?/);
  parts.forEach((part, i) => {
    if (i % 2 === 1) {
      target.append(el('pre', 'code', part.replace(/\n$/, '')));
      return;
    }
    part.split(/(`[^`\n]+`)/).forEach((chunk) => {
      if (/^`[^`\n]+`$/.test(chunk)) target.append(el('code', undefined, chunk.slice(1, -1)));
      else if (chunk) target.append(document.createTextNode(chunk));
    });
  });
}

function button(label: string, action: string, path: string, cls = 'secondary'): HTMLButtonElement {
  const b = el('button', cls, label);
  b.dataset['action'] = action;
  b.dataset['path'] = path;
  return b;
}

/** An edit whose write waits for the person: the card says so, not "running" (or "done"). */
function awaitingReview(c: ToolCard, v: ChatView): boolean {
  return c.kind === 'edit' && (c.status === 'pending' || c.status === 'in_progress') && c.locations.some((l) => v.reviews[l.path] === 'pending');
}

const FOLD_LINES = 12;

/** Tool output: a read shows a one-line summary (the file is in the editor); long output is folded. */
function output(c: ToolCard): HTMLElement {
  const lines = c.output.split('\n');
  if (c.kind === 'read' || lines.length > FOLD_LINES) {
    const d = el('details', 'tool-fold');
    const what = c.kind === 'read' ? `read ${lines.length} line${lines.length === 1 ? '' : 's'}` : `${lines.length} lines of output`;
    d.append(el('summary', undefined, what), el('pre', 'tool-output', c.output));
    return d;
  }
  return el('pre', 'tool-output', c.output);
}

function toolCard(c: ToolCard, v: ChatView): HTMLElement {
  const card = el('div', 'tool-card');
  // A result written for the model is said in a person's words (the model's stay in its history).
  const words = personWords(c, v.reviews, v.waiting);
  const waiting = awaitingReview(c, v) || words?.offer !== undefined;
  const elsewhere = !waiting && reviewedElsewhere(c, v.reviews, v.elsewhere);
  card.dataset['status'] = waiting ? 'review' : elsewhere ? 'review-elsewhere' : c.status;
  card.dataset['id'] = c.id;
  if (c.name) card.dataset['tool'] = c.name;
  const head = el('div', 'tool-head');
  const badge = waiting ? 'waiting for your review' : elsewhere ? 'waiting for review in another window' : STATUS_WORD[c.status];
  head.append(el('span', `tool-kind kind-${c.kind}`, c.kind), el('span', 'tool-title', c.title), el('span', `badge status-${waiting || elsewhere ? 'review' : c.status}`, badge));
  card.append(head);
  if (c.permission) {
    const p = c.permission;
    const words = [p.risk ? `risk ${p.risk}` : '', p.reason ?? ''].filter(Boolean).join(': ');
    const line = el('div', 'tool-permission', `Permission${words ? ` (${words})` : ''}: ${p.decision ?? 'asking…'}`);
    line.dataset['decision'] = p.decision ?? '';
    card.append(line);
  }
  if (words) card.append(el('div', 'tool-output tool-note', words.text));
  else if (c.output) card.append(output(c));
  // An edit offered again after its turn ended: its file, with Review / Accept / Reject.
  const rows = words?.offer && !c.diffs.some((d) => d.path === words.offer) ? [...c.diffs, { path: words.offer, label: v.labels[words.offer] ?? words.offer, isNew: false }] : c.diffs;
  for (const d of rows) {
    const row = el('div', 'diff-row');
    row.dataset['path'] = d.path;
    const review = v.reviews[d.path];
    row.dataset['review'] = review ?? '';
    row.append(el('span', 'diff-path', `${d.isNew ? 'new file ' : ''}${d.label}`));
    if (review === 'pending') {
      row.append(el('span', 'review-state', 'pending review'), button('Review', 'review', d.path), button('Accept', 'accept', d.path, 'primary'), button('Reject', 'reject', d.path));
    } else if (review) {
      row.append(el('span', `review-state review-${review}`, review === 'withdrawn' ? 'withdrawn (turn stopped)' : review));
    }
    card.append(row);
  }
  if (c.exitCode !== undefined) card.dataset['exitCode'] = String(c.exitCode);
  return card;
}

const PLAN_MARK: Record<PlanItem['status'], string> = { completed: '✓', in_progress: '▸', pending: '○' };
const PLAN_SAID: Record<PlanItem['status'], string> = { completed: 'done', in_progress: 'in progress', pending: 'to do' };

/** The agent's plan as a checklist: a mark per step (said in words to a screen reader), the count, a priority that is not medium. */
function planList(target: HTMLElement, items: PlanItem[]): void {
  const done = items.filter((i) => i.status === 'completed').length;
  const head = el('div', 'plan-head');
  head.append(el('span', 'plan-title', 'Plan'), el('span', 'plan-count', items.length ? `${done} of ${items.length} done` : 'cleared'));
  const ul = el('ul', 'plan-list');
  for (const i of items) {
    const li = el('li', `plan-item plan-${i.status}`);
    li.dataset['status'] = i.status;
    const mark = el('span', 'plan-mark', PLAN_MARK[i.status]);
    mark.setAttribute('aria-hidden', 'true');
    li.append(mark, el('span', 'sr-only', `${PLAN_SAID[i.status]}: `), el('span', 'plan-text', i.text));
    if (i.priority !== 'medium') li.append(el('span', `plan-priority prio-${i.priority}`, i.priority));
    ul.append(li);
  }
  target.setAttribute('aria-label', 'Plan');
  target.append(head, ul);
}

function fill(target: HTMLElement, e: Entry, v: ChatView): void {
  target.replaceChildren();
  target.className = `entry ${e.kind}`;
  switch (e.kind) {
    case 'user':
      // Someone else's prompt in a shared session says who sent it.
      if (e.from !== undefined) target.append(el('div', 'from', `from ${e.from}`));
      richText(target, e.text);
      break;
    case 'agent':
      renderMarkdown(target, e.text);
      break;
    case 'thought': {
      const d = el('details');
      d.append(el('summary', undefined, 'Thinking'), el('div', undefined, e.text));
      target.append(d);
      break;
    }
    case 'notice': {
      target.classList.add(`notice-${e.level}`);
      target.append(el('span', 'notice-text', e.text));
      if (e.retry !== undefined) {
        const b = el('button', 'secondary', 'Retry');
        b.dataset['action'] = 'retry';
        b.dataset['text'] = e.retry;
        target.append(b);
      }
      if (e.setting) {
        const b = el('button', 'secondary', 'Open Settings');
        b.dataset['action'] = 'settings';
        b.dataset['setting'] = e.setting;
        target.append(b);
      }
      break;
    }
    case 'plan':
      planList(target, e.items);
      break;
    case 'tool':
      target.append(toolCard(e.card, v));
      break;
  }
}

/** The key decides whether an entry is redrawn: its own content, plus review states of its diffs. */
function keyOf(e: Entry, v: ChatView): string {
  const paths = e.kind === 'tool' ? [...e.card.diffs.map((d) => d.path), ...e.card.locations.map((l) => l.path)] : [];
  const reviews = paths.map((p) => `${v.reviews[p] ?? ''}${v.waiting.includes(p) ? '+' : ''}`).join(',');
  return JSON.stringify(e) + reviews;
}

function renderPickers(options: SessionConfigOption[], busy: boolean): void {
  const key = JSON.stringify(options) + busy;
  if (pickers.dataset['key'] === key) return;
  pickers.dataset['key'] = key;
  pickers.replaceChildren();
  for (const o of options) {
    if (o.type !== 'select') continue;
    const label = el('label', 'picker');
    label.append(el('span', undefined, o.name));
    const select = el('select');
    select.dataset['config'] = o.id;
    select.title = o.description ?? o.name;
    for (const opt of o.options) {
      const group = 'group' in opt ? opt.options : [opt];
      for (const g of group) {
        const option = el('option', undefined, g.name);
        option.value = g.value;
        option.selected = g.value === o.currentValue;
        select.append(option);
      }
    }
    label.append(select);
    pickers.append(label);
  }
}

/** Follow the newest output while the person is at the bottom; stay put once they scroll up. */
let stickToBottom = true;
transcript.addEventListener('scroll', () => {
  stickToBottom = transcript.scrollHeight - transcript.scrollTop - transcript.clientHeight < 40;
});

function render(v: ChatView): void {
  current = v;
  const seen = new Set<string>();
  let prev: HTMLElement | null = null;
  for (const e of v.entries) {
    seen.add(e.id);
    let node = nodes.get(e.id);
    if (!node) {
      node = el('div');
      node.dataset['entry'] = e.id;
      nodes.set(e.id, node);
    }
    const key = keyOf(e, v);
    if (node.dataset['key'] !== key) {
      fill(node, e, v);
      node.dataset['key'] = key;
    }
    const want: ChildNode | null = prev ? prev.nextSibling : transcript.firstChild;
    if (want !== node) transcript.insertBefore(node, want);
    prev = node;
  }
  for (const [id, node] of nodes) {
    if (seen.has(id)) continue;
    node.remove();
    nodes.delete(id);
  }
  empty.hidden = v.entries.length > 0;
  document.body.dataset['busy'] = String(v.busy);
  document.body.dataset['session'] = v.sessionId ?? '';
  document.body.dataset['http'] = v.httpUrl ?? '';
  stop.disabled = !v.busy;
  // During a turn Send queues (the message goes when the turn ends).
  send.textContent = v.busy ? 'Queue' : 'Send';
  send.title = v.busy ? 'Send when the running turn ends (Enter)' : 'Send (Enter)';
  usage.textContent = usageLine(v.usage);
  // One short line; the full events URL is the tooltip.
  http.textContent = v.httpUrl && v.sessionId ? `HTTP+SSE: ${v.httpUrl}` : '';
  http.title = v.httpUrl && v.sessionId ? `This session's events: ${v.httpUrl}/session/${v.sessionId}/events` : '';
  queuedLine.textContent = v.queued.length ? `Queued (sent when this turn ends): ${v.queued.join(' · ')}` : '';
  renderReviewBar(v);
  renderPickers(v.config, v.busy);
  if (stickToBottom) transcript.scrollTop = transcript.scrollHeight;
}

/** Pending edits, above the composer: each with Review/Accept/Reject, and "accept all" for the turn or session. */
function renderReviewBar(v: ChatView): void {
  const paths = Object.entries(v.reviews).filter(([, r]) => r === 'pending').map(([p]) => p);
  const key = JSON.stringify([paths, v.waiting, v.acceptAll, v.busy]);
  if (reviewBar.dataset['key'] === key) return;
  reviewBar.dataset['key'] = key;
  reviewBar.replaceChildren();
  reviewBar.hidden = paths.length === 0 && !v.acceptAll;
  if (v.acceptAll) reviewBar.append(el('div', 'review-note', `Edits are accepted without review for the rest of this ${v.acceptAll}.`));
  if (paths.length === 0) return;
  reviewBar.append(el('div', 'review-note', paths.length === 1 ? '1 edit waits for your review' : `${paths.length} edits wait for your review`));
  const orphans = paths.filter((p) => !v.waiting.includes(p)).length;
  if (orphans) reviewBar.append(el('div', 'review-orphans', `${orphans === 1 ? 'It was' : `${orphans} were`} pending when the window reloaded: nothing was written, and the turn that made ${orphans === 1 ? 'it' : 'them'} has ended. Accept still writes ${orphans === 1 ? 'it' : 'them'}.`));
  for (const p of paths) {
    const row = el('div', 'review-row');
    row.dataset['path'] = p;
    const label = el('span', 'diff-path', v.labels[p] ?? p);
    label.title = v.waiting.includes(p) ? 'The agent waits for your decision' : 'From before the window reloaded: the turn that made it has ended';
    row.append(label, button('Review', 'review', p), button('Accept', 'accept', p, 'primary'), button('Reject', 'reject', p));
    reviewBar.append(row);
  }
  const all = el('div', 'review-all');
  // "This turn" only while one runs: edits offered again after a reload belong to a turn that has ended.
  const scopes = [['now', 'Accept all'], ...(v.busy ? [['turn', 'Accept all this turn'] as const] : []), ['session', 'Accept all this session']] as const;
  for (const [scope, label] of scopes) {
    const b = el('button', 'secondary', label);
    b.dataset['acceptAll'] = scope;
    all.append(b);
  }
  reviewBar.append(all);
}

// ---- the `/` menu ---------------------------------------------------------------------------

let menuItems: { name: string; description: string; hint?: string }[] = [];
let menuActive = 0;

function renderMenu(): void {
  menuItems = matchingCommands(promptBox.value, current?.commands ?? []);
  if (menuActive >= menuItems.length) menuActive = 0;
  menu.replaceChildren();
  menu.hidden = menuItems.length === 0;
  promptBox.setAttribute('aria-expanded', String(!menu.hidden));
  menuItems.forEach((c, i) => {
    const li = el('li', i === menuActive ? 'active' : undefined);
    li.setAttribute('role', 'option');
    li.setAttribute('aria-selected', String(i === menuActive));
    li.dataset['command'] = c.name;
    li.append(el('span', 'command-name', `/${c.name}`), el('span', 'command-description', c.description));
    if (c.hint) li.append(el('span', 'command-hint', c.hint));
    menu.append(li);
  });
}

function chooseCommand(name: string): void {
  promptBox.value = `/${name} `;
  renderMenu();
  promptBox.focus();
}

menu.addEventListener('mousedown', (ev) => {
  const li = (ev.target as HTMLElement).closest('li');
  if (!li?.dataset['command']) return;
  ev.preventDefault(); // the textarea keeps the focus
  chooseCommand(li.dataset['command']);
});
promptBox.addEventListener('input', renderMenu);

function submit(): void {
  const text = promptBox.value.trim();
  if (!text) return;
  // Sent during a turn, the host queues it (shown under the composer) and sends it when the turn ends.
  post({ type: 'prompt', text });
  promptBox.value = '';
  renderMenu();
  stickToBottom = true;
}

window.addEventListener('message', (ev: MessageEvent<HostMessage>) => {
  if (ev.data.type === 'state') render(ev.data.view);
});
send.addEventListener('click', submit);
stop.addEventListener('click', () => post({ type: 'stop' }));
byId('new').addEventListener('click', () => post({ type: 'start' }));
byId('history').addEventListener('click', () => post({ type: 'resume' }));
promptBox.addEventListener('keydown', (ev) => {
  if (!menu.hidden && menuItems.length) {
    if (ev.key === 'ArrowDown' || ev.key === 'ArrowUp') {
      ev.preventDefault();
      menuActive = (menuActive + (ev.key === 'ArrowDown' ? 1 : menuItems.length - 1)) % menuItems.length;
      return renderMenu();
    }
    if ((ev.key === 'Enter' || ev.key === 'Tab') && !ev.shiftKey && !ev.isComposing) {
      ev.preventDefault();
      return chooseCommand(menuItems[menuActive]!.name);
    }
    if (ev.key === 'Escape') {
      ev.preventDefault();
      menu.hidden = true;
      return;
    }
  }
  if (ev.key === 'Enter' && !ev.shiftKey && !ev.isComposing) {
    ev.preventDefault();
    submit();
  }
});
// Esc anywhere in the chat stops a running turn (the editor's own keybinding covers its side).
document.addEventListener('keydown', (ev) => {
  if (ev.key === 'Escape' && current?.busy && menu.hidden) {
    ev.preventDefault();
    post({ type: 'stop' });
  }
});
reviewBar.addEventListener('click', (ev) => {
  const b = (ev.target as HTMLElement).closest('button');
  const scope = b?.dataset['acceptAll'];
  if (scope === 'now' || scope === 'turn' || scope === 'session') return post({ type: 'acceptAll', scope });
  const action = b?.dataset['action'];
  const path = b?.dataset['path'];
  if (path && (action === 'review' || action === 'accept' || action === 'reject')) post({ type: action, path });
});
pickers.addEventListener('change', (ev) => {
  const s = ev.target as HTMLSelectElement;
  if (s.dataset['config']) post({ type: 'config', configId: s.dataset['config'], value: s.value });
});
transcript.addEventListener('click', (ev) => {
  const b = (ev.target as HTMLElement).closest('button');
  const action = b?.dataset['action'];
  if (action === 'retry' && b?.dataset['text'] !== undefined) return post({ type: 'retry', text: b.dataset['text'] });
  if (action === 'settings' && b?.dataset['setting']) return post({ type: 'settings', setting: b.dataset['setting'] });
  const path = b?.dataset['path'];
  if (!path) return;
  if (action === 'review' || action === 'accept' || action === 'reject') post({ type: action, path });
});
post({ type: 'ready' });
