#!/usr/bin/env node
// Regenerates the client's two generated files from the BUILT server (run `npm run build` first;
// `npm run gen:client` at the repo root does both):
//   openapi.json      the document GET /openapi.json serves (scripts/openapi/dump.mjs)
//   src/schema.d.ts   its types (openapi-typescript, default options)
// With --out DIR both go to DIR instead (the staleness test compares them with the committed ones).
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import openapiTS, { COMMENT_HEADER, astToString } from 'openapi-typescript';

const PKG = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const REPO = resolve(PKG, '../..');

const i = process.argv.indexOf('--out');
const out = i >= 0 ? resolve(process.argv[i + 1] ?? '.') : undefined;
const docPath = out ? join(out, 'openapi.json') : join(PKG, 'openapi.json');
const typesPath = out ? join(out, 'schema.d.ts') : join(PKG, 'src/schema.d.ts');
mkdirSync(dirname(docPath), { recursive: true });

execFileSync(process.execPath, [join(REPO, 'scripts/openapi/dump.mjs'), docPath], { stdio: ['ignore', 'ignore', 'inherit'] });
const ast = await openapiTS(pathToFileURL(docPath), { silent: true });
writeFileSync(typesPath, COMMENT_HEADER + astToString(ast));
process.stdout.write(`wrote ${docPath}\nwrote ${typesPath}\n`);
