import { appPathOf, deepLinkInArguments, parseDeepLink } from '@shared/desktop/deep-link';
import { describe, expect, it } from 'vitest';

const TASK_ID = '0190a5b2-7c3d-7e4f-8a9b-0c1d2e3f4a5b';
const FORM_ID = '0190a5b2-1111-7e4f-8a9b-0c1d2e3f4a5b';
const TOKEN = 'x3Kq_9-ZlWc0pR7tYb2NvA5sDfGhJkLm';

describe('orbita:// links', () => {
  it('turns a link to a known screen into the app path the renderer navigates to', () => {
    expect(parseDeepLink(`orbita://tasks/${TASK_ID}`)).toBe(`/tasks/${TASK_ID}`);
    expect(parseDeepLink(`orbita:///tasks/${TASK_ID}`)).toBe(`/tasks/${TASK_ID}`);
    expect(parseDeepLink(`orbita://tasks/${TASK_ID}/`)).toBe(`/tasks/${TASK_ID}`);
    expect(parseDeepLink('orbita://tasks')).toBe('/tasks');
    expect(parseDeepLink(`orbita://forms/${FORM_ID}/edit`)).toBe(`/forms/${FORM_ID}/edit`);
    expect(parseDeepLink('orbita://forms/new')).toBe('/forms/new');
    expect(parseDeepLink(`orbita://directories/${FORM_ID}`)).toBe(`/directories/${FORM_ID}`);
    expect(parseDeepLink('orbita://settings/error-log')).toBe('/settings/error-log');
    expect(parseDeepLink('orbita://profile')).toBe('/profile');
    expect(parseDeepLink('orbita://')).toBe('/');
  });

  it('keeps only the query parameters the screen reads, and only valid ones', () => {
    expect(parseDeepLink(`orbita://tasks?formId=${FORM_ID}&x=1`)).toBe(`/tasks?formId=${FORM_ID}`);
    expect(parseDeepLink('orbita://tasks?formId=not-an-id')).toBe('/tasks');
    expect(parseDeepLink(`orbita://reset-password?token=${TOKEN}`)).toBe(`/reset-password?token=${TOKEN}`);
    expect(parseDeepLink('orbita://reset-password?token=<script>')).toBe('/reset-password');
    expect(parseDeepLink(`orbita://tasks/${TASK_ID}?redirect=https://evil.example`)).toBe(`/tasks/${TASK_ID}`);
    expect(parseDeepLink(`orbita://tasks/${TASK_ID}#comment`)).toBe(`/tasks/${TASK_ID}`);
  });

  it('ignores unknown paths, malformed ids, other schemes and tricks', () => {
    for (const link of [
      'orbita://tasks/123',
      `orbita://tasks/${TASK_ID}/delete`,
      'orbita://admin',
      'orbita://api/tasks',
      'orbita://settings/billing',
      `orbita://Tasks/${TASK_ID}`,
      `orbita://user:secret@tasks/${TASK_ID}`,
      `orbita://tasks:8080/${TASK_ID}`,
      `orbita://tasks/..%2F..%2Fsettings`,
      `https://tasks/${TASK_ID}`,
      `app://orbita/tasks/${TASK_ID}`,
      'javascript:alert(1)',
      'orbita:tasks',
      '',
      `orbita://tasks/${TASK_ID}?${'a'.repeat(3000)}`,
    ]) {
      expect(parseDeepLink(link), link).toBeUndefined();
    }
  });

  it('finds the link among the arguments Windows and Linux start the app with', () => {
    expect(deepLinkInArguments(['/opt/Orbita/orbita', '--no-sandbox', `orbita://tasks/${TASK_ID}`])).toBe(
      `/tasks/${TASK_ID}`,
    );
    expect(deepLinkInArguments(['electron', '.', `ORBITA://tasks/${TASK_ID}`])).toBe(`/tasks/${TASK_ID}`);
    expect(deepLinkInArguments(['/opt/Orbita/orbita'])).toBeUndefined();
    expect(deepLinkInArguments(['/opt/Orbita/orbita', 'orbita://nowhere'])).toBeUndefined();
  });

  it('checks app paths the same way (what the preload lets through to the page)', () => {
    expect(appPathOf(`/tasks/${TASK_ID}`)).toBe(`/tasks/${TASK_ID}`);
    expect(appPathOf(`/tasks?formId=${FORM_ID}`)).toBe(`/tasks?formId=${FORM_ID}`);
    expect(appPathOf('//evil.example/tasks')).toBeUndefined();
    expect(appPathOf('https://evil.example/')).toBeUndefined();
    expect(appPathOf('tasks')).toBeUndefined();
    expect(appPathOf('/nowhere')).toBeUndefined();
  });
});
