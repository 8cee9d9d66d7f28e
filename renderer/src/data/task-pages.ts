import type { MangoQuerySelector, MangoQuerySortPart, RxCollection } from 'rxdb';
import { defer, map, type Observable, switchMap } from 'rxjs';
import type { TaskDocument } from './schemas';

/** Newest first (`updatedAt`, then `id`), as ascending index order reversed. */
const ASCENDING: MangoQuerySortPart<TaskDocument>[] = [{ updatedAt: 'asc' }, { id: 'asc' }];
/** A year past now: `updatedAt` values beyond it (a server clock far ahead) are searched up to the end of time. */
const AHEAD_MS = 366 * 86_400_000;
const LAST_MS = 8.64e15;

function iso(ms: number): string {
  return new Date(ms).toISOString();
}

/**
 * The lowest `updatedAt` (as an ISO string, to the millisecond) from which at least `wanted` tasks
 * match: a bisection over time with index counts. RxDB reads indexes in ascending order only, and
 * IndexedDB walks every skipped record one by one, so "the newest 50 of 50,000" read with `skip`
 * costs the whole index; an index count costs a few milliseconds, and ≈ 35 of them find where the
 * page starts. Undefined when fewer than `wanted` match (the page starts at the oldest).
 */
async function pageStart(
  collection: RxCollection<TaskDocument>,
  selector: MangoQuerySelector<TaskDocument>,
  wanted: number,
  total: number,
): Promise<string | undefined> {
  if (total <= wanted) return undefined;
  const countFrom = (ms: number) =>
    collection.count({ selector: { ...selector, updatedAt: { $gte: iso(ms) } } as never }).exec();
  const oldest = await collection.findOne({ selector, sort: ASCENDING }).exec();
  const oldestMs = Date.parse(oldest?.updatedAt ?? '');
  if (Number.isNaN(oldestMs)) return undefined;
  // Invariant: at least `wanted` tasks from `low` on, fewer from `high` on.
  let low = oldestMs;
  let high = Math.max(Date.now() + AHEAD_MS, low + 1);
  if ((await countFrom(high)) >= wanted) {
    low = high;
    high = LAST_MS;
  }
  while (high - low > 1) {
    const middle = Math.floor((low + high) / 2);
    if ((await countFrom(middle)) >= wanted) low = middle;
    else high = middle;
  }
  return iso(low);
}

/**
 * Page `page` (from 1) of the tasks matching `selector`, newest first, `size` per page, live. Near
 * the oldest end the page is read with `skip` from the start of the ascending index; elsewhere from
 * the page's start (found by `pageStart`) on, reversed: either way at most half the list is read.
 * `total` is the live count of matching tasks; when it changes the page is read again. Between two
 * counts a task changed only moves up (its `updatedAt` grows), so it stays within the range read.
 */
export function newestTasksPage(
  collection: RxCollection<TaskDocument>,
  selector: MangoQuerySelector<TaskDocument>,
  page: number,
  size: number,
  total: number,
): Observable<TaskDocument[]> {
  const wanted = page * size;
  const newestFirst = (docs: { toJSON(): unknown }[]) => docs.map((doc) => doc.toJSON() as TaskDocument).reverse();
  const skip = total - wanted;
  if (skip <= wanted) {
    return collection
      .find({
        selector,
        sort: ASCENDING,
        skip: Math.max(0, skip),
        limit: Math.max(0, Math.min(size, total - (page - 1) * size)),
      })
      .$.pipe(map(newestFirst));
  }
  return defer(() => pageStart(collection, selector, wanted, total)).pipe(
    switchMap(
      (start) =>
        collection.find({
          selector: (start ? { ...selector, updatedAt: { $gte: start } } : selector) as never,
          sort: ASCENDING,
        }).$,
    ),
    map((docs) => newestFirst(docs).slice(wanted - size, wanted)),
  );
}

/** What the task list is narrowed to: a form or one of its statuses, tasks of one assignee, a search. */
export interface TaskListFilter {
  formId?: string;
  statusId?: string;
  /** Only tasks this user is an assignee of ("mine"). */
  assigneeId?: string;
  /** Text the title or the description contains, in any letter case. */
  search?: string;
}

/** `text` as a regular expression matching itself. */
function literal(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/**
 * The replica query of a filtered task list. Assignee and search conditions are tested where the
 * documents are stored (the desktop's replica process, IndexedDB's storage): only matching tasks
 * reach the page, not every task of the form.
 */
export function taskListSelector(filter: TaskListFilter): MangoQuerySelector<TaskDocument> {
  const selector: Record<string, unknown> = filter.statusId
    ? { statusId: filter.statusId }
    : filter.formId
      ? { formId: filter.formId }
      : {};
  if (filter.assigneeId) selector.assignees = { $elemMatch: { userId: filter.assigneeId } };
  const needle = filter.search?.trim();
  if (needle) {
    const contains = { $regex: literal(needle), $options: 'i' };
    selector.$or = [{ title: contains }, { description: contains }];
  }
  return selector as MangoQuerySelector<TaskDocument>;
}
