import { z } from 'zod';

// A local server's real context window. A model served by Ollama, llama.cpp, vLLM or LM Studio
// has the window its server was started with, which no table can know; each of them says it at
// an endpoint of its own. Asked once per server and model in a process (an answer of "unknown"
// is kept too, so a server without these endpoints is not asked every turn), all at once, with
// one short deadline; any failure or unexpected shape is simply "unknown".

const DEADLINE_MS = 2000;

const LlamaProps = z.object({ default_generation_settings: z.object({ n_ctx: z.number().int().positive() }).loose().optional(), n_ctx: z.number().int().positive().optional() }).loose();
const OllamaShow = z.object({ parameters: z.string().optional(), model_info: z.record(z.string(), z.unknown()).optional() }).loose();
const ModelList = z.object({ data: z.array(z.object({ id: z.string() }).loose()) }).loose();
const LmStudioModel = z.object({ loaded_context_length: z.number().int().positive().optional(), max_context_length: z.number().int().positive().optional() }).loose();

const known = new Map<string, Promise<number | undefined>>();

/** The window the server behind `baseURL` runs `model` with, or undefined when it does not say. */
export function probeContextWindow(baseURL: string, model: string, headers: Record<string, string> = {}): Promise<number | undefined> {
  const key = `${baseURL}\n${model}`;
  let p = known.get(key);
  if (!p) {
    p = probe(baseURL, model, headers);
    known.set(key, p);
  }
  return p;
}

async function probe(baseURL: string, model: string, headers: Record<string, string>): Promise<number | undefined> {
  const base = baseURL.replace(/\/+$/, '');
  const origin = base.replace(/\/v1$/, '');
  const signal = AbortSignal.timeout(DEADLINE_MS);
  const get = async (url: string, init: RequestInit = {}): Promise<unknown> => {
    try {
      const res = await fetch(url, { ...init, headers: { ...headers, ...(init.headers as Record<string, string> | undefined) }, signal });
      if (!res.ok) return undefined;
      return (await res.json());
    } catch {
      return undefined;
    }
  };
  // In order of trust: what the server runs with before what the model could take.
  const [props, show, list, lms] = await Promise.all([
    get(`${origin}/props`),
    get(`${origin}/api/show`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ model }) }),
    get(`${base}/models`),
    get(`${origin}/api/v0/models/${encodeURIComponent(model)}`),
  ]);
  return fromLlama(props) ?? fromOllama(show) ?? fromList(list, model) ?? fromLmStudio(lms);
}

function fromLlama(v: unknown): number | undefined {
  const r = LlamaProps.safeParse(v);
  return r.success ? (r.data.default_generation_settings?.n_ctx ?? r.data.n_ctx) : undefined;
}

/** Ollama: a `num_ctx` the model was set up with is what it runs with; else the model's own length. */
function fromOllama(v: unknown): number | undefined {
  const r = OllamaShow.safeParse(v);
  if (!r.success) return undefined;
  const set = /(?:^|\n)\s*num_ctx\s+(\d+)/.exec(r.data.parameters ?? '');
  if (set) return Number(set[1]);
  for (const [k, n] of Object.entries(r.data.model_info ?? {})) if (k.endsWith('.context_length') && typeof n === 'number' && n > 0) return n;
  return undefined;
}

/** vLLM's `max_model_len`; gateways that list models with `context_length` or `context_window` say it there too. */
function fromList(v: unknown, model: string): number | undefined {
  const r = ModelList.safeParse(v);
  if (!r.success) return undefined;
  const m = r.data.data.find((x) => x.id === model);
  for (const k of ['max_model_len', 'context_length', 'context_window']) {
    const n = m?.[k];
    if (typeof n === 'number' && Number.isInteger(n) && n > 0) return n;
  }
  return undefined;
}

function fromLmStudio(v: unknown): number | undefined {
  const r = LmStudioModel.safeParse(v);
  return r.success ? (r.data.loaded_context_length ?? r.data.max_context_length) : undefined;
}
