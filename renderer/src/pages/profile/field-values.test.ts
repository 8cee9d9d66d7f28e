import type { ProfileField } from '@shared/api/profile';
import dayjs from 'dayjs';
import { describe, expect, it } from 'vitest';
import { changedValues, datePattern, toFormValue } from './field-values';

const field = (id: string, type: ProfileField['type']): ProfileField => ({
  id,
  name: id,
  type,
  options: null,
  position: 0,
  createdAt: '2026-01-01T00:00:00.000Z',
});

describe('profile values in the form', () => {
  const weight = field('weight', 'history-number');
  const birthday = field('birthday', 'date');
  const remote = field('remote', 'checkbox');
  const note = field('note', 'text');

  it('sends only what changed, so an unchanged history-number value is not recorded again', () => {
    const loaded = { weight: '80', birthday: '1990-05-01' };
    const edited = { weight: '80', birthday: dayjs('1990-05-02'), remote: false, note: '  ' };
    expect(changedValues([weight, birthday, remote, note], loaded, edited)).toEqual({ birthday: '1990-05-02' });
  });

  it('clears a value with null when it is emptied', () => {
    expect(changedValues([note, remote], { note: 'x', remote: true }, { note: '', remote: false })).toEqual({
      note: null,
      remote: false,
    });
  });

  it('gives date editors a day and unset checkboxes false', () => {
    expect(dayjs.isDayjs(toFormValue(birthday, '1990-05-01'))).toBe(true);
    expect(toFormValue(remote, undefined)).toBe(false);
  });

  it('writes dates the way the user’s language does', () => {
    expect(datePattern('ru')).toBe('DD.MM.YYYY');
    expect(datePattern('en-US')).toBe('MM/DD/YYYY');
  });
});
