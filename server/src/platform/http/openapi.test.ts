import { validate } from '@readme/openapi-parser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../../../test/helpers/app';
import { readJson } from '../../../../test/helpers/http';
import { probeModule } from '../../../../test/helpers/probe-module';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp({ extraModules: [probeModule] });
});
afterAll(() => t.close());

async function document() {
  const response = await t.request('/api/openapi.json');
  expect(response.status).toBe(200);
  return readJson(response);
}

describe('OpenAPI contract', () => {
  it('is a valid OpenAPI 3.1 document', async () => {
    const doc = await document();
    expect(doc.openapi).toBe('3.1.0');
    const result = await validate(structuredClone(doc));
    expect(result.valid ? [] : result.errors).toEqual([]);
  });

  it('lists every mounted route with its method', async () => {
    const doc = await document();
    const documented = Object.entries(doc.paths as Record<string, object>).flatMap(([path, item]) =>
      Object.keys(item).map((method) => `${method.toUpperCase()} ${path}`),
    );
    const mounted = t.app.routes.map((r) => `${r.method.toUpperCase()} ${r.path.replace(/:(\w+)/g, '{$1}')}`);
    // Endpoints writing their own responses (MCP) are described by hand.
    const raw = t.app.modules.flatMap((m) =>
      (m.endpoints ?? []).flatMap((e) => Object.keys(e.openapi).map((method) => `${method.toUpperCase()} ${e.path}`)),
    );
    expect(raw).toContain('POST /api/mcp');
    expect(documented.sort()).toEqual([...mounted, ...raw].sort());
    expect(documented).toEqual(expect.arrayContaining(['GET /api/health', 'GET /api/openapi.json', 'GET /api/docs']));
  });

  it('describes request schemas, parameters and problem responses from the zod contract', async () => {
    const doc = await document();
    const echo = doc.paths['/api/probe/echo'].post;
    const body = echo.requestBody.content['application/json'].schema;
    expect(body.required).toEqual(['name', 'count']);
    expect(body.properties.count.type).toBe('integer');
    expect(echo.responses.default.content['application/problem+json'].schema.$ref).toBe('#/components/schemas/Problem');
    const item = doc.paths['/api/probe/items/{itemId}'].get;
    expect(item.parameters).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ in: 'path', name: 'itemId', required: true }),
        expect.objectContaining({ in: 'query', name: 'limit' }),
      ]),
    );
    expect(doc.components.schemas.Problem.required).toEqual(
      expect.arrayContaining(['type', 'title', 'status', 'detail', 'code']),
    );
  });

  it('serves a browsable docs page with its assets', async () => {
    const page = await t.request('/api/docs');
    expect(page.headers.get('content-type')).toMatch(/^text\/html/);
    const html = await page.text();
    const assets = [...html.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1] as string);
    expect(assets).toEqual(expect.arrayContaining(['/api/docs/assets/swagger-ui-bundle.js', '/api/docs/init.js']));
    for (const asset of assets) {
      const response = await t.request(asset);
      expect(response.status, asset).toBe(200);
      expect((await response.text()).length, asset).toBeGreaterThan(10);
    }
    const init = await (await t.request('/api/docs/init.js')).text();
    expect(init).toContain('/api/openapi.json');
  });
});
