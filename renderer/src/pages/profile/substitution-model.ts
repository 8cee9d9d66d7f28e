import type { Delegation, DelegationApplication } from '@shared/api/delegations';
import type { TFunction } from 'i18next';
import { DateTime } from 'luxon';
import { ApiError } from '../../api';
import { failureText } from '../../use-api';

/** Periods are entered and shown in Moscow time, and travel as UTC instants. */
export const ZONE = 'Europe/Moscow';
export const moscow = (iso: string) => DateTime.fromISO(iso, { zone: ZONE }).toFormat('dd.MM.yyyy HH:mm');
export const fromMoscow = (local: string) => DateTime.fromISO(local, { zone: ZONE }).toUTC().toISO() as string;
/** An instant as the `datetime-local` control takes it, in Moscow time. */
export const toMoscowInput = (iso: string) => DateTime.fromISO(iso, { zone: ZONE }).toFormat("yyyy-MM-dd'T'HH:mm");

/** How often a running bulk application is asked for its progress. */
export const POLL_MS = 2_000;

/**
 * Whether the bulk application is going on or about to (scheduled with its start come): its
 * progress is then asked for again until it is done.
 */
export function inProgress(delegation: Delegation, now: Date): boolean {
  const application = delegation.application;
  if (!application) return false;
  return (
    application.state === 'running' ||
    (application.state === 'scheduled' && new Date(delegation.from).getTime() <= now.getTime())
  );
}

/** The next start of a scheduled application after `now` (ms from now), to look again then. */
export function nextStartIn(delegations: Delegation[], now: Date): number | undefined {
  const waits = delegations
    .filter((one) => one.application?.state === 'scheduled')
    .map((one) => new Date(one.from).getTime() - now.getTime())
    .filter((wait) => wait > 0);
  return waits.length > 0 ? Math.min(...waits) : undefined;
}

/** Part of the open tasks gone through, in percent (0 while not counted). */
export function percentOf(application: DelegationApplication): number {
  if (application.state === 'done') return 100;
  if (!application.total) return 0;
  return Math.min(100, Math.floor((application.applied * 100) / application.total));
}

/**
 * What the bulk application of a delegation has done, in the user's language: its start (Moscow
 * time) while scheduled, "added to 1 500 of 10 000" while running, the number of tasks when done.
 */
export function applicationText(
  t: TFunction,
  language: string,
  delegation: Pick<Delegation, 'from' | 'application'>,
  now: Date,
): string {
  const application = delegation.application;
  const number = (value: number) => new Intl.NumberFormat(language === 'en' ? 'en' : 'ru').format(value);
  if (!application) return t('profile.substitutionProgress.missed');
  if (application.state === 'scheduled') {
    return new Date(delegation.from).getTime() > now.getTime()
      ? t('profile.substitutionProgress.startsAt', { at: moscow(delegation.from) })
      : t('profile.substitutionProgress.starting');
  }
  if (application.state === 'running') {
    return application.total === null
      ? t('profile.substitutionProgress.runningUncounted', { applied: number(application.applied) })
      : t('profile.substitutionProgress.running', {
          count: application.total,
          applied: number(application.applied),
          total: number(application.total),
        });
  }
  return application.applied === 0
    ? t('profile.substitutionProgress.doneNone')
    : t('profile.substitutionProgress.done', { count: application.applied, n: number(application.applied) });
}

/** The form's fields a refused delegation names (`#/substituteUserId`, …), each with its words. */
export interface RefusedDelegation {
  message: string;
  fields: { name: DelegationField; errors: string[] }[];
}

const FORM_FIELDS = ['substituteUserId', 'formId', 'from', 'to'] as const;
type DelegationField = (typeof FORM_FIELDS)[number];
const isFormField = (name: string): name is DelegationField => (FORM_FIELDS as readonly string[]).includes(name);

/**
 * Why the server refused a delegation, in the user's language: the fields it named under their
 * controls, an overlapping period in words of its own, else the server's problem as other pages say it.
 */
export function refusal(caught: unknown, t: TFunction): RefusedDelegation {
  const failed = t('profile.substitutionProblems.failed');
  if (!(caught instanceof ApiError) || caught.problem.status === 0) {
    return { message: `${failed}: ${failureText(caught, t)}`, fields: [] };
  }
  const { problem } = caught;
  if (problem.code === 'conflict') {
    return { message: `${failed}: ${t('profile.substitutionProblems.conflict')}`, fields: [] };
  }
  const fields = (problem.errors ?? []).flatMap((error) => {
    const name = error.pointer.replace(/^#\//, '');
    return isFormField(name)
      ? [{ name, errors: [t(`profile.substitutionProblems.${error.code}`, { defaultValue: error.detail })] }]
      : [];
  });
  return {
    message:
      fields.length > 0
        ? `${failed}: ${t('profile.substitutionProblems.fields')}`
        : `${failed}: ${failureText(caught, t)}`,
    fields,
  };
}
