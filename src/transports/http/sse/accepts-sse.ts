/**
 * Whether an Accept header allows text/event-stream: absent, or a range that covers it
 * (`text/event-stream`, `text/*`, `*\/*`) with a q-value above 0. Checked before the stream opens,
 * whose own 406 body is not in ferret's error shape.
 */
export function acceptsEventStream(accept: string | undefined): boolean {
  if (accept === undefined || accept.trim() === '') return true;
  return accept.split(',').some((range) => {
    const [type = '', ...params] = range.split(';').map((p) => p.trim().toLowerCase());
    if (type !== 'text/event-stream' && type !== 'text/*' && type !== '*/*') return false;
    const q = params.find((p) => p.startsWith('q='));
    return q === undefined || Number(q.slice(2)) > 0;
  });
}
