// What a fetched body becomes for the model: HTML turned into Markdown, text and JSON as they
// are (decoded with the charset the server names), anything binary refused before its body is read.

/** The media type (lower case, no parameters) and charset of a Content-Type header. */
export function mediaType(contentType: string): { mime: string; charset: string | undefined } {
  const [mime = '', ...params] = contentType.split(';');
  const charset = params.map((p) => /^\s*charset\s*=\s*"?([^";\s]+)"?/i.exec(p)?.[1]).find(Boolean);
  return { mime: mime.trim().toLowerCase(), charset };
}

const TEXT_TYPES = new Set(['application/json', 'application/xml', 'application/javascript', 'application/ecmascript', 'application/x-javascript', 'application/yaml', 'application/x-yaml', 'application/toml', 'application/x-sh', 'application/sql', 'application/graphql', 'application/x-ndjson']);

export function isHtml(mime: string): boolean {
  return mime === 'text/html' || mime === 'application/xhtml+xml';
}

/** A type web_fetch reads: text of any kind, JSON, XML and their `+json`/`+xml` kin; or none given (sniffed). */
export function isTextual(contentType: string): boolean {
  const { mime } = mediaType(contentType);
  return mime === '' || mime.startsWith('text/') || isHtml(mime) || TEXT_TYPES.has(mime) || mime.endsWith('+json') || mime.endsWith('+xml');
}

function decode(body: Buffer, charset: string | undefined): string {
  try {
    return new TextDecoder(charset ?? 'utf-8').decode(body);
  } catch {
    return new TextDecoder('utf-8').decode(body); // a charset label the decoder does not know
  }
}

/** Markdown for HTML (turndown loads on the first page), the text itself for the rest; undefined for a body that is binary after all. */
export async function pageText(contentType: string, body: Buffer): Promise<{ text: string; converted: boolean } | undefined> {
  const { mime, charset } = mediaType(contentType);
  if (mime === '' && body.subarray(0, 4096).includes(0)) return undefined;
  const text = decode(body, charset);
  const html = isHtml(mime) || (mime === '' && /^\s*<(!doctype html|html)[\s>]/i.test(text));
  if (!html) return { text, converted: false };
  const { htmlToMarkdown } = await import('./html-markdown.js');
  return { text: htmlToMarkdown(text), converted: true };
}
