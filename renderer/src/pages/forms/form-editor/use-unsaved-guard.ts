import { App } from 'antd';
import { useContext, useEffect, useRef } from 'react';
import { useTranslation } from 'react-i18next';
import { UNSAFE_NavigationContext } from 'react-router';

/**
 * Asks before leaving the page while `dirty`: on reload or tab close (the browser's own prompt) and
 * on links and menu items inside the app. The app's BrowserRouter has no `useBlocker` (that needs a
 * data router), so in-app navigation is held by wrapping the router's navigator while dirty.
 * Returns `allowNextLeave`, for navigation the editor makes itself right after a save.
 */
export function useUnsavedGuard(dirty: boolean) {
  const { t } = useTranslation();
  const { modal } = App.useApp();
  const { navigator } = useContext(UNSAFE_NavigationContext);
  const bypass = useRef(false);
  // Kept in a ref so a language switch does not rewrap the navigator.
  const texts = useRef({ t, modal });
  texts.current = { t, modal };

  useEffect(() => {
    if (!dirty) return;
    bypass.current = false;
    const onBeforeUnload = (event: BeforeUnloadEvent) => {
      event.preventDefault();
    };
    window.addEventListener('beforeunload', onBeforeUnload);
    const { push, replace } = navigator;
    const ask = (go: () => void) => {
      if (bypass.current) {
        bypass.current = false;
        go();
        return;
      }
      const { t: translate, modal: dialogs } = texts.current;
      dialogs.confirm({
        title: translate('formEditor.leaveTitle'),
        content: translate('formEditor.leaveText'),
        okText: translate('formEditor.leave'),
        cancelText: translate('formEditor.stay'),
        okButtonProps: { danger: true },
        onOk: go,
      });
    };
    navigator.push = (...args) => ask(() => push(...args));
    navigator.replace = (...args) => ask(() => replace(...args));
    return () => {
      window.removeEventListener('beforeunload', onBeforeUnload);
      navigator.push = push;
      navigator.replace = replace;
    };
  }, [dirty, navigator]);

  return {
    allowNextLeave: () => {
      bypass.current = true;
    },
  };
}
