const UNIT_SECONDS: Record<string, number> = { s: 1, m: 60, h: 3600, d: 86_400 };

/**
 * Seconds in a duration written as whole seconds (`900`) or a number with a unit (`15m`, `30s`,
 * `12h`, `30d`). Returns undefined for anything else.
 */
export function parseDurationSeconds(value: string): number | undefined {
  const match = /^(\d+)\s*([smhd]?)$/.exec(value.trim());
  if (!match) return undefined;
  const seconds = Number(match[1]) * (UNIT_SECONDS[match[2] || 's'] as number);
  return seconds > 0 && Number.isSafeInteger(seconds) ? seconds : undefined;
}
