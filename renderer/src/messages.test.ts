import type { ArgsProps, MessageInstance, MessageType } from 'antd/es/message/interface';
import { describe, expect, it } from 'vitest';
import { onceOnScreen } from './messages';

/** antd's message API as far as the screen goes: the notices it holds, by key, in order. */
function screen() {
  const shown = new Map<string, ArgsProps>();
  let unkeyed = 0;
  const done = Promise.resolve(true) as unknown as MessageType;
  const open = (args: ArgsProps) => {
    shown.delete(String(args.key ?? `unkeyed-${++unkeyed}`));
    shown.set(String(args.key ?? `unkeyed-${unkeyed}`), args);
    return done;
  };
  const shortcut =
    (type: ArgsProps['type']) =>
    (content: unknown): MessageType =>
      typeof content === 'object' && content !== null && 'content' in content
        ? open({ ...(content as ArgsProps), type })
        : open({ type, content: content as string });
  const message: MessageInstance = {
    open,
    destroy: (key) => (key === undefined ? shown.clear() : shown.delete(String(key))) && undefined,
    info: shortcut('info'),
    success: shortcut('success'),
    error: shortcut('error'),
    warning: shortcut('warning'),
    loading: shortcut('loading'),
  };
  return { message, texts: () => [...shown.values()].map((args) => `${args.type}: ${String(args.content)}`), shown };
}

describe('notices on screen', () => {
  it('shows a text once however often it is given, and different texts each', () => {
    const { message, texts } = screen();
    const notices = onceOnScreen(message);
    notices.info('Saved on this device');
    notices.success('Row saved');
    notices.info('Saved on this device');
    // Brought up again: the repeated text is the newest notice, not a second one.
    expect(texts()).toEqual(['success: Row saved', 'info: Saved on this device']);
    // The same words as an error are another notice.
    notices.error('Saved on this device');
    expect(texts()).toHaveLength(3);
  });

  it('keeps how long a notice stays and what runs when it closes', () => {
    const { message, shown } = screen();
    const notices = onceOnScreen(message);
    const closed = () => {};
    notices.success('Password changed', 6, closed);
    notices.warning('Language not saved', closed);
    expect(shown.get('success:Password changed')).toMatchObject({ duration: 6, onClose: closed });
    expect(shown.get('warning:Language not saved')).toMatchObject({ onClose: closed });
    expect(shown.get('warning:Language not saved')?.duration).toBeUndefined();
  });

  it('passes a notice given with its own key (one per deleted row, with Undo) on as it is', () => {
    const { message, texts } = screen();
    const notices = onceOnScreen(message);
    notices.success({ key: 'row-1', content: 'Row deleted' });
    notices.success({ key: 'row-2', content: 'Row deleted' });
    expect(texts()).toEqual(['success: Row deleted', 'success: Row deleted']);
  });
});
