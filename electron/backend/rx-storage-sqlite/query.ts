import type Database from 'better-sqlite3';
import type { PreparedQuery, RxDocumentData, RxQueryPlan, RxStorageCountResult } from 'rxdb';
import {
  getQueryMatcher,
  getSortComparator,
  getStartIndexStringFromLowerBound,
  getStartIndexStringFromUpperBound,
} from 'rxdb';
import type { CollectionState, IndexColumn } from './database';
import { indexKey, indexLookupKey, quoteIdentifier } from './helpers';

type Doc = RxDocumentData<unknown>;

/** The query plan's index range as bounds on the column holding that index's indexable string. */
interface IndexRange {
  index: IndexColumn;
  lower: string;
  upper: string;
  inclusiveStart: boolean;
  inclusiveEnd: boolean;
}

function indexRange(state: CollectionState, plan: RxQueryPlan): IndexRange | undefined {
  const index = state.indexByKey.get(indexLookupKey(plan.index));
  if (!index) return undefined;
  return {
    index,
    lower: indexKey(getStartIndexStringFromLowerBound(state.schema, plan.index, plan.startKeys)),
    upper: indexKey(getStartIndexStringFromUpperBound(state.schema, plan.index, plan.endKeys)),
    inclusiveStart: plan.inclusiveStart,
    inclusiveEnd: plan.inclusiveEnd,
  };
}

type RangeKind = 'rows' | 'page' | 'count';

function rangeSql(state: CollectionState, range: IndexRange, kind: RangeKind): string {
  const column = quoteIdentifier(range.index.column);
  const where = `${column} ${range.inclusiveStart ? '>=' : '>'} ? AND ${column} ${range.inclusiveEnd ? '<=' : '<'} ?`;
  const table = quoteIdentifier(state.table);
  return kind === 'count'
    ? `SELECT COUNT(*) FROM ${table} WHERE ${where}`
    : `SELECT data FROM ${table} WHERE ${where} ORDER BY ${column}${kind === 'page' ? ' LIMIT ? OFFSET ?' : ''}`;
}

/**
 * `rows`: every document in the range in index order; `page`: the same with `LIMIT ? OFFSET ?`;
 * `count`: the number of documents in the range. Prepared once per (index, bound inclusiveness, kind).
 */
function rangeStatement(state: CollectionState, range: IndexRange, kind: RangeKind): Database.Statement {
  const key = `${kind}|${range.index.column}|${range.inclusiveStart}|${range.inclusiveEnd}`;
  let statement = state.rangeStatements.get(key);
  if (!statement) {
    statement = state.database.db.prepare(rangeSql(state, range, kind)).pluck();
    state.rangeStatements.set(key, statement);
  }
  return statement;
}

function parse(data: unknown): Doc {
  return JSON.parse(data as string) as Doc;
}

function bounds(query: PreparedQuery<unknown>['query']) {
  const skip = Math.max(0, query.skip || 0);
  // `limit: 0` is a limit (no documents), not "no limit".
  const limit = typeof query.limit === 'number' ? Math.max(0, query.limit) : Number.POSITIVE_INFINITY;
  return { skip, limit };
}

/** Documents of the plan's index range (or of the whole table when the plan names an index the table lacks). */
function candidates(state: CollectionState, range: IndexRange | undefined): Doc[] {
  const rows = range ? rangeStatement(state, range, 'rows').all(range.lower, range.upper) : state.statements.all.all();
  return rows.map(parse);
}

/**
 * Runs a prepared query: the range of the planned index in SQL (`ix >= lower AND ix <= upper ORDER
 * BY ix`), then RxDB's query matcher and sort comparator in JavaScript only where the plan says the
 * index does not already satisfy the selector or the sort — the same results, in the same order, as
 * RxDB's memory storage.
 */
export function queryDocuments(state: CollectionState, prepared: PreparedQuery<unknown>): Doc[] {
  const { query, queryPlan } = prepared;
  const { skip, limit } = bounds(query);
  if (limit === 0) return [];
  const range = indexRange(state, queryPlan);
  const sortByIndex = queryPlan.sortSatisfiedByIndex && range !== undefined;
  const selectorByIndex = queryPlan.selectorSatisfiedByIndex && range !== undefined;

  if (sortByIndex && selectorByIndex) {
    const rows = rangeStatement(state, range, 'page').all(
      range.lower,
      range.upper,
      Number.isFinite(limit) ? limit : -1,
      skip,
    );
    return rows.map(parse);
  }

  if (sortByIndex) {
    // Index order is the result order: match while walking the range, stop once the page is full.
    const matches = getQueryMatcher(state.schema, query) as (doc: Doc) => boolean;
    const wanted = skip + limit;
    const found: Doc[] = [];
    for (const data of rangeStatement(state, range, 'rows').iterate(range.lower, range.upper)) {
      const doc = parse(data);
      if (!matches(doc)) continue;
      found.push(doc);
      if (found.length >= wanted) break;
    }
    return skip > 0 ? found.slice(skip) : found;
  }

  let docs = candidates(state, range);
  if (!selectorByIndex) {
    const matches = getQueryMatcher(state.schema, query) as (doc: Doc) => boolean;
    docs = docs.filter((doc) => matches(doc));
  }
  docs.sort(getSortComparator(state.schema, query) as (a: Doc, b: Doc) => number);
  return skip > 0 || docs.length > limit ? docs.slice(skip, skip + limit) : docs;
}

/**
 * Counts what `queryDocuments` would return. `fast` when the index range alone answers the selector
 * (an SQL `COUNT(*)` over the range), `slow` when documents had to be matched in JavaScript.
 */
export function countDocuments(state: CollectionState, prepared: PreparedQuery<unknown>): RxStorageCountResult {
  const { query, queryPlan } = prepared;
  const { skip, limit } = bounds(query);
  const range = indexRange(state, queryPlan);
  let total: number;
  let mode: RxStorageCountResult['mode'];
  if (range && queryPlan.selectorSatisfiedByIndex) {
    total = rangeStatement(state, range, 'count').get(range.lower, range.upper) as number;
    mode = 'fast';
  } else {
    const matches = getQueryMatcher(state.schema, query) as (doc: Doc) => boolean;
    total = candidates(state, range).filter((doc) => matches(doc)).length;
    mode = 'slow';
  }
  return { count: Math.max(0, Math.min(total - skip, limit)), mode };
}

/** SQLite's plan (`EXPLAIN QUERY PLAN` details) for the statement `queryDocuments` reads candidates with. */
export function explainQuery(state: CollectionState, prepared: PreparedQuery<unknown>): string[] {
  const range = indexRange(state, prepared.queryPlan);
  const { db } = state.database;
  const rows = range
    ? db.prepare(`EXPLAIN QUERY PLAN ${rangeSql(state, range, 'rows')}`).all(range.lower, range.upper)
    : db.prepare(`EXPLAIN QUERY PLAN SELECT data FROM ${quoteIdentifier(state.table)}`).all();
  return (rows as { detail: string }[]).map((row) => row.detail);
}
