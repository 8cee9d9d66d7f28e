import { useCallback, useEffect, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useNavigate } from 'react-router';
import { ApiError, api } from './api';

/** Loads `path` (GET) and reloads when it changes or `reload()` is called; errors come as the server's words. */
export function useApi<T>(path: string | undefined) {
  const { t } = useTranslation();
  const navigate = useNavigate();
  // Kept in refs: their identity may change between renders, which must not restart a request.
  const latest = useRef({ t, navigate });
  latest.current = { t, navigate };
  const [data, setData] = useState<T>();
  const [error, setError] = useState<string>();
  const [loading, setLoading] = useState(true);
  const [version, setVersion] = useState(0);
  // biome-ignore lint/correctness/useExhaustiveDependencies: `version` is the reload trigger.
  useEffect(() => {
    if (!path) return;
    let current = true;
    setLoading(true);
    api<T>('GET', path)
      .then((result) => {
        if (!current) return;
        setData(result);
        setError(undefined);
      })
      .catch((caught: unknown) => {
        if (!current) return;
        // The session ended (or never began): sign in again.
        if (caught instanceof ApiError && caught.problem.status === 401) return latest.current.navigate('/sign-in');
        setError(
          caught instanceof ApiError && caught.problem.status > 0
            ? caught.problem.detail
            : latest.current.t('errors.network'),
        );
      })
      .finally(() => {
        if (current) setLoading(false);
      });
    return () => {
      current = false;
    };
  }, [path, version]);
  const reload = useCallback(() => setVersion((v) => v + 1), []);
  return { data, error, loading, reload };
}
