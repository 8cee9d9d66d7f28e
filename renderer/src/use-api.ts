import { type CallArgs, type CallInput, type CallResult, type Endpoint, endpointUrl } from '@shared/api/endpoint';
import type { TFunction } from 'i18next';
import { useCallback, useEffect, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useNavigate } from 'react-router';
import { ApiError, call } from './api';
import { replicaFailureText } from './data/replica-errors';
import { problemWords } from './problem-words';

/** Why a call failed, in the user's language: the server's problem, or no answer (the network). */
export function failureText(caught: unknown, t: TFunction): string {
  return caught instanceof ApiError && caught.problem.status > 0
    ? problemWords(t, caught.problem)
    : t('errors.network');
}

/**
 * Why a save failed, in the user's language: the server's problem, no answer, or — saved on this
 * device instead — the replica's own failure (a full disk, a record deleted meanwhile).
 */
export function saveFailureText(caught: unknown, t: TFunction): string {
  return caught instanceof ApiError ? failureText(caught, t) : replicaFailureText(caught, t);
}

/**
 * Runs `load` whenever `key` changes or `reload()` is called (no key, no load); errors come as the
 * server's words, and an ended session goes to sign-in.
 */
export function useLoad<T>(key: string | undefined, load: () => Promise<T>) {
  const { t } = useTranslation();
  const navigate = useNavigate();
  // Kept in a ref: a new closure (or `t`/`navigate` identity) each render must not restart the load.
  const latest = useRef({ load, t, navigate });
  latest.current = { load, t, navigate };
  const [data, setData] = useState<T>();
  const [error, setError] = useState<string>();
  const [loading, setLoading] = useState(true);
  const [version, setVersion] = useState(0);
  // biome-ignore lint/correctness/useExhaustiveDependencies: `version` is the reload trigger.
  useEffect(() => {
    if (key === undefined) return;
    let current = true;
    setLoading(true);
    latest.current
      .load()
      .then((result) => {
        if (!current) return;
        setData(result);
        setError(undefined);
      })
      .catch((caught: unknown) => {
        if (!current) return;
        // The session ended (or never began): sign in again.
        if (caught instanceof ApiError && caught.problem.status === 401) return latest.current.navigate('/sign-in');
        setError(failureText(caught, latest.current.t));
      })
      .finally(() => {
        if (current) setLoading(false);
      });
    return () => {
      current = false;
    };
  }, [key, version]);
  const reload = useCallback(() => setVersion((v) => v + 1), []);
  return { data, error, loading, reload, setData };
}

/**
 * Calls an operation that reads (a GET) with `input`, and again when its URL changes or `reload()`
 * is called; no input, no call.
 */
export function useCall<E extends Endpoint>(endpoint: E, input: CallInput<E> | undefined) {
  const key = input === undefined ? undefined : endpointUrl(endpoint, input);
  return useLoad<CallResult<E>>(key, () => call(endpoint, ...([input] as CallArgs<E>)));
}

/** A page of a list, as the operations that read lists page after page answer it. */
interface Page<Item> {
  items: Item[];
  nextCursor: string | null;
}

/** An item of a list an operation answers page after page. */
type PageItem<E extends Endpoint> = CallResult<E> extends Page<infer Item> ? Item : never;

/**
 * A list read page after page (an operation taking `limit` and `cursor`, answering `{items,
 * nextCursor}`): the first page when `input` is set or its URL changes, `more()` for the next,
 * `reload()` from the start, `drop(id)` to take an item off the shown list. A page asked for before
 * a newer request is not shown.
 */
export function usePages<E extends Endpoint>(endpoint: E, input: CallInput<E> | undefined, pageSize = 50) {
  type Item = PageItem<E> & { id: string };
  const key = input === undefined ? undefined : endpointUrl(endpoint, input);
  const { t } = useTranslation();
  const [items, setItems] = useState<Item[]>();
  const [nextCursor, setNextCursor] = useState<string | null>(null);
  const [loading, setLoading] = useState(false);
  const [error, setError] = useState<string>();
  const request = useRef(0);
  const latest = useRef({ endpoint, input, t });
  latest.current = { endpoint, input, t };

  const load = useCallback(
    async (cursor: string | null) => {
      const { endpoint: from, input: asked, t: words } = latest.current;
      if (!asked) return;
      const requested = ++request.current;
      setLoading(true);
      try {
        const query = { ...asked.query, limit: pageSize, ...(cursor ? { cursor } : {}) };
        // The operation answers a page of its items (`PageItem`), whatever its other types.
        const page = (await call(from, ...([{ ...asked, query }] as CallArgs<E>))) as unknown as Page<Item>;
        if (requested !== request.current) return;
        setItems((shown) => (cursor ? [...(shown ?? []), ...page.items] : page.items));
        setNextCursor(page.nextCursor);
        setError(undefined);
      } catch (caught) {
        if (requested === request.current) setError(failureText(caught, words));
      } finally {
        if (requested === request.current) setLoading(false);
      }
    },
    [pageSize],
  );
  // `key` is the call's URL: a new one reads from the start.
  useEffect(() => {
    setItems(undefined);
    if (key) void load(null);
  }, [key, load]);
  const drop = useCallback((id: string) => setItems((shown) => shown?.filter((item) => item.id !== id)), []);
  return {
    items,
    nextCursor,
    loading,
    error,
    more: () => nextCursor && load(nextCursor),
    reload: () => load(null),
    drop,
  };
}
