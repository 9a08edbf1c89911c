// The model's Markdown as DOM, for the chat webview: the web console's parser (a tree, never HTML)
// and the shared highlighter, turned into elements with text nodes only. Nothing in a message can
// become markup, so the webview needs no 'unsafe-inline' and no HTML sanitizer.
import { highlight } from '../../../../console/src/highlight.js';
import { parseMarkdown, type Block, type Inline } from '../../../../console/src/markdown.js';

function el<K extends keyof HTMLElementTagNameMap>(tag: K, cls?: string): HTMLElementTagNameMap[K] {
  const e = document.createElement(tag);
  if (cls) e.className = cls;
  return e;
}

function inline(target: HTMLElement, nodes: Inline[]): void {
  for (const n of nodes) {
    switch (n.t) {
      case 'text':
        target.append(document.createTextNode(n.v));
        break;
      case 'code': {
        const c = el('code');
        c.textContent = n.v;
        target.append(c);
        break;
      }
      case 'em':
      case 'strong':
      case 'del': {
        const e = el(n.t);
        inline(e, n.c);
        target.append(e);
        break;
      }
      case 'br':
        target.append(el('br'));
        break;
      case 'link': {
        // VS Code opens http(s)/mailto links of a webview in the browser; the parser kept only those.
        const a = el('a');
        a.href = n.href;
        a.title = n.href;
        inline(a, n.c);
        target.append(a);
        break;
      }
    }
  }
}

/** A code block with highlighting (spans of text, one class a token kind). */
export function codeBlock(code: string, lang: string, cls = 'code'): HTMLElement {
  const pre = el('pre', cls);
  if (lang) pre.dataset['lang'] = lang;
  const c = el('code');
  for (const t of highlight(code, lang)) {
    if (t.k === 'plain') c.append(document.createTextNode(t.v));
    else {
      const s = el('span', `tok-${t.k}`);
      s.textContent = t.v;
      c.append(s);
    }
  }
  pre.append(c);
  return pre;
}

function block(target: HTMLElement, b: Block): void {
  switch (b.t) {
    case 'p': {
      const p = el('p');
      inline(p, b.c);
      target.append(p);
      break;
    }
    case 'h': {
      const h = el(`h${Math.min(6, b.level + 1)}` as 'h2', 'md-h');
      inline(h, b.c);
      target.append(h);
      break;
    }
    case 'code':
      target.append(codeBlock(b.v, b.lang));
      break;
    case 'list': {
      const list = el(b.ordered ? 'ol' : 'ul');
      if (b.ordered && b.start !== 1) list.setAttribute('start', String(b.start));
      for (const item of b.items) {
        const li = el('li');
        for (const x of item) block(li, x);
        list.append(li);
      }
      target.append(list);
      break;
    }
    case 'quote': {
      const q = el('blockquote');
      for (const x of b.c) block(q, x);
      target.append(q);
      break;
    }
    case 'hr':
      target.append(el('hr'));
      break;
    case 'table': {
      const wrap = el('div', 'md-table');
      const table = el('table');
      const head = el('tr');
      for (const c of b.head) {
        const th = el('th');
        inline(th, c);
        head.append(th);
      }
      const thead = el('thead');
      thead.append(head);
      const tbody = el('tbody');
      for (const r of b.rows) {
        const tr = el('tr');
        for (const c of r) {
          const td = el('td');
          inline(td, c);
          tr.append(td);
        }
        tbody.append(tr);
      }
      table.append(thead, tbody);
      wrap.append(table);
      target.append(wrap);
      break;
    }
  }
}

/** Renders `text` (Markdown, possibly still streaming) into `target`. */
export function renderMarkdown(target: HTMLElement, text: string): void {
  const md = el('div', 'md');
  for (const b of parseMarkdown(text)) block(md, b);
  target.append(md);
}
