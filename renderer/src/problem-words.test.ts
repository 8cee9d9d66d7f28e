import { problemCatalogue } from '@shared/api/problem';
import i18next from 'i18next';
import { describe, expect, it } from 'vitest';
import { en } from './i18n/en';
import { ru } from './i18n/ru';
import { problemWords } from './problem-words';

describe('the server’s problems in the user’s language', () => {
  it('has words for every problem code the server answers with, in Russian and in English', async () => {
    const codes = Object.keys(problemCatalogue).sort();
    expect(codes.filter((code) => !(code in ru.problems))).toEqual([]);
    expect(codes.filter((code) => !(code in en.problems))).toEqual([]);
    // In Russian none of them is the server's English detail alone.
    const instance = i18next.createInstance();
    await instance.init({ resources: { ru: { translation: ru } }, lng: 'ru', interpolation: { escapeValue: false } });
    const english = codes.filter(
      (code) => problemWords(instance.t, { code, detail: 'Server words.' }) === 'Server words.',
    );
    expect(english).toEqual([]);
  });
});
