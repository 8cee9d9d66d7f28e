import type { TFunction } from 'i18next';
import { useCallback, useEffect, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useNavigate } from 'react-router';
import { ApiError, api } from './api';
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

/** Loads `path` (GET) and reloads when it changes or `reload()` is called. */
export function useApi<T>(path: string | undefined) {
  return useLoad<T>(path, () => api<T>('GET', path as string));
}

/**
 * A list read page after page (`GET path?limit=…&cursor=…`, answered `{items, nextCursor}`): the
 * first page when `path` is set or changes, `more()` for the next, `reload()` from the start,
 * `drop(id)` to take an item off the shown list. A page asked for before a newer request is not shown.
 */
export function usePages<T extends { id: string }>(path: string | undefined, pageSize = 50) {
  const { t } = useTranslation();
  const [items, setItems] = useState<T[]>();
  const [nextCursor, setNextCursor] = useState<string | null>(null);
  const [loading, setLoading] = useState(false);
  const [error, setError] = useState<string>();
  const request = useRef(0);
  const latest = useRef({ path, t });
  latest.current = { path, t };

  const load = useCallback(
    async (cursor: string | null) => {
      const { path: from, t: words } = latest.current;
      if (!from) return;
      const asked = ++request.current;
      setLoading(true);
      try {
        const query = `limit=${pageSize}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`;
        const page = await api<{ items: T[]; nextCursor: string | null }>('GET', `${from}?${query}`);
        if (asked !== request.current) return;
        setItems((shown) => (cursor ? [...(shown ?? []), ...page.items] : page.items));
        setNextCursor(page.nextCursor);
        setError(undefined);
      } catch (caught) {
        if (asked === request.current) setError(failureText(caught, words));
      } finally {
        if (asked === request.current) setLoading(false);
      }
    },
    [pageSize],
  );
  useEffect(() => {
    setItems(undefined);
    if (path) void load(null);
  }, [path, load]);
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
