// Talking JSON to ferret's HTTP API, and finding where a `--http --port 0` server listens.
// node:http rather than fetch: cheaper per request (the benchmarks time through it) and no lazy
// first-call cost. Plain Node ESM; types in http.d.mts.
import { request } from 'node:http';

/** One JSON request (Bearer token when given): the status, the parsed body ({raw} when not JSON, {} when empty), headers and text. */
export function api(url, method, path, body, token, headers = {}) {
  const data = body === undefined ? undefined : JSON.stringify(body);
  return new Promise((resolve, reject) => {
    let answered = false;
    const req = request(url + path, {
      method,
      headers: {
        ...(data !== undefined ? { 'content-type': 'application/json', 'content-length': Buffer.byteLength(data) } : {}),
        ...(token ? { authorization: `Bearer ${token}` } : {}),
        ...headers,
      },
    });
    req.on('response', (res) => {
      answered = true;
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (d) => (text += d));
      res.on('error', reject);
      res.on('end', () => {
        let parsed;
        try {
          parsed = text ? JSON.parse(text) : {};
        } catch {
          parsed = { raw: text };
        }
        const h = new Headers();
        for (const [k, v] of Object.entries(res.headers)) for (const x of Array.isArray(v) ? v : v === undefined ? [] : [v]) h.append(k, x);
        resolve({ status: res.statusCode ?? 0, body: parsed, headers: h, text });
      });
    });
    // The server may answer (413) and close before the whole body is written: the answer counts.
    req.on('error', (e) => {
      if (!answered) reject(e);
    });
    req.end(data);
  });
}

/** The URL a `--http` server reports in its `"msg":"listening"` log line (needs FERRET_LOG_LEVEL info or lower). */
export function listeningUrl(log, timeoutMs = 15_000) {
  return log.waitFor(
    (text) => {
      const lines = text.split('\n');
      lines.pop(); // not yet a whole line
      for (const line of lines) if (line.includes('"msg":"listening"')) return JSON.parse(line).url;
      return undefined;
    },
    timeoutMs,
    'the "listening" log line',
  );
}
