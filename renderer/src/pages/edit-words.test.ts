import i18next from 'i18next';
import { describe, expect, it } from 'vitest';
import { en } from '../i18n/en';
import { ru } from '../i18n/ru';
import { asSentence, refusalText } from './edit-words';

async function translator(language: 'ru' | 'en') {
  const instance = i18next.createInstance();
  await instance.init({
    resources: { ru: { translation: ru }, en: { translation: en } },
    lng: language,
    interpolation: { escapeValue: false },
  });
  return instance.t;
}

describe('why the server refused an offline edit', () => {
  it('is said in Russian where the problem code is known, the server’s words kept where they name what is wrong', async () => {
    const t = await translator('ru');
    expect(refusalText(t, { code: 'form_deleted', detail: 'The form is deleted and takes no new tasks.' })).toBe(
      'форму удалили на сервере, новых задач она не принимает',
    );
    expect(refusalText(t, { code: 'validation_failed', detail: 'Amount must be a number.' })).toBe(
      'сервер не принял значение (Amount must be a number.)',
    );
    // An unknown code, or none: the server's words; no words at all: the device's own.
    expect(refusalText(t, { code: 'something_new', detail: 'A new rule.' })).toBe('A new rule.');
    expect(refusalText(t, { detail: 'A new rule.' })).toBe('A new rule.');
    expect(refusalText(t, {})).toBe(ru.conflicts.refused);
  });

  it('is the server’s own words in English', async () => {
    const t = await translator('en');
    expect(refusalText(t, { code: 'form_deleted', detail: 'The form is deleted and takes no new tasks.' })).toBe(
      'The form is deleted and takes no new tasks.',
    );
  });

  it('ends as a sentence when followed by another', () => {
    expect(asSentence('форму удалили ')).toBe('форму удалили.');
    expect(asSentence('Deleted.')).toBe('Deleted.');
  });
});
