// Writes the OpenAPI document the built server serves to clients/typescript/openapi.json:
// the typed client's types are generated from it and `redocly lint` checks it.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { api, listeningUrl } from '../../test/support/http.mjs';
import { REPO, spawnFerret, stopChild } from '../../test/support/spawn.mjs';
import { StderrLog } from '../../test/support/stderr-log.mjs';
import { tempEnv } from '../../test/support/temp.mjs';

const env = tempEnv();
// A token makes the document declare its bearer security, as a real deployment's does.
const child = spawnFerret(['--http', '--port', '0', '--no-stdio', '--cwd', env.ws], {
  env: { CHIMERA_HOME: env.home, FERRET_LOG_LEVEL: 'info', FERRET_SERVER_TOKEN: 'openapi-dump' },
});
try {
  const url = await listeningUrl(new StderrLog(child.stderr));
  const doc = await api(url, 'GET', '/openapi.json', undefined, 'openapi-dump');
  if (doc.status !== 200) throw new Error(`GET /openapi.json answered ${doc.status}`);
  const out = process.argv[2] ?? join(REPO, 'clients/typescript/openapi.json');
  writeFileSync(out, `${JSON.stringify(doc.body, null, 2)}\n`);
  process.stdout.write(`wrote ${out}\n`);
} finally {
  await stopChild(child, 'SIGTERM');
  env.cleanup();
}
