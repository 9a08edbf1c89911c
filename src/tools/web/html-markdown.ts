// HTML to Markdown with turndown (docs/tools.md says why a library): what a page says, without
// its scripts, styles, forms and inline pictures' bytes. Loaded on the first HTML page only.
import TurndownService from 'turndown';

/** Elements whose content is never text a reader sees. */
const DROPPED = ['script', 'style', 'noscript', 'template', 'iframe', 'object', 'embed', 'canvas', 'svg', 'head', 'form', 'button', 'select', 'input'] as const;

let service: TurndownService | undefined;

function turndown(): TurndownService {
  if (service) return service;
  const s = new TurndownService({ headingStyle: 'atx', codeBlockStyle: 'fenced', bulletListMarker: '-', emDelimiter: '_' });
  s.remove([...DROPPED]);
  // An inline `data:` picture is kilobytes of base64 the model cannot use: its alt text stays.
  s.addRule('dataImages', {
    filter: (node) => node.nodeName === 'IMG' && (attr(node, 'src') ?? '').startsWith('data:'),
    replacement: (_content, node) => {
      const alt = attr(node, 'alt');
      return alt ? `[image: ${alt}]` : '';
    },
  });
  return (service = s);
}

/** The page's title (from <title>) as a heading, then its body as Markdown. */
export function htmlToMarkdown(html: string): string {
  const title = /<title[^>]*>([\s\S]*?)<\/title>/i.exec(html)?.[1]?.replace(/\s+/g, ' ').trim();
  const body = turndown().turndown(html).replace(/\n{3,}/g, '\n\n').trim();
  return title && !body.startsWith(`# ${title}`) ? `# ${decodeEntities(title)}\n\n${body}` : body;
}

/** An element's attribute (the DOM types are not in this project's libs). */
function attr(node: unknown, name: string): string | null {
  return (node as { getAttribute(n: string): string | null }).getAttribute(name);
}

function decodeEntities(s: string): string {
  return s.replace(/&(amp|lt|gt|quot|#39|apos);/g, (_m, e: string) => ({ amp: '&', lt: '<', gt: '>', quot: '"', '#39': "'", apos: "'" })[e] ?? _m);
}
