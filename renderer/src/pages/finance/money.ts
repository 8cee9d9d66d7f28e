/** Kopecks as money in the reader's language: `1 234,50 ₽` in Russian, `RUB 1,234.50` in English. */
export function formatMoney(kopecks: number, currency: string, language: string): string {
  return new Intl.NumberFormat(language === 'en' ? 'en-US' : 'ru-RU', { style: 'currency', currency }).format(
    kopecks / 100,
  );
}

/**
 * Roubles as typed ("150", "150.5", "150,05") as whole kopecks, without floating point; undefined
 * for anything else (more than two decimals, signs, letters).
 */
export function parseRoubles(text: string): number | undefined {
  const match = /^\s*(\d{1,8})(?:[.,](\d{1,2}))?\s*$/.exec(text);
  if (!match) return undefined;
  return Number(match[1]) * 100 + Number((match[2] ?? '').padEnd(2, '0'));
}
