import type { FilterSettings, GpsObject, PartialFilterSettings } from '@shared/api/gps';
import type { ProblemFieldError } from '@shared/api/problem';
import type { TFunction } from 'i18next';
import { fieldErrorWords } from '../settings/gps-settings-model';

/** The filter settings a group or an object may override, each with its unit (named as in the API). */
export const FILTER_FIELDS = [
  ['maxJumpSpeedKmh', 'kmh'],
  ['stationarySpeedKmh', 'kmh'],
  ['jitterMeters', 'meters'],
  ['offRoadMeters', 'meters'],
  ['futureToleranceSeconds', 'seconds'],
  ['lbsMaxAccuracyMeters', 'meters'],
  ['lbsAfterGpsSeconds', 'seconds'],
  ['recoveryPoints', 'points'],
  ['gpsLossHours', 'hours'],
] as const satisfies readonly (readonly [keyof FilterSettings, string])[];
export type FilterField = (typeof FILTER_FIELDS)[number][0];

/** A group as the overrides need it: its name and its own values. */
export interface GroupSettings {
  id: string;
  name: string;
  settings: PartialFilterSettings;
}

/** Where an inherited value comes from: the organization's settings or the object's group. */
export type InheritedFrom = { source: 'organization' } | { source: 'group'; groupName: string };

/** The value a field takes where the group or object has none of its own, and where it comes from. */
export interface Inherited {
  value: number;
  from: InheritedFrom;
}

/**
 * What a field inherits: an object from its group's own value, else from the organization; a group
 * (no `group` given) from the organization. The filters resolve them the same way.
 */
export function inheritedValue(
  field: FilterField,
  organization: FilterSettings,
  group: GroupSettings | undefined,
): Inherited {
  const fromGroup = group?.settings[field];
  if (group && fromGroup !== undefined) return { value: fromGroup, from: { source: 'group', groupName: group.name } };
  return { value: organization[field], from: { source: 'organization' } };
}

/** One field of the overrides form: whether it has its own value, and that value (null while unset). */
export interface OverrideValue {
  own: boolean;
  value: number | null;
}
export type OverrideValues = Record<FilterField, OverrideValue>;

/** The form's values for `settings`: own values as they are, inherited fields prefilled with what they inherit. */
export function overrideValues(
  settings: PartialFilterSettings,
  organization: FilterSettings,
  group: GroupSettings | undefined,
): OverrideValues {
  const values = {} as OverrideValues;
  for (const [field] of FILTER_FIELDS) {
    const own = settings[field];
    values[field] =
      own === undefined
        ? { own: false, value: inheritedValue(field, organization, group).value }
        : { own: true, value: own };
  }
  return values;
}

/**
 * The `settings` the server is sent: the fields with their own value, as typed (an emptied one goes
 * as null, for the server to refuse at its field); inherited ones are left out.
 */
export function settingsOfValues(values: OverrideValues): Record<string, number | null> {
  const settings: Record<string, number | null> = {};
  for (const [field] of FILTER_FIELDS) {
    const entry = values[field];
    if (entry?.own) settings[field] = entry.value;
  }
  return settings;
}

/** What the object form edits. */
export interface ObjectValues {
  name: string;
  kind: GpsObject['kind'];
  trackerId: string;
  groupId: string | null;
}

/** Only what the form changed of the object (a colleague's change meanwhile to another field is kept). */
export function objectChange(object: ObjectValues, values: ObjectValues): Partial<ObjectValues> {
  const change: Partial<ObjectValues> = {};
  if (values.name.trim() !== object.name) change.name = values.name.trim();
  if (values.kind !== object.kind) change.kind = values.kind;
  if (values.trackerId.trim() !== object.trackerId) change.trackerId = values.trackerId.trim();
  if ((values.groupId ?? null) !== object.groupId) change.groupId = values.groupId ?? null;
  return change;
}

/** How many objects each group holds. */
export function objectCounts(objects: readonly Pick<GpsObject, 'groupId'>[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const object of objects) {
    if (object.groupId) counts.set(object.groupId, (counts.get(object.groupId) ?? 0) + 1);
  }
  return counts;
}

/** Whether the object's name, tracker id or group's name holds the search (case aside). */
export function objectMatches(
  object: Pick<GpsObject, 'name' | 'trackerId'>,
  groupName: string | undefined,
  search: string,
): boolean {
  const wanted = search.trim().toLocaleLowerCase();
  if (wanted === '') return true;
  return [object.name, object.trackerId, groupName ?? ''].some((text) => text.toLocaleLowerCase().includes(wanted));
}

/**
 * The form field a server's refusal points at: `#/settings/jitterMeters` → `['jitterMeters', 'value']`
 * in the overrides form, `#/trackerId` → `['trackerId']` in the object form.
 */
export function formFieldOfPointer(pointer: string): (string | number)[] {
  const path = pointer
    .replace(/^#\/?/, '')
    .split('/')
    .filter((part) => part !== '');
  if (path[0] === 'settings' && path[1]) return [path[1], 'value'];
  return path;
}

/** A server's refusal of one field in the user's language (the filter ranges come from the shared schema). */
export function refusalWords(error: ProblemFieldError, t: TFunction): string {
  if (error.code === 'taken') return t('gpsObjects.errors.trackerTaken');
  if (error.code === 'unknown_group') return t('gpsObjects.errors.unknownGroup');
  const settingsField = /^#\/settings\/(.+)$/.exec(error.pointer)?.[1];
  return fieldErrorWords(settingsField ? { ...error, pointer: `#/${settingsField}` } : error, t);
}
