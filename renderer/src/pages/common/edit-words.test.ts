import i18next from 'i18next';
import { describe, expect, it } from 'vitest';
import { ApiError } from '../../api';
import { en } from '../../i18n/en';
import { ru } from '../../i18n/ru';
import { failureText } from '../../use-api';
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
      'форму удалили, новых задач она не принимает',
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

describe('why a call failed', () => {
  const problem = (code: string, detail: string, status = 409) =>
    new ApiError({ type: `/api/problems/${code}`, title: code, status, code, detail } as never);

  it('is the server’s problem in the user’s language, or the network when nothing answered', async () => {
    const ru = await translator('ru');
    expect(failureText(problem('name_taken', 'The organization already has a role named "Dispatchers".'), ru)).toBe(
      'такое имя уже занято',
    );
    expect(failureText(problem('something_new', 'A new rule.'), ru)).toBe('A new rule.');
    expect(failureText(problem('', 'No answer.', 0), ru)).toBe(ru('errors.network'));
    expect(failureText(new Error('boom'), ru)).toBe(ru('errors.network'));
    const en = await translator('en');
    expect(failureText(problem('name_taken', 'The organization already has a role named "Dispatchers".'), en)).toBe(
      'The organization already has a role named "Dispatchers".',
    );
  });

  it('gives the id the server logged its own failure under, to report it by', async () => {
    const requestId = '0b7e9a52-3c1d-4f7e-9a4b-2d6c8e1f0a93';
    const failed = (status: number, code: string, detail: string) =>
      new ApiError({ type: `/api/problems/${code}`, title: code, status, code, detail, requestId } as never);
    const internal = failed(500, 'internal_error', 'An unexpected error occurred and was logged.');
    expect(failureText(internal, await translator('en'))).toBe(
      `An unexpected error occurred and was logged. (request id ${requestId})`,
    );
    expect(failureText(internal, await translator('ru'))).toBe(
      `на сервере произошла ошибка; попробуйте позже, а если повторится — сообщите администратору (ID запроса ${requestId})`,
    );
    // A refusal is the user's to fix: no id to report.
    expect(failureText(failed(409, 'name_taken', 'Taken.'), await translator('en'))).toBe('Taken.');
  });
});
