// Adding a store (issue 12, items 11–12): a base URL ending in /api/public/v1 is accepted, normalised in
// one place; every refusal names the field to fix and the real cause (a URL that is not the API is not
// "the key was refused").
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { normaliseBaseUrl } from '#core/api/index';
import type { Core } from '#core/types';
import { AddStoreInput } from '#shared/contract/index';
import { ProblemError } from '#shared/problem';
import {
  createSimulator,
  serveSimulator,
  type ServedSimulator,
  type Simulator,
} from '#simulator/index';
import { startCore, tempDir } from '../support/core';

describe('the one normalisation of a base URL', () => {
  it.each([
    'https://acme.example.com',
    'https://acme.example.com/',
    'https://acme.example.com/api/public/v1',
    'https://acme.example.com/api/public/v1/',
    'https://acme.example.com/API/public/v1//',
  ])('reads %s as https://acme.example.com', (raw) => {
    expect(normaliseBaseUrl(raw).href).toBe('https://acme.example.com');
  });

  it('keeps a path prefix before the API', () => {
    expect(normaliseBaseUrl('https://example.com/shop/api/public/v1').href).toBe(
      'https://example.com/shop',
    );
  });

  it('says which field is wrong for an empty or non-http address', () => {
    const empty = AddStoreInput.safeParse({ name: 'A', baseUrl: '', apiKey: 'k' });
    expect(empty.error?.issues.map((i) => [i.path[0], i.message])).toEqual([
      ['baseUrl', 'API base URL is required'],
    ]);
    const ftp = AddStoreInput.safeParse({ name: 'A', baseUrl: 'ftp://x', apiKey: 'k' });
    expect(ftp.error?.issues[0]?.message).toMatch(/^API base URL must start with https:\/\//);
  });
});

let sim: Simulator;
let served: ServedSimulator;
let other: Server;
let otherUrl: string;
let core: Core;
const dir = tempDir();

beforeAll(async () => {
  sim = createSimulator({ seed: 2, stores: [{ name: 'Acme', tests: 5 }] });
  served = await serveSimulator(sim, { port: 0 });
  // Not the API: a web server that answers a page for everything, or 401 in plain text under /private.
  other = createServer((req, res) => {
    if (req.url?.startsWith('/private')) {
      res.writeHead(401, { 'content-type': 'text/plain' }).end('Unauthorized');
      return;
    }
    res.writeHead(404, { 'content-type': 'text/html' }).end('<h1>Not found</h1>');
  });
  await new Promise<void>((resolve) => other.listen(0, '127.0.0.1', resolve));
  otherUrl = `http://127.0.0.1:${(other.address() as AddressInfo).port}`;
  core = await startCore(dir.path);
});

afterAll(async () => {
  await core.close();
  await served.close();
  await new Promise((resolve) => other.close(resolve));
  dir.remove();
});

async function addProblem(baseUrl: string, apiKey: string) {
  try {
    await core.services.stores.add({ name: 'Acme', baseUrl, apiKey, sessionOnly: true });
  } catch (error) {
    if (error instanceof ProblemError) return error.problem;
    throw error;
  }
  return null;
}

describe('adding a store', () => {
  it('accepts the base URL as the API description prints it, and saves it once normalised', async () => {
    const key = sim.stores[0]?.apiKey ?? '';
    const store = await core.services.stores.add({
      name: 'Acme',
      baseUrl: `${served.url}/api/public/v1/`,
      apiKey: key,
      sessionOnly: true,
    });
    expect(store.baseUrl).toBe(served.url.replace(/\/+$/, ''));
  });

  it('says the key was refused only when the API refused it', async () => {
    const problem = await addProblem(served.url, 'not-the-key');
    expect(problem?.title).toBe('The API key was refused');
  });

  it('says an address that is not the API is not the API, naming the field', async () => {
    const html = await addProblem(otherUrl, 'any-key');
    expect(html?.title).toBe('API base URL: no Store Experimentation API at this address');
    expect(html?.detail).toMatch(/answered 404/);
    const plain401 = await addProblem(`${otherUrl}/private`, 'any-key');
    expect(plain401?.title).toBe('API base URL: no Store Experimentation API at this address');
  });

  it('says an address nothing answers at cannot be reached, naming the field', async () => {
    const problem = await addProblem('http://127.0.0.1:9', 'any-key');
    expect(problem?.title).toMatch(/^API base URL: 127\.0\.0\.1:9 cannot be reached/);
  });
});
