import { describe, expect, it } from 'vitest';
import { formatMoney, parseRoubles } from './money';

describe('money on the Finance page', () => {
  it('reads typed roubles as whole kopecks and refuses fractions of a kopeck', () => {
    expect(['150', '150.5', '150,05', ' 0.01 '].map(parseRoubles)).toEqual([15_000, 15_050, 15_005, 1]);
    expect(['', '1.005', '-5', '1e3', 'abc'].map(parseRoubles)).toEqual([
      undefined,
      undefined,
      undefined,
      undefined,
      undefined,
    ]);
  });

  it('writes amounts with the rouble sign per language', () => {
    expect(formatMoney(123_450, 'RUB', 'ru')).toMatch(/^1\s234,50\s₽$/);
    expect(formatMoney(123_450, 'RUB', 'en')).toContain('1,234.50');
  });
});
