import type { SessionConfigOption } from '@agentclientprotocol/sdk';
import type { ChatView, Entry, PlanItem, ToolCard } from '../model/chat-model.js';
import { usageLine } from '../model/format.js';
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

function toolCard(c: ToolCard, v: ChatView): HTMLElement {
  const card = el('div', 'tool-card');
  card.dataset['status'] = c.status;
  card.dataset['id'] = c.id;
  if (c.name) card.dataset['tool'] = c.name;
  const head = el('div', 'tool-head');
  head.append(el('span', `tool-kind kind-${c.kind}`, c.kind), el('span', 'tool-title', c.title), el('span', `badge status-${c.status}`, STATUS_WORD[c.status]));
  card.append(head);
  if (c.permission) {
    const p = c.permission;
    const words = [p.risk ? `risk ${p.risk}` : '', p.reason ?? ''].filter(Boolean).join(': ');
    const line = el('div', 'tool-permission', `Permission${words ? ` (${words})` : ''}: ${p.decision ?? 'asking…'}`);
    line.dataset['decision'] = p.decision ?? '';
    card.append(line);
  }
  if (c.output) card.append(el('pre', 'tool-output', c.output));
  for (const d of c.diffs) {
    const row = el('div', 'diff-row');
    row.dataset['path'] = d.path;
    const review = v.reviews[d.path];
    row.dataset['review'] = review ?? '';
    row.append(el('span', 'diff-path', `${d.isNew ? 'new file ' : ''}${d.label}`));
    if (review === 'pending') {
      row.append(el('span', 'review-state', 'pending review'), button('Review', 'review', d.path), button('Accept', 'accept', d.path, 'primary'), button('Reject', 'reject', d.path));
    } else if (review) {
      row.append(el('span', `review-state review-${review}`, review));
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
    case 'agent':
      richText(target, e.text);
      break;
    case 'thought': {
      const d = el('details');
      d.append(el('summary', undefined, 'Thinking'), el('div', undefined, e.text));
      target.append(d);
      break;
    }
    case 'notice':
      target.classList.add(`notice-${e.level}`);
      target.textContent = e.text;
      break;
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
  const reviews = e.kind === 'tool' ? e.card.diffs.map((d) => v.reviews[d.path] ?? '').join(',') : '';
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
  send.disabled = v.busy;
  usage.textContent = usageLine(v.usage);
  http.textContent = v.httpUrl && v.sessionId ? `also on HTTP+SSE: ${v.httpUrl}/session/${v.sessionId}/events` : '';
  renderPickers(v.config, v.busy);
  if (stickToBottom) transcript.scrollTop = transcript.scrollHeight;
}

function submit(): void {
  const text = promptBox.value.trim();
  if (!text || current?.busy) return;
  post({ type: 'prompt', text });
  promptBox.value = '';
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
  if (ev.key === 'Enter' && !ev.shiftKey && !ev.isComposing) {
    ev.preventDefault();
    submit();
  }
});
pickers.addEventListener('change', (ev) => {
  const s = ev.target as HTMLSelectElement;
  if (s.dataset['config']) post({ type: 'config', configId: s.dataset['config'], value: s.value });
});
transcript.addEventListener('click', (ev) => {
  const b = (ev.target as HTMLElement).closest('button');
  const action = b?.dataset['action'];
  const path = b?.dataset['path'];
  if (!path) return;
  if (action === 'review' || action === 'accept' || action === 'reject') post({ type: action, path });
});
post({ type: 'ready' });
