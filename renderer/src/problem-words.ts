import type { TFunction } from 'i18next';

/**
 * A problem the server answered, in the user's language where its code is known (the server's
 * details are English; they go along where they name what is wrong), else the server's words.
 */
export function problemWords(
  t: TFunction,
  problem: { code?: string; detail?: string; status?: number; requestId?: string },
  fallback = '',
): string {
  const detail = problem.detail ?? fallback;
  const words = problem.code ? t(`problems.${problem.code}`, { defaultValue: detail, detail }) : detail;
  // The server's own failures are to be reported with the id it logged them under: it is given.
  return problem.requestId && (problem.status ?? 0) >= 500
    ? `${words} ${t('errors.requestId', { requestId: problem.requestId })}`
    : words;
}
