import type { Delegation } from '@shared/api/delegations';
import i18next, { type TFunction } from 'i18next';
import { beforeAll, describe, expect, it } from 'vitest';
import { ApiError } from '../../api';
import { en } from '../../i18n/en';
import { ru } from '../../i18n/ru';
import { applicationText, inProgress, nextStartIn, percentOf, refusal } from './substitution-model';

const now = new Date('2026-05-12T07:00:00.000Z'); // 10:00 in Moscow
const words: Record<'ru' | 'en', TFunction> = {} as never;

beforeAll(async () => {
  for (const language of ['ru', 'en'] as const) {
    const instance = i18next.createInstance();
    await instance.init({
      resources: { ru: { translation: ru }, en: { translation: en } },
      lng: language,
      interpolation: { escapeValue: false },
    });
    words[language] = instance.t;
  }
});

function delegation(from: string, application: Delegation['application']): Delegation {
  return {
    id: '00000000-0000-4000-8000-000000000001',
    userId: '00000000-0000-4000-8000-000000000002',
    substituteUserId: '00000000-0000-4000-8000-000000000003',
    formId: null,
    from,
    to: '2026-06-01T00:00:00.000Z',
    createdAt: '2026-05-01T00:00:00.000Z',
    application,
  };
}

const text = (language: 'ru' | 'en', one: Delegation) =>
  applicationText(words[language], language, one, now).replace(/\s/g, ' ');

describe('the progress of a bulk application, as the Substitution section says it', () => {
  it('says how many of the open tasks the substitute was added to while it runs, with the share for the bar', () => {
    const running = delegation('2026-05-12T06:00:00.000Z', { state: 'running', applied: 1500, total: 10000 });
    expect(text('en', running)).toBe('Added to 1,500 of 10,000 open tasks');
    expect(text('ru', running)).toBe('Добавлен в 1 500 из 10 000 открытых задач');
    expect(percentOf(running.application as never)).toBe(15);
    expect(inProgress(running, now)).toBe(true);
  });

  it('gives the start in Moscow time while scheduled, and asks again once it has come', () => {
    const later = delegation('2026-05-13T06:30:00.000Z', { state: 'scheduled', applied: 0, total: null });
    expect(text('en', later)).toBe('Starts 13.05.2026 09:30 (Moscow time)');
    expect(text('ru', later)).toBe('Начнётся 13.05.2026 09:30 (МСК)');
    expect(inProgress(later, now)).toBe(false);
    expect(nextStartIn([later], now)).toBe(23.5 * 3_600_000);
    const due = delegation('2026-05-12T06:59:00.000Z', { state: 'scheduled', applied: 0, total: null });
    expect(inProgress(due, now)).toBe(true);
  });

  it('counts the tasks once done, in the right grammatical number, and stops asking', () => {
    const done = (applied: number) =>
      delegation('2026-05-12T06:00:00.000Z', { state: 'done', applied, total: applied });
    expect(text('en', done(1))).toBe('Added to 1 open task');
    expect(text('en', done(10000))).toBe('Added to 10,000 open tasks');
    expect(text('ru', done(1))).toBe('Добавлен в 1 открытую задачу');
    expect(text('ru', done(3))).toBe('Добавлен в 3 открытые задачи');
    expect(text('ru', done(25))).toBe('Добавлен в 25 открытых задач');
    expect(text('en', done(0))).toBe('There were no open tasks');
    expect(inProgress(done(3), now)).toBe(false);
    expect(percentOf({ state: 'done', applied: 0, total: 0 })).toBe(100);
  });
});

describe('a refused delegation in the user’s language', () => {
  it('marks the fields the server named and says an overlap in its own words', () => {
    const invalid = new ApiError({
      type: 'about:blank',
      title: 'Validation failed',
      status: 400,
      code: 'validation_failed',
      detail: 'The end must come after the start. Correct the listed fields.',
      errors: [
        { location: 'body', pointer: '#/to', detail: 'The end must come after the start', code: 'ends_before_start' },
      ],
    } as never);
    expect(refusal(invalid, words.ru)).toEqual({
      message: 'Не удалось сохранить замещение: Исправьте отмеченные поля',
      fields: [{ name: 'to', errors: ['Окончание должно быть позже начала'] }],
    });
    const overlap = new ApiError({
      type: 'about:blank',
      title: 'Conflict',
      status: 409,
      code: 'conflict',
      detail: 'This period overlaps another default substitute of the user. Shorten one of them.',
    } as never);
    expect(refusal(overlap, words.ru).message).toBe(
      'Не удалось сохранить замещение: Период пересекается с другим замещением для тех же задач. Сократите одно из них.',
    );
  });
});
