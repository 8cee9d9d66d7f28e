import type { TFunction } from 'i18next';

/**
 * A problem the server answered, in the user's language where its code is known (the server's
 * details are English; they go along where they name what is wrong), else the server's words.
 */
export function problemWords(t: TFunction, problem: { code?: string; detail?: string }, fallback = ''): string {
  const detail = problem.detail ?? fallback;
  return problem.code ? t(`problems.${problem.code}`, { defaultValue: detail, detail }) : detail;
}
