import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../../../test/helpers/app';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => {
  await t.close();
});

describe('calls from the desktop app’s pages (another origin)', () => {
  it('answers the preflight of app://orbita with the methods and headers the API uses', async () => {
    const response = await t.request('/api/forms/batch', {
      method: 'OPTIONS',
      headers: {
        Origin: 'app://orbita',
        'Access-Control-Request-Method': 'POST',
        'Access-Control-Request-Headers': 'authorization, content-type, idempotency-key',
      },
    });
    expect(response.status).toBe(204);
    expect(response.headers.get('access-control-allow-origin')).toBe('app://orbita');
    expect(response.headers.get('access-control-allow-methods')).toContain('PATCH');
    expect(response.headers.get('access-control-allow-headers')).toContain('Idempotency-Key');
    expect(response.headers.get('access-control-allow-credentials')).toBeNull();
  });

  it('lets app://orbita read answers, and gives other origins nothing', async () => {
    const allowed = await t.request('/api/health', { headers: { Origin: 'app://orbita' } });
    expect(allowed.headers.get('access-control-allow-origin')).toBe('app://orbita');
    expect(allowed.headers.get('vary')).toMatch(/Origin/);
    const other = await t.request('/api/health', { headers: { Origin: 'https://elsewhere.example' } });
    expect(other.status).toBe(200);
    expect(other.headers.get('access-control-allow-origin')).toBeNull();
    const preflight = await t.request('/api/auth/me', {
      method: 'OPTIONS',
      headers: { Origin: 'https://elsewhere.example', 'Access-Control-Request-Method': 'GET' },
    });
    expect(preflight.headers.get('access-control-allow-origin')).toBeNull();
  });
});
