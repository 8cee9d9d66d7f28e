import { App } from 'antd';
import type { ArgsProps, JointContent, MessageInstance, NoticeType } from 'antd/es/message/interface';
import { useMemo } from 'react';

type Shortcut = MessageInstance['success'];

/**
 * antd's message API, with a text already on screen shown once: saving twice in a row brings its
 * notice back up (its time starts again) instead of stacking a second copy over the page. A notice
 * given as an object (one with its own key, an Undo button) is passed on as it is.
 */
export function onceOnScreen(message: MessageInstance): MessageInstance {
  const shortcut =
    (type: NoticeType): Shortcut =>
    (content: JointContent, duration?: number | VoidFunction, onClose?: VoidFunction) => {
      if (typeof content !== 'string') return message[type](content, duration, onClose);
      const args: ArgsProps = { type, content, key: `${type}:${content}` };
      if (typeof duration === 'function') args.onClose = duration;
      else {
        if (duration !== undefined) args.duration = duration;
        if (onClose) args.onClose = onClose;
      }
      return message.open(args);
    };
  return {
    ...message,
    info: shortcut('info'),
    success: shortcut('success'),
    error: shortcut('error'),
    warning: shortcut('warning'),
    loading: shortcut('loading'),
  };
}

/** The app's message API (`onceOnScreen` over antd's `App.useApp().message`). */
export function useMessage(): MessageInstance {
  const { message } = App.useApp();
  return useMemo(() => onceOnScreen(message), [message]);
}
