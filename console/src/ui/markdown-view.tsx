import type { ComponentChildren } from 'preact';
import { useMemo } from 'preact/hooks';
import { CodeText } from './code-text.js';
import { inlines, parseMarkdown, stableCut, type Block, type Inline } from '../markdown.js';

// The parsed tree becomes elements: text is always a text node, so nothing in a message can
// become markup, and links are only the http(s)/mailto targets the parser kept.

function inline(nodes: Inline[]): ComponentChildren {
  return nodes.map((n, i) => {
    switch (n.t) {
      case 'text':
        return n.v;
      case 'code':
        return <code key={i}>{n.v}</code>;
      case 'em':
        return <em key={i}>{inline(n.c)}</em>;
      case 'strong':
        return <strong key={i}>{inline(n.c)}</strong>;
      case 'del':
        return <del key={i}>{inline(n.c)}</del>;
      case 'br':
        return <br key={i} />;
      case 'link':
        return (
          <a key={i} href={n.href} target="_blank" rel="noopener noreferrer nofollow">
            {inline(n.c)}
          </a>
        );
    }
  });
}

function block(b: Block, i: number): ComponentChildren {
  switch (b.t) {
    case 'p':
      return <p key={i}>{inline(b.c)}</p>;
    case 'h': {
      // Message headings sit under the page's own h1/h2: shift them down so the outline holds.
      const level = Math.min(6, b.level + 2);
      const H = `h${level}` as 'h3';
      return (
        <H key={i} class="md-h">
          {inline(b.c)}
        </H>
      );
    }
    case 'code':
      return (
        <pre key={i} class="md-code" tabIndex={0} aria-label={b.lang ? `${b.lang} code` : 'code'}>
          <code>
            <CodeText code={b.v} lang={b.lang} />
          </code>
        </pre>
      );
    case 'list': {
      const items = b.items.map((item, k) => <li key={k}>{item.map(block)}</li>);
      return b.ordered ? (
        <ol key={i} start={b.start}>
          {items}
        </ol>
      ) : (
        <ul key={i}>{items}</ul>
      );
    }
    case 'quote':
      return <blockquote key={i}>{b.c.map(block)}</blockquote>;
    case 'hr':
      return <hr key={i} />;
    case 'table':
      return (
        <div key={i} class="md-table" tabIndex={0} role="region" aria-label="table">
          <table>
            <thead>
              <tr>
                {b.head.map((c, k) => (
                  <th key={k} scope="col">
                    {inline(c)}
                  </th>
                ))}
              </tr>
            </thead>
            <tbody>
              {b.rows.map((r, k) => (
                <tr key={k}>
                  {r.map((c, j) => (
                    <td key={j}>{inline(c)}</td>
                  ))}
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      );
  }
}

export function Markdown({ text }: { text: string }) {
  const cut = stableCut(text);
  const head = text.slice(0, cut);
  const tail = text.slice(cut);
  const first = useMemo(() => (head ? parseMarkdown(head) : []), [head]);
  const rest = useMemo(() => parseMarkdown(tail), [tail]);
  return (
    <div class="md">
      {first.map(block)}
      {rest.map((b, i) => block(b, first.length + i))}
    </div>
  );
}

/** One line of Markdown spans (a permission request's reason: `code` and *emphasis*). */
export function InlineText({ text }: { text: string }) {
  const nodes = useMemo(() => inlines(text), [text]);
  return <>{inline(nodes)}</>;
}
