import type { ProfileField, UserFieldHistory } from '@shared/api/profile';
import { normalizeNumber } from '@shared/number';
import type { HistoryBucketRow, ProfileFieldRow } from './profile.repo';

export function presentField(row: ProfileFieldRow): ProfileField {
  return {
    id: row.id,
    name: row.name,
    type: row.type,
    options: row.options,
    position: row.position,
    createdAt: row.created_at.toISOString(),
  };
}

export function presentHistory(
  period: UserFieldHistory['period'],
  fieldId: string,
  rows: readonly HistoryBucketRow[],
): UserFieldHistory {
  return {
    period,
    fieldId,
    buckets: rows.map((row) => ({
      start: row.start.toISOString(),
      // AVG carries trailing zeros of its scale (`1.5000000000000000`): shown normalised, like stored numbers.
      average: normalizeNumber(row.average) ?? row.average,
      count: row.count,
    })),
  };
}
