import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../../../test/helpers/app';
import { readJson } from '../../../../test/helpers/http';
import { probeModule } from '../../../../test/helpers/probe-module';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp({ extraModules: [probeModule], config: { bodyLimit: '10kb' } });
});
afterAll(() => t.close());

const json = (body: unknown): RequestInit => ({
  method: 'POST',
  headers: { 'Content-Type': 'application/json' },
  body: typeof body === 'string' ? body : JSON.stringify(body),
});

async function expectProblem(response: Response, status: number, code: string) {
  expect(response.status).toBe(status);
  expect(response.headers.get('content-type')).toMatch(/^application\/problem\+json/);
  const problem = await readJson(response);
  expect(problem).toMatchObject({ type: `/api/problems/${code}`, status, code });
  expect(typeof problem.title).toBe('string');
  expect(problem.detail.length).toBeGreaterThan(10);
  expect(problem.requestId).toBe(response.headers.get('x-request-id'));
  return problem;
}

describe('problem responses at the edge', () => {
  it('accepts a valid body', async () => {
    const response = await t.request('/api/probe/echo', json({ name: 'Pump', count: 3 }));
    expect(response.status).toBe(201);
    expect(await readJson(response)).toEqual({ name: 'Pump', count: 3 });
  });

  it('answers malformed JSON with 400 malformed_json', async () => {
    await expectProblem(await t.request('/api/probe/echo', json('{"name": "Pump",')), 400, 'malformed_json');
  });

  it('answers wrong types with 400 validation_failed listing every invalid field', async () => {
    const response = await t.request('/api/probe/echo', json({ name: '', count: 'three', tags: ['ok', 7] }));
    const problem = await expectProblem(response, 400, 'validation_failed');
    expect(problem.errors).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ location: 'body', pointer: '#/name', code: 'too_small' }),
        expect.objectContaining({ location: 'body', pointer: '#/count', code: 'invalid_type' }),
        expect.objectContaining({ location: 'body', pointer: '#/tags/1', code: 'invalid_type' }),
      ]),
    );
    expect(problem.errors).toHaveLength(3);
  });

  it('refuses text holding a NUL character and values nested too deep, naming where they are', async () => {
    const response = await t.request(
      '/api/probe/echo',
      json({ name: 'Pu\u0000mp', count: 3, tags: ['ok', 'b\u0000'] }),
    );
    const problem = await expectProblem(response, 400, 'validation_failed');
    expect(problem.errors).toEqual([
      expect.objectContaining({ location: 'body', pointer: '#/name', code: 'nul_character' }),
      expect.objectContaining({ location: 'body', pointer: '#/tags/1', code: 'nul_character' }),
    ]);
    const query = await expectProblem(
      await t.request('/api/probe/items/0f6a3ad4-3e4c-4c59-9a43-52a4c5fdc2f1?limit=5&x=%00'),
      400,
      'validation_failed',
    );
    expect(query.errors[0]).toMatchObject({ location: 'query', pointer: '#/x', code: 'nul_character' });
    // Found however deep it is; a body nested thousands deep is refused, not a stack overflow.
    const deep = (depth: number, inner: string) => `${'['.repeat(depth)}${inner}${']'.repeat(depth)}`;
    const nested = await expectProblem(
      await t.request('/api/probe/echo', json(`{"name":"x","count":1,"tags":${deep(3, '"a\\u0000"')}}`)),
      400,
      'validation_failed',
    );
    expect(nested.errors[0]).toMatchObject({ pointer: '#/tags/0/0/0', code: 'nul_character' });
    const tooDeep = await expectProblem(
      await t.request('/api/probe/echo', json(`{"name":"x","count":1,"tags":${deep(4_000, '"ok"')}}`)),
      400,
      'validation_failed',
    );
    expect(tooDeep.errors[0]).toMatchObject({ location: 'body', code: 'too_deep' });
    expect(tooDeep.errors[0].pointer.startsWith('#/tags/0/0/')).toBe(true);
  });

  it('refuses a missing body and a JSON body that is not an object', async () => {
    await expectProblem(await t.request('/api/probe/echo', { method: 'POST' }), 400, 'validation_failed');
    await expectProblem(await t.request('/api/probe/echo', json('"just a string"')), 400, 'malformed_json');
  });

  it('answers a body that is not JSON with 415', async () => {
    const response = await t.request('/api/probe/echo', {
      method: 'POST',
      headers: { 'Content-Type': 'text/plain' },
      body: 'name=Pump',
    });
    await expectProblem(response, 415, 'unsupported_media_type');
  });

  it('answers an oversized body with 413', async () => {
    const response = await t.request('/api/probe/echo', json({ name: 'x'.repeat(20_000), count: 1 }));
    const problem = await expectProblem(response, 413, 'payload_too_large');
    expect(problem.detail).toContain('10240');
  });

  it('validates path parameters and coerces query parameters', async () => {
    const ok = await t.request('/api/probe/items/0f6a3ad4-3e4c-4c59-9a43-52a4c5fdc2f1?limit=5');
    expect(await readJson(ok)).toEqual({ itemId: '0f6a3ad4-3e4c-4c59-9a43-52a4c5fdc2f1', limit: 5 });
    const badParam = await expectProblem(await t.request('/api/probe/items/42'), 400, 'validation_failed');
    expect(badParam.errors[0]).toMatchObject({ location: 'params', pointer: '#/itemId' });
    const badQuery = await expectProblem(
      await t.request('/api/probe/items/0f6a3ad4-3e4c-4c59-9a43-52a4c5fdc2f1?limit=1000'),
      400,
      'validation_failed',
    );
    expect(badQuery.errors[0]).toMatchObject({ location: 'query', pointer: '#/limit', code: 'too_big' });
  });

  it('answers an unknown route with 404 and a wrong method with 405 and Allow', async () => {
    await expectProblem(await t.request('/api/no/such/thing'), 404, 'not_found');
    // Outside /api, a browser gets the web interface (client-side routes); anything else a problem.
    await expectProblem(
      await t.request('/not-api-at-all', { headers: { Accept: 'application/json' } }),
      404,
      'not_found',
    );
    const response = await t.request('/api/probe/echo', { method: 'DELETE' });
    await expectProblem(response, 405, 'method_not_allowed');
    expect(response.headers.get('allow')).toBe('POST');
  });

  it('answers 404 for problem codes that are names of built-in object properties', async () => {
    for (const code of ['constructor', '__proto__', 'toString', 'hasOwnProperty', 'valueOf', 'prototype']) {
      await expectProblem(await t.request(`/api/problems/${code}`), 404, 'not_found');
    }
    const known = await t.request('/api/problems/not_found');
    expect(known.status).toBe(200);
    expect(await readJson(known)).toMatchObject({ code: 'not_found', status: 404 });
  });

  it('answers a malformed path escape with a 400 problem', async () => {
    await expectProblem(await t.request('/api/probe/items/%E0%A4%A'), 400, 'bad_request');
  });

  it('hides the cause of an unexpected error behind a 500 problem', async () => {
    const problem = await expectProblem(await t.request('/api/probe/boom'), 500, 'internal_error');
    expect(JSON.stringify(problem)).not.toContain('secret');
  });

  it('treats an answer outside the declared contract as a server error', async () => {
    await expectProblem(await t.request('/api/probe/breach'), 500, 'internal_error');
  });

  it('resolves problem type URIs to the catalogue', async () => {
    const entry = await t.request('/api/problems/validation_failed');
    expect(await readJson(entry)).toEqual({
      code: 'validation_failed',
      status: 400,
      title: 'The request is not valid',
    });
    await expectProblem(await t.request('/api/problems/no_such_code'), 404, 'not_found');
  });
});

describe('caching', () => {
  it('lets no browser or proxy keep an API answer, a problem included', async () => {
    const answered = await t.request('/api/probe/echo', json({ name: 'Pump', count: 3 }));
    expect(answered.status).toBe(201);
    expect(answered.headers.get('cache-control')).toBe('no-store');
    const unknown = await t.request('/api/probe/nothing-here');
    expect(unknown.status).toBe(404);
    expect(unknown.headers.get('cache-control')).toBe('no-store');
  });
});

describe('request ids', () => {
  it('gives every response a request id, keeping a sane one the caller sent', async () => {
    const generated = await t.request('/api/health');
    expect(generated.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
    const kept = await t.request('/api/health', { headers: { 'X-Request-Id': 'edge-7f3a.1' } });
    expect(kept.headers.get('x-request-id')).toBe('edge-7f3a.1');
    const replaced = await t.request('/api/health', { headers: { 'X-Request-Id': 'bad id <script>' } });
    expect(replaced.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
  });
});
