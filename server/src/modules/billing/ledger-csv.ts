import type { LedgerEntry } from '@shared/api/billing';
import { stringify } from 'csv-stringify/sync';

const HEADERS = {
  en: ['Date (UTC)', 'Kind', 'Amount', 'Currency', 'Balance after', 'Reason', 'Payment'],
  ru: ['Дата (UTC)', 'Вид', 'Сумма', 'Валюта', 'Баланс после', 'Причина', 'Платёж'],
};

const KINDS = {
  en: { payment: 'payment', charge: 'charge', adjustment: 'adjustment' },
  ru: { payment: 'платёж', charge: 'списание', adjustment: 'корректировка' },
};

/** Kopecks as a decimal with two places, without floating point (-1205 → "-12.05"). */
export function kopecksAsDecimal(kopecks: number): string {
  const sign = kopecks < 0 ? '-' : '';
  const absolute = Math.abs(kopecks);
  return `${sign}${Math.floor(absolute / 100)}.${String(absolute % 100).padStart(2, '0')}`;
}

/** The ledger as CSV in the reader's language; amounts in roubles with a dot, so spreadsheets read them. */
export function ledgerCsv(entries: readonly LedgerEntry[], locale: 'ru' | 'en'): string {
  return stringify([
    HEADERS[locale],
    ...entries.map((entry) => [
      entry.createdAt,
      KINDS[locale][entry.kind],
      kopecksAsDecimal(entry.amount),
      entry.currency,
      kopecksAsDecimal(entry.balanceAfter),
      entry.reason ?? '',
      entry.paymentId ?? '',
    ]),
  ]);
}
