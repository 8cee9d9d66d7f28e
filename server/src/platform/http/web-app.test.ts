import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../../../test/helpers/app';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(() => t.close());

describe('web interface', () => {
  it('serves the built interface at / and for its client-side routes, /med included', async () => {
    for (const path of ['/', '/sign-in', '/med', '/tasks/123']) {
      const response = await t.request(path, { headers: { Accept: 'text/html' } });
      expect(response.status, path).toBe(200);
      expect(response.headers.get('content-type')).toMatch(/^text\/html/);
      const html = await response.text();
      expect(html).toContain('<div id="root"></div>');
      const script = /src="(\/assets\/[^"]+\.js)"/.exec(html)?.[1] as string;
      expect((await t.request(script)).status).toBe(200);
    }
  });

  it('never answers API paths with the interface', async () => {
    const response = await t.request('/api/nothing-here', { headers: { Accept: 'text/html' } });
    expect(response.status).toBe(404);
    expect(response.headers.get('content-type')).toMatch(/^application\/problem\+json/);
  });
});
